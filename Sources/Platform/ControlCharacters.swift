// The one rule for control characters (Unicode general category Cc: U+0000-U+001F and U+007F-U+009F), which
// every text a person or a file gives us is checked against.

extension Unicode.Scalar {
    /// Whether this is a control character (general category Cc).
    @inlinable
    public var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}

extension StringProtocol {
    /// Whether any code point of the text is a control character (general category Cc).
    @inlinable
    public var containsControlCharacter: Bool { unicodeScalars.contains(where: \.isControlCharacter) }
}
