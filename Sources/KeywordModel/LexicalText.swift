// The text side of exact-match evidence: a kana-folded scalar string plus the token rows.

/// A name or keyword prepared for matching: `folded` is the normalised text with katakana folded to hiragana,
/// ASCII lower-cased and spaces removed; `rows` are its tokens' vector rows (−1 without a vector).
public struct LexicalText: Sendable, Equatable {
    public var folded: [UInt32]
    public var rows: RowSequence

    public init(folded: [UInt32], rows: RowSequence) {
        self.folded = folded
        self.rows = rows
    }

    public init(text: String, rows: RowSequence) {
        self.init(folded: LexicalText.fold(text), rows: rows)
    }

    /// Folds text for matching: katakana → hiragana, full-width ASCII → ASCII, upper → lower case; drops spaces,
    /// middle dots and other separators so that 「ラ・フランス」 matches 「らふらんす」.
    /// - Complexity: O(length).
    public static func fold(_ text: String) -> [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            var v = scalar.value
            if v >= 0xFF01 && v <= 0xFF5E { v -= 0xFEE0 }               // full-width ASCII
            if v >= 0x30A1 && v <= 0x30F6 { v -= 0x60 }                  // katakana → hiragana
            if v >= 0x41 && v <= 0x5A { v += 0x20 }                      // ASCII upper → lower
            switch v {
            case 0x20, 0x09, 0x0A, 0x0D, 0x3000, 0x30FB, 0xFF65, 0xB7, 0x2F, 0x5F, 0x2D, 0x2010, 0x2011, 0x2012,
                 0x2013, 0x2014, 0x2015, 0x2212, 0x3001, 0x3002, 0x2C, 0x2E:
                continue
            default:
                result.append(v)
            }
        }
        return result
    }
}
