import XCTest
@testable import KeywordVectors

final class NativeFormatTests: VectorTestCase {
    let rows: [Float] = [1, 2, 3, -0.5, 0.25, 1e-3, 0, 65504, -2.5]

    func testFloat32RoundTripIsExactAndKeysShareRows() throws {
        let bytes = NativeVectorFormat.encode(dimension: 3, rows: rows, keys: ["人参", "にんじん", "玉葱", "zero"],
                                              keyRows: [0, 0, 1, 2], precision: .float32)
        let vectors = try WordVectors.load(path: try temporaryFile(bytes, extension: "kwv"))
        XCTAssertEqual(vectors.format, .native)
        XCTAssertEqual(vectors.dimension, 3)
        XCTAssertEqual(vectors.rowCount, 3)
        XCTAssertEqual(vectors.keyCount, 4)
        XCTAssertEqual(vectors.row(forKey: "人参"), 0)
        XCTAssertEqual(vectors.row(forKey: "にんじん"), 0)
        XCTAssertEqual(vectors.row(forKey: "玉葱"), 1)
        XCTAssertNil(vectors.row(forKey: "玉ねぎ"))
        XCTAssertEqual(vectors.keys(forRow: 0), ["人参", "にんじん"])
        XCTAssertEqual(vectors.label(forRow: 2), "zero")
        XCTAssertEqual(vectors.vector(for: "玉葱"), [-0.5, 0.25, 1e-3])
        vectors.withMatrix { XCTAssertEqual(Array($0), rows) }
    }

    func testFloat16RoundTripWithinHalfPrecision() throws {
        let bytes = NativeVectorFormat.encode(dimension: 3, rows: rows, keys: ["a", "b", "c"], keyRows: [0, 1, 2], precision: .float16)
        XCTAssertEqual(bytes.count, 64 + 9 * 2 + 3 * 4 + 6)
        let vectors = try WordVectors.load(path: try temporaryFile(bytes, extension: "kwv"))
        vectors.withMatrix { stored in
            for (value, original) in zip(stored, rows) {
                // binary16 keeps 11 significant bits: relative error ≤ 2^-11 (normal range).
                XCTAssertEqual(value, original, accuracy: abs(original) * 0x1p-11 + 0x1p-24)
            }
        }
    }

    func testHalfConversionMatchesFloat16ForEveryBitPattern() {
        for bits in 0 ... UInt16.max {
            let ours = NativeVectorFormat.halfToFloat(bits)
            let reference = Float(Float16(bitPattern: bits))
            if reference.isNaN { XCTAssertTrue(ours.isNaN); continue }
            XCTAssertEqual(ours.bitPattern, reference.bitPattern, "bits \(bits)")
            XCTAssertEqual(NativeVectorFormat.floatToHalf(reference), bits, "bits \(bits)")
        }
        // Ties round to even, as NumPy does.
        XCTAssertEqual(NativeVectorFormat.floatToHalf(1 + 0x1p-11), Float16(1).bitPattern)
        XCTAssertEqual(NativeVectorFormat.floatToHalf(1 + 3 * 0x1p-11), Float16(1 + 0x1p-9).bitPattern)
    }

    func testInMemoryVectorsBehaveLikeLoadedOnes() throws {
        let vectors = WordVectors(dimension: 3, rows: rows, keys: ["人参", "にんじん", "玉葱", "人参"], keyRows: [0, 0, 1, 2])
        XCTAssertEqual(vectors.format, .memory)
        XCTAssertEqual(vectors.rowCount, 3)
        XCTAssertEqual(vectors.row(forKey: "にんじん"), 0)
        XCTAssertEqual(vectors.row(forKey: "人参"), 0, "a repeated key keeps its first row")
        XCTAssertEqual(vectors.vector(for: "玉葱"), [-0.5, 0.25, 1e-3])
        XCTAssertEqual(vectors.label(forRow: 1), "玉葱")
        let neighbours = NeighbourIndex(vectors).nearest(to: [1, 2, 3], k: 1)
        XCTAssertEqual(neighbours.first?.row, 0)
        XCTAssertEqual(Double(try XCTUnwrap(neighbours.first?.similarity)), 1, accuracy: 1e-6)
    }

    func testHeaderIsSixtyFourBytesWithMagic() {
        let bytes = NativeVectorFormat.encode(dimension: 1, rows: [1], keys: ["k"], keyRows: [0], precision: .float32)
        XCTAssertEqual(Array(bytes[0 ..< 8]), Array("KWVECTRS".utf8))
        XCTAssertEqual(bytes.count, 64 + 4 + 4 + 2)
    }

    func testLoadRowsGivesTheMatrixOfLoadForEveryFormat() throws {
        for precision in [NativeVectorFormat.Precision.float16, .float32] {
            let bytes = NativeVectorFormat.encode(dimension: 3, rows: rows, keys: ["a", "b", "c"], keyRows: [0, 1, 2],
                                                  precision: precision)
            let path = try temporaryFile(bytes, extension: "kwv")
            let loaded = try WordVectors.loadRows(path: path)
            XCTAssertEqual(loaded.dimension, 3)
            XCTAssertEqual(loaded.rows, try WordVectors.load(path: path).withMatrix { Array($0) }, "\(precision)")
        }
        let text = try temporaryFile("2 3\na 1 2 3\nb -0.5 0.25 0.001\n", extension: "vec")
        XCTAssertEqual(try WordVectors.loadRows(path: text).rows, [1, 2, 3, -0.5, 0.25, 0.001])
    }

    func testLoadRowsReportsAHeaderErrorWithFileAndOffsetLikeLoad() throws {
        var bytes = NativeVectorFormat.encode(dimension: 3, rows: rows, keys: ["a", "b", "c"], keyRows: [0, 1, 2], precision: .float32)
        bytes[12] = 9 // scalar kind
        let path = try temporaryFile(bytes, extension: "kwv")
        XCTAssertThrowsError(try WordVectors.loadRows(path: path)) { error in
            XCTAssertEqual("\(error)", "\(path): at byte offset 12: unknown scalar kind 9")
        }
        XCTAssertThrowsError(try WordVectors.load(path: path)) { error in
            XCTAssertEqual("\(error)", "\(path): at byte offset 12: unknown scalar kind 9")
        }
        let truncated = try temporaryFile(Array(bytes.prefix(40)), extension: "kwv")
        XCTAssertThrowsError(try WordVectors.loadRows(path: truncated)) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(truncated): at byte offset 40: file is truncated"), "\(error)")
        }
    }
}
