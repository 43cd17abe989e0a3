// What makes a keyword acceptable: one rule set for the API and for every file the service reads keywords from.

/// The rules every served keyword follows, wherever it comes from (a request, or an overlay file edited by hand).
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

    /// Why `keyword` (already trimmed of white space) cannot be served, or nil when it can.
    public static func problem(with keyword: String, maxCodePoints: Int = maxCodePoints) -> String? {
        if keyword.isEmpty { return "is empty" }
        if !fitsCodePoints(keyword, maxCodePoints) {
            return "is longer than \(maxCodePoints) characters (Unicode code points)"
        }
        if keyword.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "contains a control character"
        }
        return nil
    }

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

