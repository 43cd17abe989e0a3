// A set of code points, built in ascending order, written as the inside of a regular-expression character class.

/// Code points added in ascending order, merged into ranges and written as the members of a character class of
/// a pattern inside a JSON string: BMP code points as `\\uXXXX` escapes, astral ones as the characters
/// themselves (what both ECMA-262 with the `u` flag and Python's `re` read).
struct CharacterRanges {
    private(set) var text = ""
    private var first: Unicode.Scalar?
    private var last: Unicode.Scalar?

    /// Adds `scalar` when `member` is true; the scalars passed must ascend. A non-member closes the open range.
    mutating func add(_ scalar: Unicode.Scalar, _ member: Bool) {
        guard member else { return close() }
        if first == nil { first = scalar }
        last = scalar
    }

    /// The class members, with any open range closed.
    var members: String {
        var copy = self
        copy.close()
        return copy.text
    }

    private mutating func close() {
        guard let start = first, let end = last else { return }
        append(start)
        if end != start {
            if end.value != start.value + 1 { text += "-" }
            append(end)
        }
        first = nil
        last = nil
    }

    private mutating func append(_ scalar: Unicode.Scalar) {
        text += scalar.value <= 0xFFFF ? "\\\\u" + hex4(scalar.value) : String(Character(scalar))
    }

    private func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
