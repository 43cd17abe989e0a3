import Platform
import XCTest

/// FNV-1a's published test vectors: model files and keyword-list versions depend on these exact values.
final class FNV1aTests: XCTestCase {
    func testSixtyFourBitVectors() {
        XCTAssertEqual(FNV1a.hash64([UInt8]()), 0xCBF2_9CE4_8422_2325)
        XCTAssertEqual(FNV1a.hash64(Array("a".utf8)), 0xAF63_DC4C_8601_EC8C)
        XCTAssertEqual(FNV1a.hash64(Array("foobar".utf8)), 0x8594_4171_F739_67E8)
    }

    func testStepsOfWiderUnitsXorTheWholeUnit() {
        // One UTF-16 unit U+3042 (あ) is one step, not two byte steps.
        let wide = FNV1a.step(FNV1a.basis64, 0x3042)
        XCTAssertEqual(wide, (0xCBF2_9CE4_8422_2325 ^ 0x3042) &* 0x0000_0100_0000_01B3)
        XCTAssertNotEqual(wide, FNV1a.hash64([0x30, 0x42]))
    }

    func testThirtyTwoBitVectors() {
        func hash32(_ text: String) -> UInt32 { text.utf8.reduce(FNV1a.basis32) { FNV1a.step32($0, UInt32($1)) } }
        XCTAssertEqual(hash32(""), 0x811C_9DC5)
        XCTAssertEqual(hash32("a"), 0xE40C_292C)
        XCTAssertEqual(hash32("foobar"), 0xBF9C_F968)
    }

    func testTheMonotonicClockNeverGoesBack() {
        let first = MonotonicClock.nanoseconds()
        let second = MonotonicClock.nanoseconds()
        XCTAssertGreaterThanOrEqual(second, first)
        XCTAssertGreaterThan(first, 0)
    }
}
