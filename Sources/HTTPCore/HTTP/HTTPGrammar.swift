// The character classes and field rules of HTTP/1.1 (RFC 9110 §5.6, RFC 9112 §5) that the parser checks.

extension RequestParser {
    /// Why a header or trailer line (without its line end) is not a valid field line, or nil when it is.
    static func fieldLineError(_ line: ArraySlice<UInt8>) -> HTTPParseError? {
        // RFC 9112 §5.2: obs-fold is rejected with 400.
        if let first = line.first, first == 0x20 || first == 0x09 { return .bad("obsolete line folding is not accepted") }
        // RFC 9112 §5.1: field-line = field-name ":" OWS field-value OWS; no whitespace before the colon.
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return .bad("a header line has no colon") }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else { return .bad("invalid header field name") }
        // RFC 9110 §5.5: field-value = *field-content of VCHAR, SP, HTAB and obs-text; no NUL or other controls.
        guard line[(colon + 1)...].allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else {
            return .bad("control character in a header value")
        }
        return nil
    }

    /// RFC 9110 §7.2 and RFC 3986 §3.2.2: Host = uri-host [ ":" port ], with a non-empty host.
    static func isValidHost(_ value: String) -> Bool {
        var bytes = Substring(value).utf8[...]
        guard let first = bytes.first else { return false }
        if first == UInt8(ascii: "[") {
            // IP-literal: hex digits, colons, dots (and the letters of IPvFuture / zone-free forms).
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let inside = bytes[bytes.index(after: bytes.startIndex)..<close]
            guard !inside.isEmpty, inside.allSatisfy({ isUnreservedOrSubDelim($0) || $0 == UInt8(ascii: ":") }) else {
                return false
            }
            bytes = bytes[bytes.index(after: close)...]
        } else {
            let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            let name = bytes[bytes.startIndex..<end]
            guard !name.isEmpty, name.allSatisfy({ isUnreservedOrSubDelim($0) || $0 == UInt8(ascii: "%") }) else {
                return false
            }
            bytes = bytes[end...]
        }
        guard let colon = bytes.first else { return true }
        guard colon == UInt8(ascii: ":") else { return false }
        let port = bytes.dropFirst()
        return port.count <= 5 && port.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// RFC 3986 §2.2–2.3: unreserved / sub-delims.
    static func isUnreservedOrSubDelim(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"),
             UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
             UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    // MARK: Character classes

    /// RFC 9110 §5.6.2: tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    static func digit(_ byte: UInt8) -> Int? {
        (byte >= 0x30 && byte <= 0x39) ? Int(byte - 0x30) : nil
    }
}
