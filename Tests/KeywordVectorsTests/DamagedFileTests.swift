import XCTest
@testable import KeywordVectors

/// Damaged files of every format either load or throw `VectorFileError`; none may crash or
/// allocate what the file cannot back.
final class DamagedFileTests: VectorTestCase {
    /// A small deterministic generator (SplitMix64), so failures reproduce.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func testAbsurdDeclaredSizesAreRefusedWithoutAllocating() throws {
        let truncated = try temporaryFile("1000000000000 1\na 1\n", extension: "vec")
        assertVectorError(.truncated, .line(2), path: truncated) { _ = try WordVectors.load(path: truncated) }
        var binary = try Fixture.binBytes()
        // dictionary.size at offset 64: claim 2^31 - 1 entries.
        binary.replaceSubrange(64 ..< 68, with: [0xFF, 0xFF, 0xFF, 0x7F])
        binary.replaceSubrange(68 ..< 72, with: [0xFF, 0xFF, 0xFF, 0x7F])
        binary.replaceSubrange(72 ..< 76, with: [0, 0, 0, 0])
        let path = try temporaryFile(binary, extension: "bin")
        assertVectorError(.truncated, .byteOffset(64), path: path) { _ = try WordVectors.load(path: path) }
    }

    func testTruncationAtManyOffsetsAlwaysThrows() throws {
        let binary = try Fixture.binBytes()
        let native = NativeVectorFormat.encode(dimension: 4, rows: (0 ..< 12).map(Float.init), keys: ["人参", "にんじん", "x", "🥕"],
                                               keyRows: [0, 0, 1, 2], precision: .float16)
        var generator = SplitMix(state: 1)
        for (bytes, ext) in [(binary, "bin"), (native, "kwv")] {
            var cuts = Set((0 ..< 16).map { _ in Int.random(in: 1 ..< bytes.count, using: &generator) })
            cuts.formUnion([1, 4, 8, 63, 64, bytes.count - 1])
            for cut in cuts.sorted() {
                let path = try temporaryFile(Array(bytes[0 ..< cut]), extension: ext)
                XCTAssertThrowsError(try WordVectors.load(path: path), "\(ext) cut at \(cut)") { error in
                    XCTAssertTrue(error is VectorFileError, "\(error)")
                }
            }
        }
    }

    func testRandomByteDamageNeverCrashes() throws {
        let binary = try Fixture.binBytes()
        let native = NativeVectorFormat.encode(dimension: 4, rows: (0 ..< 12).map(Float.init), keys: ["人参", "にんじん", "x", "🥕"],
                                               keyRows: [0, 0, 1, 2], precision: .float32)
        let text = Array("3 2\n人参 1 2\nx 0.5 -1e-3\n🥕 3 4\n".utf8)
        var generator = SplitMix(state: 2)
        var loaded = 0, refused = 0
        for (original, ext, headerBytes) in [(binary, "bin", 400), (native, "kwv", native.count), (text, "vec", text.count)] {
            for _ in 0 ..< 25 {
                var bytes = original
                for _ in 0 ..< 3 {
                    bytes[Int.random(in: 0 ..< min(headerBytes, bytes.count), using: &generator)] = UInt8.random(in: 0 ... 255, using: &generator)
                }
                let path = try temporaryFile(bytes, extension: ext)
                do {
                    let vectors = try WordVectors.load(path: path)
                    _ = vectors.vector(for: "人参")
                    _ = vectors.vector(for: "未知語")
                    loaded += 1
                } catch is VectorFileError {
                    refused += 1
                }
            }
        }
        XCTAssertEqual(loaded + refused, 75)
        XCTAssertGreaterThan(refused, 0)
    }
}
