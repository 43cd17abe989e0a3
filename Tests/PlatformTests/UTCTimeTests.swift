import Platform
import XCTest

final class UTCTimeTests: XCTestCase {
    func testTimesRoundTripAndOtherFormsAreRefused() {
        XCTAssertEqual(UTCTime.format(milliseconds: 0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(UTCTime.format(milliseconds: 1_790_000_000_123), "2026-09-21T14:13:20.123Z")
        XCTAssertEqual(UTCTime.format(milliseconds: -1), "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(UTCTime.format(milliseconds: -1000), "1969-12-31T23:59:59.000Z")
        for time: Int64 in [0, 951_782_400_000, 1_790_000_000_123, 4_102_444_799_999, -1, -999, -1000, -1001] {
            XCTAssertEqual(UTCTime.parse(UTCTime.format(milliseconds: time)), time)
        }
        XCTAssertEqual(UTCTime.parse("2026-09-21T14:13:20Z"), 1_790_000_000_000)
        XCTAssertEqual(UTCTime.parse("2026-09-21T14:13:20.1Z"), 1_790_000_000_100)
        XCTAssertEqual(UTCTime.parse("2000-02-29T00:00:00Z"), 951_782_400_000)
        XCTAssertEqual(UTCTime.parse("0000-02-29T00:00:00Z").map { UTCTime.format(milliseconds: $0) }, "0000-02-29T00:00:00.000Z")
        XCTAssertEqual(UTCTime.parse("0000-01-01T00:00:00Z"), -62_167_219_200_000)
        for bad in ["", "2026-09-21", "2026-09-21T14:13:20+09:00", "2026-02-30T00:00:00Z", "2026-09-21T24:00:00Z",
                    "2026-09-21T14:13:20.1234Z", "2026-09-21 14:13:20Z", "1900-02-29T00:00:00Z", "２０２６-09-21T14:13:20Z"] {
            XCTAssertNil(UTCTime.parse(bad), bad)
        }
    }

    func testNowIsInTheStoredForm() {
        let now = UTCTime.now()
        XCTAssertTrue(UTCTime.isStoredForm(now), now)
        XCTAssertGreaterThan(UTCTime.parse(now) ?? 0, 1_700_000_000_000)
    }

    /// The stored form is the parser's, narrowed to three fraction digits and the years 0001-9999.
    func testStoredForm() {
        for good in ["2026-01-31T12:00:00.000Z", "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "2024-02-29T00:00:00.000Z"] {
            XCTAssertTrue(UTCTime.isStoredForm(good), good)
        }
        for bad in ["2026-01-31T12:00:00Z", "2026-01-31T12:00:00.0Z", "2026-01-31T12:00:00.00Z", "0000-01-01T00:00:00.000Z",
                    "2023-02-29T00:00:00.000Z", "2026-01-31T12:00:60.000Z", "2026-01-31T12:00:00.000+", "2026-01-31 12:00:00.000Z",
                    "2026-01-31T12:00:00,000Z", "x026-01-31T12:00:00.000Z"] {
            XCTAssertFalse(UTCTime.isStoredForm(bad), bad)
        }
    }
}

final class ControlCharacterTests: XCTestCase {
    /// The rule is Unicode's general category Cc, exactly.
    func testControlCharactersAreCategoryCc() {
        for value in UInt32(0)...0x2FF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            XCTAssertEqual(scalar.isControlCharacter, scalar.properties.generalCategory == .control, "U+\(value)")
        }
        XCTAssertTrue("にんじん\u{85}".containsControlCharacter)
        XCTAssertTrue("a\tb".containsControlCharacter)
        XCTAssertFalse("にんじん 3本\u{200B}".containsControlCharacter)
        XCTAssertFalse("".containsControlCharacter)
    }
}

final class BinarySearchTests: XCTestCase {
    /// Against a linear scan, for every length up to 40 and every split point.
    func testPartitioningIndexAndLowerBoundMatchALinearScan() {
        for length in 0...40 {
            let values = (0..<length).map { $0 / 3 }
            for split in -1...(length / 3 + 1) {
                XCTAssertEqual(values.partitioningIndex { $0 >= split }, values.firstIndex { $0 >= split } ?? length)
                XCTAssertEqual(values.lowerBound(of: split), values.firstIndex { $0 >= split } ?? length)
            }
        }
        let slice = [5, 6, 7, 8, 9][2...]
        XCTAssertEqual(slice.lowerBound(of: 8), 3)
        XCTAssertEqual(slice.lowerBound(of: 100), slice.endIndex)
    }
}
