import Foundation
import XCTest
@testable import KeywordVectors

/// Converting fastText `.vec` and `.bin` files to `.kwv`: the reference writer's bytes, the source's vectors,
/// and the words `.kwv` cannot hold.
final class VectorConversionTests: VectorTestCase {
    /// `model.kwv` was written from `model.vec` by tools/vectors/vec_to_kwv.py (NumPy, float16).
    func testVecConvertsToTheReferenceWritersBytes() throws {
        let expected = Array(try Data(contentsOf: Fixture.directory.appendingPathComponent("model.kwv")))
        let vectors = try WordVectors.load(path: Fixture.vecPath)
        let bytes = try NativeVectorFormat.encode(vectors, precision: .float16, path: Fixture.vecPath)
        XCTAssertEqual(bytes.count, expected.count)
        XCTAssertTrue(bytes == expected, "first difference at byte \(bytes.indices.first { $0 < expected.count && bytes[$0] != expected[$0] } ?? -1)")
    }

    func testFloat32KeepsEveryWordAndValueOfAVecFile() throws {
        let source = try WordVectors.load(path: Fixture.vecPath)
        let bytes = try NativeVectorFormat.encode(source, precision: .float32, path: Fixture.vecPath)
        let converted = try WordVectors.load(path: try temporaryFile(bytes, extension: "kwv"))
        XCTAssertEqual(converted.format, .native)
        XCTAssertEqual(converted.rowCount, source.rowCount)
        XCTAssertEqual(converted.keyCount, source.keyCount)
        for row in 0 ..< source.rowCount {
            XCTAssertEqual(converted.keys(forRow: row), source.keys(forRow: row))
        }
        converted.withMatrix { stored in source.withMatrix { XCTAssertEqual(Array(stored), Array($0)) } }
        // A .kwv file converts to itself.
        let again = try NativeVectorFormat.encode(converted, precision: .float32, path: "converted.kwv")
        XCTAssertEqual(again, bytes)
    }

    func testFloat16RoundsEachValueToNearestEven() throws {
        let source = try WordVectors.load(path: Fixture.vecPath)
        let bytes = try NativeVectorFormat.encode(source, precision: .float16, path: Fixture.vecPath)
        let converted = try WordVectors.load(path: try temporaryFile(bytes, extension: "kwv"))
        converted.withMatrix { stored in
            source.withMatrix { original in
                XCTAssertEqual(stored.count, original.count)
                for index in 0 ..< original.count {
                    XCTAssertEqual(stored[index], Float(Float16(original[index])))
                }
            }
        }
    }

    /// A `.bin` model becomes its dictionary words with fastText's word vectors: the words of the `.vec`
    /// file fastText wrote for the same model, in the same order, and the vectors `.bin` gives them.
    func testBinConvertsToFastTextsWordVectors() throws {
        let model = try WordVectors.load(path: Fixture.binPath)
        let vec = try WordVectors.load(path: Fixture.vecPath)
        let bytes = try NativeVectorFormat.encode(model, precision: .float32, path: Fixture.binPath)
        let converted = try WordVectors.load(path: try temporaryFile(bytes, extension: "kwv"))
        XCTAssertEqual(converted.rowCount, vec.rowCount)
        XCTAssertEqual(converted.keyCount, vec.keyCount)
        for row in 0 ..< vec.rowCount {
            let word = try XCTUnwrap(vec.label(forRow: row))
            XCTAssertEqual(converted.keys(forRow: row), [word])
            XCTAssertEqual(converted.vector(for: word), model.vector(for: word), word)
            // fastText's .vec prints 5 significant digits of the same vector.
            let printed = try XCTUnwrap(vec.vector(for: word))
            XCTAssertLessThanOrEqual(maxAbsDifference(try XCTUnwrap(converted.vector(for: word)), printed), 1e-4, word)
        }
        let expected = try Fixture.expected().filter { converted.row(forKey: $0.word) != nil }
        XCTAssertGreaterThan(expected.count, 50)
        for (word, vector) in expected {
            XCTAssertLessThanOrEqual(maxAbsDifference(try XCTUnwrap(converted.vector(for: word)), vector), 1e-5, word)
        }
    }

    func testWordsKwvCannotHoldAreRefused() throws {
        let duplicate = try temporaryFile("2 2\nにんじん 1 2\nにんじん 3 4\n", extension: "vec")
        assertVectorError(.malformed, .file, path: duplicate) {
            _ = try NativeVectorFormat.encode(try WordVectors.load(path: duplicate), precision: .float16, path: duplicate)
        }
        // Canonically equivalent but different bytes: two keys, as the .kwv key table sees them.
        let forms = try temporaryFile("2 1\ncafe\u{301} 1\ncaf\u{E9} 2\n", extension: "vec")
        let bytes = try NativeVectorFormat.encode(try WordVectors.load(path: forms), precision: .float16, path: forms)
        XCTAssertEqual(try WordVectors.load(path: try temporaryFile(bytes, extension: "kwv")).keyCount, 2)
        let zero = try temporaryFile(Array("1 1\na".utf8) + [0] + Array("b 1\n".utf8), extension: "vec")
        assertVectorError(.malformed, .file, path: zero) {
            _ = try NativeVectorFormat.encode(try WordVectors.load(path: zero), precision: .float16, path: zero)
        }
    }

    func testValuesOutsideFloat16AreRefusedAndKeptInFloat32() throws {
        let large = try temporaryFile("2 2\na 1 2\nb 3 70000\n", extension: "vec")
        let vectors = try WordVectors.load(path: large)
        do {
            _ = try NativeVectorFormat.encode(vectors, precision: .float16, path: large)
            XCTFail("70000 does not fit in float16")
        } catch let error as VectorFileError {
            XCTAssertEqual(error.description, "\(large): value 2 of row 1 ('b') is 70000.0, outside float16's range (convert to float32)")
        }
        let bytes = try NativeVectorFormat.encode(vectors, precision: .float32, path: large)
        XCTAssertEqual(try WordVectors.load(path: try temporaryFile(bytes, extension: "kwv")).vector(for: "b"), [3, 70000])
        // 65504 is float16's largest value, and 65519 rounds to it.
        let edge = try temporaryFile("1 2\na 65504 -65519\n", extension: "vec")
        let half = try NativeVectorFormat.encode(try WordVectors.load(path: edge), precision: .float16, path: edge)
        XCTAssertEqual(try WordVectors.load(path: try temporaryFile(half, extension: "kwv")).vector(for: "a"), [65504, -65504])
    }
}
