// A small JSON writer for responses and log lines: appends UTF-8 bytes directly, no intermediate objects.

/// Writes one JSON document. Commas are inserted automatically.
///
/// ```
/// var json = JSONWriter()
/// json.object { json.field("status") { json.string("ok") } }
/// ```
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// True when the next value in the current container needs a comma before it.
    private var needsComma = false

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":` and then whatever `value` writes.
    public mutating func field(_ name: String, _ value: (inout JSONWriter) -> Void) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
        value(&self)
        needsComma = true
    }

    public mutating func field(_ name: String, string: String) { field(name) { $0.string(string) } }
    public mutating func field(_ name: String, int: Int) { field(name) { $0.int(int) } }
    public mutating func field(_ name: String, number: Double) { field(name) { $0.number(number) } }
    public mutating func field(_ name: String, bool: Bool) { field(name) { $0.bool(bool) } }

    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
    }

    public mutating func int(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A number in shortest round-trip form; NaN and infinities (not JSON) become `null`.
    public mutating func number(_ value: Double) {
        separate()
        guard value.isFinite else {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            bytes.append(contentsOf: String(Int(value)).utf8)
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }

    /// A Float printed with its own shortest form (0.87, not 0.8700000047683716).
    public mutating func number(_ value: Float) {
        separate()
        guard value.isFinite else {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        bytes.append(contentsOf: value.description.utf8)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// RFC 8259 §7: quote, escape `"` and `\`, and escape every control character.
    private mutating func appendQuoted(_ text: String) {
        Self.appendQuoted(text, to: &bytes)
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        appendQuoted(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal, the one way the package escapes JSON: `"` and `\` escaped, line
    /// feed, carriage return and tab as `\n`, `\r`, `\t`, and every other control character (C0, DEL and C1,
    /// which terminals read as escapes) as `\u00XX`; everything else is written as it is.
    public static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var lead: UInt8 = 0  // a pending 0xC2, the lead byte of U+0080…U+00BF
        for byte in text.utf8 {
            if lead != 0 {
                lead = 0
                if byte < 0xA0 {
                    appendEscape(byte, to: &bytes)
                    continue
                }
                bytes.append(0xC2)
            }
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F: appendEscape(byte, to: &bytes)
            case 0xC2: lead = byte
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `\u00XX` for a code point below U+0100.
    private static func appendEscape(_ value: UInt8, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, HexDigit.lower[Int(value >> 4)], HexDigit.lower[Int(value & 0xF)]])
    }
}
