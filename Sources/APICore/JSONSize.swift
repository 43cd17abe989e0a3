// How large a JSON body a schema allows: the arithmetic behind every route's byte and value caps.

/// The largest JSON text of a schema, in bytes, and the most values it holds: every string at its `maxLength`
/// with every code point written in the longest form JSON allows (a `\uXXXX` escape; an astral code point as a
/// surrogate pair, 12 bytes; the white space around a name or keyword is BMP, 6 bytes), every array at its
/// `maxItems`, object keys escaped too, a number in up to `numberBytes` bytes, and up to `whitespaceBytes` of
/// insignificant white space between any two tokens (JSON itself bounds neither, so these two are the
/// allowance: pretty-printers use far less).
package enum JSONSize {
    package static let whitespaceBytes = 32
    package static let numberBytes = 32
    /// Values a body may hold beyond twice the most a schema-valid body holds (see `values(_:)`).
    package static let valueSlack = 16

    /// A JSON string of `codePoints` code points, each a surrogate-pair escape, plus `padding` escaped BMP ones.
    package static func string(_ codePoints: Int, padding: Int = 0) -> Int { 2 + 12 * codePoints + 6 * padding }

    /// An object with these members (key, largest value), every key escaped, white space in every gap.
    package static func object(_ members: [(String, Int)]) -> Int {
        let content = members.reduce(0) { $0 + string($1.0.count) + 1 + $1.1 } + max(0, members.count - 1)
        return 2 + content + whitespaceBytes * (4 * members.count + 2)
    }

    /// An array of `count` items of at most `item` bytes, white space in every gap.
    package static func array(_ count: Int, _ item: Int) -> Int {
        2 + count * item + max(0, count - 1) + whitespaceBytes * (2 * count + 2)
    }

    /// The value cap for a schema whose largest body holds `values` values: twice that, plus `valueSlack`, so a
    /// body a little over a limit still gets that limit's own error code.
    package static func values(_ values: Int) -> Int { 2 * values + valueSlack }
}
