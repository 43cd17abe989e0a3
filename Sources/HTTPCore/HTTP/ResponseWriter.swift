// Serialises responses into the exact bytes sent, so each response leaves in one write.
import Sockets
#if canImport(Glibc)
import Glibc
#endif

/// Turns a response into bytes. Adds `Date`, `Content-Length` (except on 1xx and 204, where RFC 9110 §8.6
/// forbids it) and `Connection: close` when the connection ends after this response.
///
/// Not thread-safe: each event loop owns one (it caches the formatted date per second).
struct ResponseWriter {
    private var cachedSecond = -1
    private var cachedDate: [UInt8] = []

    init() {}

    /// Appends the serialised response to `output`.
    /// - Parameter omitBody: true for HEAD: the headers describe the body that GET would send (RFC 9110 §9.3.2).
    /// - Complexity: O(header bytes + body bytes).
    /// - Parameter keepAliveHTTP10: the request was HTTP/1.0 with `Connection: keep-alive` and the connection stays
    ///   open: HTTP/1.0 closes by default, so the answer must say `Connection: keep-alive` (RFC 9112 §9.3).
    /// - Parameter chunked: for a streamed response (`response.stream`), send `Transfer-Encoding: chunked`; false
    ///   for an HTTP/1.0 client, whose streamed body ends when the connection closes (`close` must then be true).
    ///   The pieces themselves are framed by `appendPiece` and `appendLastChunk`.
    mutating func write(_ response: HTTPResponse, omitBody: Bool, close: Bool, keepAliveHTTP10: Bool = false,
                        chunked: Bool = true, into output: inout [UInt8]) {
        output.reserveCapacity(output.count + 160 + response.body.count)
        output.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(response.status.code, to: &output)
        output.append(0x20)
        output.append(contentsOf: response.status.reason.utf8)
        output.append(contentsOf: "\r\nDate: ".utf8)
        output.append(contentsOf: date())
        let code = response.status.code
        if response.stream != nil {
            if chunked && code >= 200 && code != 204 { output.append(contentsOf: "\r\nTransfer-Encoding: chunked".utf8) }
        } else if code >= 200 && code != 204 {
            output.append(contentsOf: "\r\nContent-Length: ".utf8)
            appendDecimal(response.body.count, to: &output)
        }
        if close {
            output.append(contentsOf: "\r\nConnection: close".utf8)
        } else if keepAliveHTTP10 {
            output.append(contentsOf: "\r\nConnection: keep-alive".utf8)
        }
        for field in response.headers {
            output.append(contentsOf: "\r\n".utf8)
            appendSafe(field.name, to: &output)
            output.append(contentsOf: ": ".utf8)
            appendSafe(field.value, to: &output)
        }
        output.append(contentsOf: "\r\n\r\n".utf8)
        if !omitBody && code >= 200 && code != 204 && response.stream == nil {
            output.append(contentsOf: response.body)
        }
    }

    /// One piece of a streamed body: a chunk (RFC 9112 §7.1) `size-in-hex CRLF data CRLF`, or the bytes as they
    /// are when the body ends with the connection. An empty piece writes nothing (an empty chunk would end it).
    static func appendPiece(_ bytes: [UInt8], chunked: Bool, to output: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        guard chunked else {
            output.append(contentsOf: bytes)
            return
        }
        output.append(contentsOf: String(bytes.count, radix: 16).utf8)
        output.append(contentsOf: "\r\n".utf8)
        output.append(contentsOf: bytes)
        output.append(contentsOf: "\r\n".utf8)
    }

    /// The last chunk and the empty trailer section that end a chunked body.
    static func appendLastChunk(to output: inout [UInt8]) {
        output.append(contentsOf: "0\r\n\r\n".utf8)
    }

    /// Header text without CR or LF, so no value can split the response (header injection).
    private func appendSafe(_ text: String, to output: inout [UInt8]) {
        for byte in text.utf8 {
            output.append(byte == 0x0D || byte == 0x0A ? 0x20 : byte)
        }
    }

    private func appendDecimal(_ value: Int, to output: inout [UInt8]) {
        if value < 10 {
            output.append(UInt8(0x30 + value))
            return
        }
        var digits: [UInt8] = []
        var rest = value
        while rest > 0 {
            digits.append(UInt8(0x30 + rest % 10))
            rest /= 10
        }
        output.append(contentsOf: digits.reversed())
    }

    /// The IMF-fixdate of now (RFC 9110 §5.6.7), recomputed once per second.
    mutating func date() -> [UInt8] {
        let now = Syscall.wallSeconds()
        if now != cachedSecond {
            cachedSecond = now
            cachedDate = Array(Self.httpDate(now).utf8)
        }
        return cachedDate
    }

    static func httpDate(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
