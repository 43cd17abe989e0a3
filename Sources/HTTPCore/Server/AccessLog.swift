// One JSON line per request, buffered per event loop and written to the log descriptor once per loop turn.
#if canImport(Glibc)
import Glibc
#endif
import Sockets
import StrictJSON

/// Collects access-log lines for one event loop. Not thread-safe: each loop owns one.
struct AccessLog {
    let fd: Int32
    let mode: AccessLogMode
    private var buffer: [UInt8] = []
    private var cachedSecond = -1
    private var cachedPrefix: [UInt8] = []

    init(fd: Int32, mode: AccessLogMode) {
        self.fd = fd
        self.mode = mode
        buffer.reserveCapacity(mode == .off ? 0 : 8192)
    }

    /// Whether a response with `status` gets a line.
    func records(status: Int) -> Bool {
        switch mode {
        case .on: return true
        case .off: return false
        case .errors: return status >= 400
        }
    }

    /// Appends `{"time":…,"method":…,"path":…,"status":…,"duration_ms":…,"request_id":…}`.
    /// Client-supplied strings go through the JSON writer, which escapes quotes and control characters.
    mutating func record(method: String, path: String, status: Int, seconds: Double, requestID: String) {
        guard records(status: status) else { return }
        let now = Syscall.wallTime()
        var json = JSONWriter(capacity: 160 + path.utf8.count)
        let time = timestamp(now.sec) + [UInt8(ascii: ".")] + threeDigits(now.nsec / 1_000_000) + [UInt8(ascii: "Z")]
        json.object { json in
            json.field("time", string: String(decoding: time, as: UTF8.self))
            json.field("method", string: method.utf8.count > 32 ? String(method.utf8.prefix(32)) ?? "" : method)
            json.field("path", string: path.utf8.count > 2048 ? String(path.utf8.prefix(2048)) ?? "" : path)
            json.field("status", int: status)
            json.field("duration_ms", number: (seconds * 1_000_000).rounded() / 1000)
            json.field("request_id", string: requestID)
        }
        buffer.append(contentsOf: json.bytes)
        buffer.append(0x0A)
        if buffer.count > 60_000 { flush() }
    }

    /// Writes buffered lines (whole lines only) in one call.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        Syscall.writeAll(fd, buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func timestamp(_ seconds: Int) -> [UInt8] {
        if seconds != cachedSecond {
            cachedSecond = seconds
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
            cachedPrefix = Array("\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))".utf8)
        }
        return cachedPrefix
    }

    private func threeDigits(_ value: Int) -> [UInt8] {
        [UInt8(0x30 + value / 100 % 10), UInt8(0x30 + value / 10 % 10), UInt8(0x30 + value % 10)]
    }
}
