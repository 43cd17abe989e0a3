// What makes a product name acceptable: one rule set for the API, the CLI and feedback records.

/// The rules every product name follows before it is ranked or stored, wherever it comes from.
public enum NameRules {
    /// The longest name after trimming, in Unicode code points (what JSON Schema's `maxLength` counts), so at most
    /// four times as many UTF-8 bytes. Grapheme clusters would let combining marks through unbounded.
    public static let maxCodePoints = 1000
    /// Unicode code points of white space a name may be sent with around it, beyond `maxCodePoints`.
    public static let maxPaddingCodePoints = 100

    /// What is wrong with a name.
    public enum Problem: Error, Equatable {
        /// Longer than `limit` code points as sent, white space included.
        case tooLongAsSent(limit: Int)
        /// Nothing but white space.
        case empty
        /// Holds a NUL character.
        case containsNUL
        /// Longer than `limit` code points after trimming.
        case tooLong(limit: Int)

        /// The problem as a sentence about `field`.
        public func message(field: String) -> String {
            switch self {
            case .tooLongAsSent(let limit):
                return "'\(field)' is longer than \(limit) characters (Unicode code points) with the white space around it"
            case .empty: return "'\(field)' is empty"
            case .containsNUL: return "'\(field)' contains a NUL character"
            case .tooLong(let limit): return "'\(field)' is longer than \(limit) characters (Unicode code points)"
            }
        }
    }

    /// `raw` trimmed of white space and checked: 1…`maxCodePoints` code points after trimming, at most
    /// `maxCodePoints + maxPadding` as sent, no NUL.
    public static func checked(_ raw: String, maxCodePoints: Int = maxCodePoints,
                               maxPadding: Int = maxPaddingCodePoints) throws(Problem) -> String {
        let most = maxCodePoints + maxPadding
        guard KeywordRules.fitsCodePoints(raw, most) else { throw .tooLongAsSent(limit: most) }
        let trimmed = trimmed(raw)
        guard !trimmed.isEmpty else { throw .empty }
        guard !trimmed.utf8.contains(0) else { throw .containsNUL }
        guard KeywordRules.fitsCodePoints(trimmed, maxCodePoints) else { throw .tooLong(limit: maxCodePoints) }
        return trimmed
    }

    /// Without leading and trailing white space (Unicode White_Space, which includes U+3000 and newlines): the
    /// same trimming as keywords (`KeywordRules.trimWhiteSpace`).
    public static func trimmed(_ text: String) -> String {
        KeywordRules.trimWhiteSpace(text)
    }
}
