// The id and client id of a stored feedback line, read in one pass over its bytes without decoding the record.
#if canImport(Glibc)
import Glibc
#endif

extension FeedbackLine {
    /// The id and client id (nil when the line has none) of a line as `encode` writes it, from one pass over its
    /// bytes that follows JSON strings and nesting, so only the object's own keys count. nil for any line it cannot
    /// read so simply: white space after a key, a key or client id with escapes, controls or invalid UTF-8, a repeated
    /// key, a key that is not a string (the caller then decodes the line, and that decides). For every line that
    /// `decode` accepts, a non-nil answer is what `decode` gives.
    /// - Complexity: O(line length).
    package static func quickKeys(_ line: ArraySlice<UInt8>) -> (id: Int64, clientID: String?)? {
        // An ArraySlice is contiguous: the fallback never runs.
        line.withContiguousStorageIfAvailable { quickKeys(in: $0) } ?? Array(line).withUnsafeBufferPointer { quickKeys(in: $0) }
    }

    private static func quickKeys(in bytes: UnsafeBufferPointer<UInt8>) -> (id: Int64, clientID: String?)? {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        var id: Int64?, clientID: String?, clientSeen = false
        var depth = 0, expectKey = false, i = 0
        let n = bytes.count
        while i < n {
            switch bytes[i] {
            case UInt8(ascii: "{"):
                depth += 1
                expectKey = depth == 1
                i += 1
            case UInt8(ascii: "["):
                depth += 1
                expectKey = false
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                expectKey = false
                i += 1
            case UInt8(ascii: ","):
                expectKey = depth == 1
                i += 1
            case quote:
                // The string's bytes are i + 1 ..< end: up to the first quote not escaped by a backslash.
                guard let end = closingQuote(bytes, after: i) else { return nil }
                if expectKey {
                    expectKey = false
                    guard end + 1 < n, bytes[end + 1] == UInt8(ascii: ":"),
                          !contains(bytes, backslash, i + 1, end) else { return nil }
                    let key = UnsafeBufferPointer(rebasing: bytes[(i + 1)..<end])
                    if equal(key, Self.idKey) {
                        guard id == nil, let (value, next) = digits(bytes, from: end + 2) else { return nil }
                        id = value
                        i = next
                        continue
                    }
                    if equal(key, Self.clientIDKey) {
                        guard !clientSeen, let (value, next) = plainString(bytes, from: end + 2) else { return nil }
                        clientSeen = true
                        clientID = value
                        i = next
                        continue
                    }
                }
                i = end + 1
            default:
                i += 1
            }
        }
        guard let id, depth == 0 else { return nil }
        return (id, clientID)
    }

    private static let idKey = Array("id".utf8), clientIDKey = Array("client_id".utf8)

    /// The index of the quote that ends the string whose opening quote is at `start`; nil when it does not end.
    private static func closingQuote(_ bytes: UnsafeBufferPointer<UInt8>, after start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var from = start + 1
        while from < bytes.count {
            guard let found = memchr(base + from, 0x22, bytes.count - from) else { return nil }
            let quote = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
            // Escaped when an odd number of backslashes stands right before it.
            var slashes = 0
            while quote - slashes - 1 > start, bytes[quote - slashes - 1] == UInt8(ascii: "\\") { slashes += 1 }
            if slashes % 2 == 0 { return quote }
            from = quote + 1
        }
        return nil
    }

    private static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ byte: UInt8, _ from: Int, _ to: Int) -> Bool {
        guard let base = bytes.baseAddress, from < to else { return false }
        return memchr(base + from, Int32(byte), to - from) != nil
    }

    private static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: [UInt8]) -> Bool {
        guard a.count == b.count, let base = a.baseAddress else { return a.count == b.count }
        return b.withUnsafeBufferPointer { other in other.baseAddress.map { memcmp(base, $0, a.count) == 0 } ?? false }
    }

    /// A non-negative integer of at most 18 digits at `start`, followed by `,` or `}`; and where it ends.
    private static func digits(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (Int64, Int)? {
        var value: Int64 = 0, position = start
        while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39, position - start < 18 {
            value = value * 10 + Int64(bytes[position] - 0x30)
            position += 1
        }
        guard position > start, position < bytes.count,
              bytes[position] == UInt8(ascii: ",") || bytes[position] == UInt8(ascii: "}") else { return nil }
        return (value, position)
    }

    /// A JSON string at `start` with no escapes and no control characters, in valid UTF-8; and where it ends.
    private static func plainString(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (String, Int)? {
        guard start < bytes.count, bytes[start] == UInt8(ascii: "\"") else { return nil }
        var end = start + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            if bytes[end] == UInt8(ascii: "\\") || bytes[end] < 0x20 { return nil }
            end += 1
        }
        guard end < bytes.count, let text = String(validating: bytes[(start + 1)..<end], as: UTF8.self) else { return nil }
        return (text, end + 1)
    }
}
