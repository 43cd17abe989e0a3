/// A JSON number as written: its value as a Double and its literal, so an integer is read exactly even beyond
/// 2^53 (a Double holds every integer only below that) and a Float is rounded once, from the digits.
public struct JSONNumber: Equatable, Sendable, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    CustomStringConvertible {
    /// The nearest Double.
    public let value: Double
    /// The literal as it appeared in the document (RFC 8259 §6 grammar, at most 64 bytes).
    public let literal: String

    /// A parsed literal; `value` must be its nearest Double.
    init(value: Double, literal: String) {
        self.value = value
        self.literal = literal
    }

    public init(integerLiteral value: Int64) {
        self.init(value: Double(value), literal: String(value))
    }

    public init(floatLiteral value: Double) {
        self.init(value: value, literal: value.description)
    }

    public var description: String { literal }

    /// True when the literal is an integer: an optional minus and digits, no fraction, no exponent.
    public var isIntegerLiteral: Bool {
        literal.utf8.allSatisfy { $0 == UInt8(ascii: "-") || ($0 >= 0x30 && $0 <= 0x39) }
    }

    /// The number as an integer of type `T`, or nil when it is not one or does not fit. An integer literal is read
    /// exactly from its digits; another integral number (`5.0`, `1e3`) is accepted below 2^53, where the Double is
    /// exact, so nothing out of range can round into it.
    public func integer<T: FixedWidthInteger>(as type: T.Type = T.self) -> T? {
        if isIntegerLiteral { return T(literal) ?? (literal == "-0" ? 0 : nil) }
        guard value == value.rounded(), abs(value) < 9_007_199_254_740_992 else { return nil }
        return T(exactly: value)
    }

    /// The number as a Float, rounded once from the literal; nil when it is beyond Float's range.
    public var float: Float? {
        guard let result = Float(literal), result.isFinite else { return nil }
        return result
    }

    /// Two numbers are equal when their Doubles are, and, when both are integer literals, their integers are
    /// (two integers above 2^53 can share a Double).
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        guard lhs.value == rhs.value else { return false }
        guard lhs.isIntegerLiteral, rhs.isIntegerLiteral else { return true }
        return lhs.integer(as: Int64.self) == rhs.integer(as: Int64.self) && lhs.integer(as: UInt64.self) == rhs.integer(as: UInt64.self)
    }
}
