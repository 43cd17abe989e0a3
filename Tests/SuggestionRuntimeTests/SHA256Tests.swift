import CDigest
import Foundation
@testable import ModelStorage
import Platform
import XCTest

/// The streaming SHA-256: known answers, any split of the input, and both compression paths.
final class SHA256Tests: XCTestCase {
    func testKnownAnswersAcrossBlockBoundaries() {
        // FIPS 180-4 examples and the two-block message of 56 bytes.
        XCTAssertEqual(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testSplitInputGivesTheSameDigest() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let whole = SHA256.hex(bytes)
        for split in [1, 63, 64, 65, 127, 4_999] {
            var hasher = SHA256.Hasher()
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + split)
                bytes[offset..<end].withUnsafeBytes { hasher.update($0) }
                offset = end
            }
            XCTAssertEqual(hasher.finish(), whole, "pieces of \(split)")
        }
    }

    func testExtensionsAndPortablePathsAgree() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(64 * 37)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var chosen: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var portable = chosen
        bytes.withUnsafeBufferPointer { buffer in
            cdigest_sha256_blocks(&chosen, buffer.baseAddress, 37)
            cdigest_sha256_blocks_portable(&portable, buffer.baseAddress, 37)
        }
        XCTAssertEqual(chosen, portable, "extensions in use: \(cdigest_sha256_uses_extensions())")
    }
}
