// Times as text: UTC ISO 8601 with milliseconds (`2026-01-31T12:00:00.000Z`), the form every stored time, export
// and API answer takes, written and read by one formatter and one parser.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public enum UTCTime {
    /// Milliseconds since the Unix epoch on the wall clock.
    public static func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec / 1_000_000)
    }

    /// The current time as `2026-01-31T12:00:00.000Z`.
    public static func now() -> String { format(milliseconds: nowMilliseconds()) }

    /// `milliseconds` since the Unix epoch as `2026-01-31T12:00:00.000Z`.
    public static func format(milliseconds: Int64) -> String {
        let wholeSeconds = milliseconds / 1000 - (milliseconds % 1000 < 0 ? 1 : 0)
        var seconds = time_t(wholeSeconds)
        let millis = Int32(milliseconds - wholeSeconds * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(millis, 3))Z"
    }

    /// Milliseconds since the Unix epoch of `YYYY-MM-DDTHH:MM:SSZ`, or with `.s` to `.sss` fractions; nil for
    /// anything else (other zones, impossible dates).
    public static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        let separators: [(Int, Unicode.Scalar)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        guard separators.allSatisfy({ bytes[$0.0] == UInt8(ascii: $0.1) }) else { return nil }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19) else { return nil }
        var millis = 0
        if bytes.count > 20 {
            let digits = bytes.count - 21
            guard bytes[19] == UInt8(ascii: "."), (1...3).contains(digits), let fraction = number(20..<(20 + digits)) else { return nil }
            millis = fraction * [100, 10, 1][digits - 1]
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        guard (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...lengths[month - 1]).contains(day) else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Int64(((days * 24 + hour) * 60 + minute) * 60 + second) * 1000 + Int64(millis)
    }

    /// Whether `text` is a time exactly as stores write it: `YYYY-MM-DDTHH:MM:SS.mmmZ` (three fraction digits), a
    /// real calendar date in the years 0001-9999.
    public static func isStoredForm(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 24 && bytes[19] == UInt8(ascii: ".") && !bytes.starts(with: Array("0000".utf8))
            && parse(text) != nil
    }
}
