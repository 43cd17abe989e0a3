/// ASCII hexadecimal digits, as JSON's `\u` escapes and HTTP's chunk sizes spell them.
public enum HexDigit {
    /// The digits 0-9, a-f, by value.
    public static let lower: [UInt8] = Array("0123456789abcdef".utf8)

    /// The value of one hex digit (`0-9`, `A-F`, `a-f`), or nil for any other byte.
    @inlinable
    public static func value(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: return Int(byte - 0x30)
        case 0x41...0x46: return Int(byte - 0x41 + 10)
        case 0x61...0x66: return Int(byte - 0x61 + 10)
        default: return nil
        }
    }
}
