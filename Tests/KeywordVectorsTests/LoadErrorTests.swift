import XCTest
@testable import KeywordVectors

/// One test per kind of bad input: each error names the file and the line or byte offset.
final class LoadErrorTests: VectorTestCase {
    func testMissingFile() {
        let path = "/nonexistent/vectors.vec"
        assertVectorError(.missingFile, .file, path: path) { _ = try WordVectors.load(path: path) }
    }

    func testEmptyFile() throws {
        for ext in ["vec", "bin", "kwv"] {
            let path = try temporaryFile([], extension: ext)
            assertVectorError(.emptyFile, .file, path: path) { _ = try WordVectors.load(path: path) }
        }
    }

    func testTruncatedTextFile() throws {
        let path = try temporaryFile("3 2\na 1 2\nb 3 4\n", extension: "vec")
        assertVectorError(.truncated, .line(3), path: path) { _ = try WordVectors.load(path: path) }
    }

    func testTruncatedBinaryFileInsideTheInputMatrix() throws {
        let bytes = try Fixture.binBytes()
        let path = try temporaryFile(Array(bytes[0 ..< bytes.count / 2]), extension: "bin")
        assertVectorError(.truncated, nil, path: path) { _ = try WordVectors.load(path: path) }
        do { _ = try WordVectors.load(path: path) } catch let error as VectorFileError {
            XCTAssertTrue(error.description.contains("at byte offset"), error.description)
            XCTAssertTrue(error.description.contains("input matrix"), error.description)
        }
    }

    func testTruncatedBinaryFileInsideTheOutputMatrix() throws {
        let bytes = try Fixture.binBytes()
        let path = try temporaryFile(Array(bytes.dropLast(4)), extension: "bin")
        assertVectorError(.truncated, nil, path: path) { _ = try WordVectors.load(path: path) }
    }

    func testTruncatedBinaryFileInsideTheDictionary() throws {
        let bytes = try Fixture.binBytes()
        let path = try temporaryFile(Array(bytes[0 ..< 200]), extension: "bin")
        assertVectorError(.truncated, nil, path: path) { _ = try WordVectors.load(path: path) }
    }

    func testTruncatedNativeFile() throws {
        let bytes = NativeVectorFormat.encode(dimension: 2, rows: [1, 2, 3, 4], keys: ["a", "b"], keyRows: [0, 1], precision: .float16)
        let path = try temporaryFile(Array(bytes.dropLast(3)), extension: "kwv")
        assertVectorError(.truncated, .byteOffset(bytes.count - 3), path: path) { _ = try WordVectors.load(path: path) }
        let header = try temporaryFile(Array(bytes[0 ..< 20]), extension: "kwv")
        assertVectorError(.truncated, .byteOffset(20), path: header) { _ = try WordVectors.load(path: header) }
    }

    func testWrongMagic() throws {
        var bytes = NativeVectorFormat.encode(dimension: 1, rows: [1], keys: ["a"], keyRows: [0], precision: .float32)
        bytes[0] = UInt8(ascii: "X")
        let path = try temporaryFile(bytes, extension: "kwv")
        assertVectorError(.badMagic, .byteOffset(0), path: path) { _ = try WordVectors.load(path: path) }
        var binary = try Fixture.binBytes()
        binary[0] ^= 0xFF
        let binPath = try temporaryFile(binary, extension: "bin")
        assertVectorError(.badMagic, .byteOffset(0), path: binPath) { _ = try WordVectors.load(path: binPath) }
    }

    func testWrongVersion() throws {
        var binary = try Fixture.binBytes()
        binary[4] = 13
        let binPath = try temporaryFile(binary, extension: "bin")
        assertVectorError(.unsupportedVersion, .byteOffset(4), path: binPath) { _ = try WordVectors.load(path: binPath) }
        var native = NativeVectorFormat.encode(dimension: 1, rows: [1], keys: ["a"], keyRows: [0], precision: .float32)
        native[8] = 2
        let path = try temporaryFile(native, extension: "kwv")
        assertVectorError(.unsupportedVersion, .byteOffset(8), path: path) { _ = try WordVectors.load(path: path) }
    }

    func testQuantizedModelIsRefused() throws {
        var binary = try Fixture.binBytes()
        let flag = try quantizationFlagOffset(binary)
        XCTAssertEqual(binary[flag], 0)
        binary[flag] = 1
        let path = try temporaryFile(binary, extension: "ftz")
        assertVectorError(.unsupportedFormat, .byteOffset(flag), path: path) { _ = try WordVectors.load(path: path) }
    }

    func testDimensionMismatch() throws {
        let text = try temporaryFile("2 3\na 1 2 3\nb 1 2\n", extension: "vec")
        assertVectorError(.dimensionMismatch, .line(3), path: text) { _ = try WordVectors.load(path: text) }
        // .bin whose args.dim (offset 8) disagrees with the input matrix's columns.
        var binary = try Fixture.binBytes()
        binary[8] = 17
        let path = try temporaryFile(binary, extension: "bin")
        assertVectorError(.dimensionMismatch, .byteOffset(try quantizationFlagOffset(binary) + 1 + 8), path: path) {
            _ = try WordVectors.load(path: path)
        }
    }

    func testNonNumericValue() throws {
        let path = try temporaryFile("2 3\na 1 2 3\nb 1 x2 3\n", extension: "vec")
        assertVectorError(.nonNumeric, .line(3), path: path) { _ = try WordVectors.load(path: path) }
    }

    func testInvalidUTF8() throws {
        var bytes = Array("2 1\nok 1\n".utf8)
        bytes += [0x61, 0xC3, 0x28] + Array(" 2\n".utf8)
        let path = try temporaryFile(bytes, extension: "vec")
        assertVectorError(.invalidUTF8, .line(3), path: path) { _ = try WordVectors.load(path: path) }
        var native = NativeVectorFormat.encode(dimension: 1, rows: [1], keys: ["ab"], keyRows: [0], precision: .float32)
        native[native.count - 2] = 0xFF
        let nativePath = try temporaryFile(native, extension: "kwv")
        assertVectorError(.invalidUTF8, .byteOffset(native.count - 2), path: nativePath) { _ = try WordVectors.load(path: nativePath) }
    }

    func testDuplicateNativeKey() throws {
        let native = NativeVectorFormat.encode(dimension: 1, rows: [1, 2], keys: ["a", "a"], keyRows: [0, 1], precision: .float32)
        let path = try temporaryFile(native, extension: "kwv")
        assertVectorError(.malformed, .byteOffset(native.count - 2), path: path) { _ = try WordVectors.load(path: path) }
    }

    /// The byte offset of the input-quantization flag in the fixture: after the header (8), args
    /// (56), dictionary counts (28) and entries (word, 0, i64 count, i8 type each).
    private func quantizationFlagOffset(_ bytes: [UInt8]) throws -> Int {
        let size = bytes.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 64, as: Int32.self)) }
        var offset = 64 + 28
        for _ in 0 ..< size {
            offset = try XCTUnwrap(bytes[offset...].firstIndex(of: 0)) + 1 + 8 + 1
        }
        return offset
    }
}
