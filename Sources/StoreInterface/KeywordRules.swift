// What makes a keyword acceptable: one rule set for the API and for every file the service reads keywords from.
import Foundation

/// The rules every served keyword follows, wherever it comes from (a request, or an overlay file edited by hand).
public enum KeywordRules {
    /// The longest keyword, in Unicode code points.
    public static let maxCodePoints = 100
    /// Unicode code points of white space a keyword may be sent with around it, beyond `maxCodePoints`.
    public static let maxPaddingCodePoints = 100

    /// The most keywords a served list holds (the model's list with the overlay applied).
    public static let maxKeywords = 50_000

    /// Refuses a list of `count` keywords that would replace one of `previous` (nil when there is none yet) when
    /// it holds more than `limit` and more than before: a list already past the limit may still shrink, or swap
    /// one keyword for another.
    public static func checkListSize(_ count: Int, previous: Int?, limit: Int = maxKeywords) throws(KeywordStoreError) {
        guard count > limit, count > previous ?? 0 else { return }
        throw .listFull(count: count, limit: limit)
    }

    /// `keyword` without the white space around it (which a sent keyword may have and a file's may not).
    public static func trimmed(_ keyword: String) -> String {
        keyword.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A keyword as sent, trimmed and checked: at most `maxCodePoints + maxPadding` code points as sent, then
    /// `problem(with:)` on the trimmed text. The error names `field`.
    public static func cleaned(_ raw: String, field: String, maxCodePoints: Int = maxCodePoints,
                               maxPadding: Int = maxPaddingCodePoints) throws(KeywordProblem) -> String {
        let most = maxCodePoints + maxPadding
        guard fitsCodePoints(raw, most) else {
            throw KeywordProblem(field: field, problem: "is longer than \(most) characters (Unicode code points) with the white space around it")
        }
        let keyword = trimmed(raw)
        if let problem = problem(with: keyword, maxCodePoints: maxCodePoints) {
            throw KeywordProblem(field: field, problem: problem)
        }
        return keyword
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

/// A keyword that breaks `KeywordRules`: which one (`add[3]`) and what is wrong with it.
public struct KeywordProblem: Error, Equatable, CustomStringConvertible {
    public var field: String
    public var problem: String
    public init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }
    public var description: String { "'\(field)' \(problem)" }
}

extension KeywordChange {
    /// The change with every keyword trimmed and checked by `KeywordRules.cleaned`; the error names the first
    /// bad one (`add[3]`, `remove[0]`).
    public func checked(maxCodePoints: Int = KeywordRules.maxCodePoints,
                        maxPadding: Int = KeywordRules.maxPaddingCodePoints) throws(KeywordProblem) -> KeywordChange {
        var copy = self
        func clean(_ list: [String], _ field: String) throws(KeywordProblem) -> [String] {
            var result: [String] = []
            result.reserveCapacity(list.count)
            for (index, keyword) in list.enumerated() {
                result.append(try KeywordRules.cleaned(keyword, field: "\(field)[\(index)]", maxCodePoints: maxCodePoints,
                                                       maxPadding: maxPadding))
            }
            return result
        }
        copy.add = try clean(add, "add")
        copy.remove = try clean(remove, "remove")
        return copy
    }
}
