// Keywords as sent (a request, an import): trimmed of white space and folded (NFKC), then held to `KeywordRules`.

extension KeywordRules {
    /// Unicode code points of white space a keyword may be sent with around it, beyond `maxCodePoints`.
    public static let maxPaddingCodePoints = 100

    /// A keyword as sent, in `canonical(_:)` form and checked: at most `maxCodePoints + maxPadding` code points as
    /// sent and `maxCodePoints` once trimmed, then `problem(with:)` on the canonical text (which holds the folded
    /// form to `maxCodePoints` too). The error names `field`.
    public static func cleaned(_ raw: String, field: String, maxCodePoints: Int = maxCodePoints,
                               maxPadding: Int = maxPaddingCodePoints) throws(KeywordProblem) -> String {
        let most = maxCodePoints + maxPadding
        guard fitsCodePoints(raw, most) else {
            throw KeywordProblem(field: field, problem: "is longer than \(most) characters (Unicode code points) with the white space around it")
        }
        guard fitsCodePoints(trimWhiteSpace(raw), maxCodePoints) else {
            throw KeywordProblem(field: field, problem: "is longer than \(maxCodePoints) characters (Unicode code points)")
        }
        let keyword = canonical(raw)
        if let problem = problem(with: keyword, maxCodePoints: maxCodePoints) {
            throw KeywordProblem(field: field, problem: problem)
        }
        return keyword
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
    /// The change with every keyword folded and checked by `KeywordRules.cleaned`; the error names the first
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
