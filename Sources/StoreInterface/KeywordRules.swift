// What makes a keyword acceptable: one rule set for the API and for every file the service reads keywords from.
import Foundation
import Platform

/// The rules every served keyword follows, wherever it comes from (a request, feedback, or an overlay file edited
/// by hand): a keyword sent goes through `cleaned(_:field:)` (length as sent, then `canonical(_:)`, then
/// `problem(with:)`); a file that stores keywords holds them in canonical form already, checked by `problem(with:)`.
public enum KeywordRules {
    /// The longest keyword, in Unicode code points.
    public static let maxCodePoints = 100

    /// The most keywords a served list holds (the model's list with the overlay applied).
    public static let maxKeywords = 50_000

    /// Refuses a list of `count` keywords that would replace one of `previous` (nil when there is none yet) when
    /// it holds more than `limit` and more than before: a list already past the limit may still shrink, or swap
    /// one keyword for another.
    public static func checkListSize(_ count: Int, previous: Int?, limit: Int = maxKeywords) throws(KeywordStoreError) {
        guard count > limit, count > previous ?? 0 else { return }
        throw .listFull(count: count, limit: limit)
    }

    /// The one trimming and folding rule: Unicode White_Space trimmed from both ends, then NFKC, so keywords that
    /// differ only in compatibility forms are one keyword (ｷﾞｮｳｻﾞ皮 is ギョウザ皮, ＡＢＣ is ABC). Nothing else is
    /// stripped: invisible characters stay, for `problem(with:)` to refuse.
    public static func canonical(_ raw: String) -> String {
        let folded = trimWhiteSpace(raw).precomposedStringWithCompatibilityMapping
        return trimWhiteSpace(folded)
    }

    /// `text` without the Unicode White_Space code points at either end.
    public static func trimWhiteSpace(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return text }
        return String(scalars[first...last])
    }

    /// Why `keyword` (already in `canonical` form) cannot be served, or nil when it can. A keyword must be seen to
    /// be chosen: one with no visible character, or with a character that changes how others display (bidi
    /// controls, joiners, tags, every other format character), or one no font can show (unassigned, noncharacter,
    /// private use), is refused rather than cleaned, so what is stored is exactly what was sent.
    public static func problem(with keyword: String, maxCodePoints: Int = maxCodePoints) -> String? {
        if keyword.isEmpty { return "is empty" }
        if !fitsCodePoints(keyword, maxCodePoints) {
            return "is longer than \(maxCodePoints) characters (Unicode code points)"
        }
        var visible = false
        for scalar in keyword.unicodeScalars {
            if scalar.isASCII {
                if scalar.isControlCharacter { return "contains a control character" }
                if scalar.value != 0x20 { visible = true }
                continue
            }
            if let problem = problem(with: scalar) { return problem }
            if shows(scalar) { visible = true }
        }
        return visible ? nil : "has no visible character (only white space, combining marks or invisible characters)"
    }

    /// Whether a code point draws something by itself: a letter, number, punctuation or symbol. White space,
    /// combining marks and everything `problem(with:)` refuses do not.
    private static func shows(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber,
             .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation,
             .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            return true
        default:
            return false
        }
    }

    /// Whether a non-ASCII code point can never appear in a keyword.
    public static func refuses(_ scalar: Unicode.Scalar) -> Bool {
        !scalar.isASCII && problem(with: scalar) != nil
    }

    /// What one code point, as sent, contributes to a keyword, once it is folded to NFKC as `canonical(_:)` folds
    /// it: the per-code-point facts the API's schema states about keywords.
    public enum CodePointRole: Sendable, Equatable {
        /// Never allowed inside a keyword: a control, or a code point that is refused, or folds to one that is.
        /// (White space that is also a control, such as TAB, may still pad a keyword, since padding is trimmed.)
        case refused
        /// Allowed, but it shows nothing alone, even once folded: white space, combining marks, and spacing
        /// accents such as ¨ or ゛ that fold to a space and a combining mark. A keyword needs one `visible`.
        case invisible
        /// Allowed, and once folded it draws something.
        case visible
    }

    /// The role of `scalar` in a keyword (see `CodePointRole`).
    public static func role(of scalar: Unicode.Scalar) -> CodePointRole {
        if scalar.isASCII {
            if scalar.isControlCharacter { return .refused }
            return scalar.value == 0x20 ? .invisible : .visible
        }
        if refuses(scalar) { return .refused }
        var role = CodePointRole.invisible
        for folded in String(scalar).precomposedStringWithCompatibilityMapping.unicodeScalars {
            if folded.isControlCharacter || refuses(folded) { return .refused }
            if shows(folded) { role = .visible }
        }
        return role
    }

    /// Why one code point cannot appear in a keyword, or nil.
    private static func problem(with scalar: Unicode.Scalar) -> String? {
        // Formatted only for a refusal: this runs for every code point of every keyword of a change.
        var code: String { String(format: "U+%04X", scalar.value) }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control:
            return "contains a control character"
        case .format:
            return "contains the invisible format character \(code) (bidi controls, joiners, tags and other format characters are refused)"
        case .privateUse:
            return "contains the private-use character \(code)"
        case .unassigned:
            return properties.isNoncharacterCodePoint
                ? "contains the noncharacter \(code)" : "contains the unassigned code point \(code)"
        case .lineSeparator, .paragraphSeparator:
            return "contains the line or paragraph separator \(code)"
        default:
            break
        }
        if properties.isDefaultIgnorableCodePoint || drawsNothing.contains(scalar.value) {
            return "contains the invisible character \(code)"
        }
        return nil
    }

    /// Code points that draw nothing yet are neither white space, format characters nor default-ignorable, so
    /// Unicode's properties alone let them pass as symbols: U+2800 BRAILLE PATTERN BLANK (a symbol with no dots,
    /// used as a blank that survives trimming).
    private static let drawsNothing: Set<UInt32> = [0x2800]

    /// Whether `text` has at most `limit` Unicode code points. A code point is one to four UTF-8 bytes, so only
    /// long byte strings are counted, and counting stops at the limit: a huge input costs no more than the limit.
    public static func fitsCodePoints(_ text: String, _ limit: Int) -> Bool {
        let bytes = text.utf8.count
        if bytes <= limit { return true }
        if bytes > 4 * limit { return false }
        var count = 0
        for _ in text.unicodeScalars {
            count += 1
            if count > limit { return false }
        }
        return true
    }
}

