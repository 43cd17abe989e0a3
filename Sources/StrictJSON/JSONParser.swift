// A strict RFC 8259 JSON parser for request bodies: rejects invalid UTF-8, control characters in strings,
// lone surrogates, trailing garbage, nesting deeper than a fixed limit and, when the caller sets one, more values
// than its schema can hold.

/// A parsed JSON value. An object never has a repeated key: the parser rejects them.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }
}

/// Where and why a document is not valid JSON.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    /// True when the failure is invalid UTF-8 (reported with its own error code).
    public var isEncoding: Bool = false
    /// The key, when the failure is an object naming it twice (RFC 8259 §4: names SHOULD be unique; a reader
    /// that kept one of them would silently drop the other).
    public var duplicateKey: String?
    /// The caller's value limit, when the document holds more values than it (see `JSONParser.parse`).
    public var valueLimit: Int?
    public var description: String { "\(reason) at byte \(offset)" }
}

/// Parses JSON from bytes.
///
/// - Complexity: O(n) for n bytes; nesting is limited to `maxDepth` so the recursion is bounded.
public struct JSONParser {
    public static let maxDepth = 64
    private let bytes: [UInt8]
    private let maxValues: Int
    private var index = 0
    private var values = 0

    private init(_ bytes: [UInt8], maxValues: Int) {
        self.bytes = bytes
        self.maxValues = maxValues
    }

    /// The document's one value. `maxValues` bounds the values it may hold (every object, array, string, number
    /// and literal, the document itself included): the tree costs tens of bytes per value whatever their text,
    /// so a caller that knows its schema bounds the tree with it, and parsing stops at the first value beyond.
    public static func parse(_ bytes: [UInt8], maxValues: Int = .max) throws(JSONParseError) -> JSONValue {
        if let bad = firstInvalidUTF8(bytes) {
            throw JSONParseError(offset: bad, reason: "invalid UTF-8", isEncoding: true)
        }
        var parser = JSONParser(bytes, maxValues: maxValues)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected data after the JSON value") }
        return value
    }

    /// The offset of the first byte that breaks UTF-8 (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF).
    public static func firstInvalidUTF8<C: Collection>(_ bytes: C) -> Int? where C.Element == UInt8 {
        var state = 0, needed = 0, lower: UInt8 = 0x80, upper: UInt8 = 0xBF
        var offset = 0, start = 0
        for byte in bytes {
            defer { offset += 1 }
            if needed == 0 {
                start = offset
                switch byte {
                case 0x00...0x7F: continue
                case 0xC2...0xDF: needed = 1
                case 0xE0: needed = 2; lower = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2
                case 0xED: needed = 2; upper = 0x9F
                case 0xF0: needed = 3; lower = 0x90
                case 0xF1...0xF3: needed = 3
                case 0xF4: needed = 3; upper = 0x8F
                default: return offset
                }
                state = 0
                continue
            }
            guard byte >= lower && byte <= upper else { return start }
            lower = 0x80; upper = 0xBF
            state += 1
            if state == needed { needed = 0 }
        }
        return needed == 0 ? nil : start
    }

    private func error(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth)") }
        values += 1
        guard values <= maxValues else {
            var failure = error("more than \(maxValues) values")
            failure.valueLimit = maxValues
            throw failure
        }
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character")
        }
    }

    private mutating func literal(_ word: String) throws(JSONParseError) {
        for expected in word.utf8 {
            guard index < bytes.count, bytes[index] == expected else { throw error("invalid literal") }
            index += 1
        }
    }

    private mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var fields: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            let keyOffset = index
            let parsed = try value(depth: depth + 1)
            guard fields.updateValue(parsed, forKey: key) == nil else {
                var failure = JSONParseError(offset: keyOffset, reason: "the key '\(key.prefix(64))' appears twice")
                failure.duplicateKey = key
                throw failure
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(fields) }
            throw error("expected ',' or '}'")
        }
    }

    private mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw error("expected ',' or ']'")
        }
    }

    private mutating func string() throws(JSONParseError) -> String {
        index += 1
        var scalars: [UInt8] = []
        var runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                // Without escapes (every escape appends at least one byte) the text is one run: no second copy.
                if scalars.isEmpty {
                    let text = String(decoding: bytes[runStart..<index], as: UTF8.self)
                    index += 1
                    return text
                }
                scalars.append(contentsOf: bytes[runStart..<index])
                index += 1
                return String(decoding: scalars, as: UTF8.self)
            }
            if byte < 0x20 { throw error("control character in a string") }
            if byte == UInt8(ascii: "\\") {
                scalars.append(contentsOf: bytes[runStart..<index])
                index += 1
                guard index < bytes.count else { break }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): scalars.append(0x22)
                case UInt8(ascii: "\\"): scalars.append(0x5C)
                case UInt8(ascii: "/"): scalars.append(0x2F)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if code >= 0xD800 && code <= 0xDBFF {
                        // RFC 8259 §7: a character outside the BMP is a surrogate pair.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("lone high surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard low >= 0xDC00 && low <= 0xDFFF else { throw error("invalid low surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if code >= 0xDC00 && code <= 0xDFFF {
                        throw error("lone low surrogate")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid escape") }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw error("invalid escape")
                }
                runStart = index
                continue
            }
            index += 1
        }
        throw error("unterminated string")
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = HexDigit.value(bytes[index]) else { throw error("invalid \\u escape") }
            value = value * 16 + UInt32(digit)
            index += 1
        }
        return value
    }

    /// RFC 8259 §6: number = [ minus ] int [ frac ] [ exp ]
    private mutating func number() throws(JSONParseError) -> JSONNumber {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if bytes[index] >= UInt8(ascii: "1") && bytes[index] <= UInt8(ascii: "9") {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        } else {
            throw error("invalid number")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let literal = String(decoding: bytes[start..<index], as: UTF8.self)
        guard index - start <= 64, let value = Double(literal) else {
            throw JSONParseError(offset: start, reason: "number too long")
        }
        return JSONNumber(value: value, literal: literal)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
