// The one rule that turns annotators' decisions on a product into its keywords: the rule training from feedback
// and the decision memory share, so a name the memory answers is labelled as the next model would learn it.
import StoreInterface

/// The decisions on one product, and the keywords they resolve to.
///
/// - Each annotator counts once: their latest accept or correction is their vote, and a keyword whose latest
///   decision by them is a reject counts against that keyword. Decisions without an annotator count as one
///   anonymous annotator.
/// - A keyword's score is the annotators voting for it minus those rejecting it. The keyword with the highest
///   positive score comes first (majority); a tie goes to the keyword voted for most recently (latest). Other
///   keywords with a positive score follow, highest score first.
/// - Keywords whose score is zero or less are left out: a reject says what is wrong, not what is right.
///
/// Decisions must be added in id order.
public struct VoteTally: Sendable, Equatable {
    struct Vote: Sendable, Equatable {
        var keyword: String
        var id: Int64
    }
    /// Each annotator's current vote.
    private var votes: [String: Vote] = [:]
    /// Each annotator's standing rejects: keyword → the id of the reject.
    private var rejects: [String: [String: Int64]] = [:]
    /// The id of the latest decision added.
    public private(set) var latest: Int64 = 0

    public init() {}

    /// One keyword of the resolution.
    public struct Keyword: Sendable, Equatable {
        public var keyword: String
        /// Annotators voting for it minus annotators rejecting it (always positive here).
        public var score: Int
        /// The annotators voting for it, in name order ("" is the anonymous one).
        public var supporters: [String]
        /// Annotators voting for another keyword, plus those rejecting this one.
        public var dissenters: Int
    }

    /// What the decisions resolve to.
    public struct Resolution: Sendable, Equatable {
        /// Best first; empty when no keyword has a positive score.
        public var keywords: [Keyword]
        /// Whether annotators voted for more than one keyword.
        public var disagreement: Bool
    }

    /// Adds one decision (after every decision with a smaller id).
    public mutating func add(id: Int64, annotator: String?, keyword: String, action: FeedbackAction) {
        let annotator = annotator ?? ""
        latest = id
        switch action {
        case .accept, .correct:
            votes[annotator] = Vote(keyword: keyword, id: id)
            rejects[annotator]?[keyword] = nil
        case .reject:
            rejects[annotator, default: [:]][keyword] = id
            if votes[annotator]?.keyword == keyword { votes[annotator] = nil }
        }
    }

    /// Adds a stored decision.
    public mutating func add(_ record: FeedbackRecord) {
        add(id: record.id, annotator: record.item.annotator, keyword: record.item.keyword, action: record.item.action)
    }

    /// The keywords the decisions so far resolve to.
    /// - Complexity: O(annotators · log annotators).
    public func resolved() -> Resolution {
        var supporters: [String: [String]] = [:], recent: [String: Int64] = [:]
        for (annotator, vote) in votes {
            supporters[vote.keyword, default: []].append(annotator)
            recent[vote.keyword] = max(recent[vote.keyword] ?? 0, vote.id)
        }
        var rejecting: [String: Int] = [:]
        for rejected in rejects.values {
            for keyword in rejected.keys where supporters[keyword] != nil { rejecting[keyword, default: 0] += 1 }
        }
        let voters = votes.count
        let keywords = supporters.compactMap { keyword, names -> Keyword? in
            let against = rejecting[keyword] ?? 0
            let score = names.count - against
            guard score > 0 else { return nil }
            return Keyword(keyword: keyword, score: score, supporters: names.sorted(),
                           dissenters: voters - names.count + against)
        }.sorted { a, b in (a.score, recent[a.keyword] ?? 0) > (b.score, recent[b.keyword] ?? 0) }
        return Resolution(keywords: keywords, disagreement: supporters.count > 1)
    }
}
