// Annotator decisions → labelled names for training and gating, with one rule for disagreements.
import StoreInterface

/// The labelled names a run of feedback records resolves to.
///
/// The rule, applied per product name (the name exactly as posted):
/// - Each annotator counts once: their latest accept or correction is their vote, and a keyword whose latest
///   decision by them is a reject counts against that keyword. Decisions without an annotator count as one
///   anonymous annotator.
/// - A keyword's score is the annotators voting for it minus those rejecting it. The keyword with the highest
///   positive score is the name's label (majority); a tie goes to the keyword voted for most recently (latest).
///   Other keywords with a positive score follow it as acceptable keywords, highest score first.
/// - A name whose keywords all score zero or less is left out: rejects say what is wrong, not what is right.
///   So a reject never becomes a training example of its own; it only cancels votes for the keyword it names.
public struct FeedbackLabels: Sendable, Equatable {
    /// Labelled names in the order their latest decision arrived; `source` is "feedback".
    public var names: [LabelledName]
    public var firstID: Int64?
    public var lastID: Int64?
    public var records: Int
    /// Names whose annotators voted for more than one keyword.
    public var disagreements: Int

    public init(_ records: [FeedbackRecord]) {
        struct Vote { var keyword: String; var id: Int64 }
        struct Name {
            var votes: [String: Vote] = [:]
            var rejects: [String: [String: Int64]] = [:]
            var latest: Int64 = 0
        }
        var byName: [String: Name] = [:]
        for record in records.sorted(by: { $0.id < $1.id }) {
            let item = record.item, annotator = item.annotator ?? ""
            var entry = byName[item.name] ?? Name()
            entry.latest = record.id
            switch item.action {
            case .accept, .correct:
                entry.votes[annotator] = Vote(keyword: item.keyword, id: record.id)
                entry.rejects[annotator]?[item.keyword] = nil
            case .reject:
                entry.rejects[annotator, default: [:]][item.keyword] = record.id
                if entry.votes[annotator]?.keyword == item.keyword { entry.votes[annotator] = nil }
            }
            byName[item.name] = entry
        }
        var labelled: [(latest: Int64, name: LabelledName)] = []
        var disagreements = 0
        for (name, entry) in byName {
            var score: [String: Int] = [:], recent: [String: Int64] = [:]
            for vote in entry.votes.values {
                score[vote.keyword, default: 0] += 1
                recent[vote.keyword] = max(recent[vote.keyword] ?? 0, vote.id)
            }
            if score.count > 1 { disagreements += 1 }
            for rejected in entry.rejects.values {
                for keyword in rejected.keys where score[keyword] != nil { score[keyword, default: 0] -= 1 }
            }
            let ranked = score.filter { $0.value > 0 }.map(\.key).sorted { a, b in
                (score[a] ?? 0, recent[a] ?? 0) > (score[b] ?? 0, recent[b] ?? 0)
            }
            guard !ranked.isEmpty else { continue }
            labelled.append((entry.latest, LabelledName(name: name, keywords: ranked, source: "feedback")))
        }
        names = labelled.sorted { $0.latest < $1.latest }.map(\.name)
        firstID = records.map(\.id).min()
        lastID = records.map(\.id).max()
        self.records = records.count
        self.disagreements = disagreements
    }

    /// Every record of `store` with an id above `after` (and at most `through`), oldest first, read a page at a time,
    /// less the `withdrawn` ones (written by annotation-queue decisions that were undone: they teach nothing).
    public static func records(from store: any KeywordStore, after: Int64 = 0, through: Int64? = nil,
                               withdrawn: Set<Int64> = []) throws(KeywordStoreError) -> [FeedbackRecord] {
        var result: [FeedbackRecord] = []
        var cursor = after
        while true {
            let page = try store.feedback(after: cursor, limit: 1_000)
            for record in page where through.map({ record.id <= $0 }) ?? true && !withdrawn.contains(record.id) {
                result.append(record)
            }
            guard let last = page.last, page.count == 1_000, through.map({ last.id < $0 }) ?? true else { return result }
            cursor = last.id
        }
    }

    /// Keywords of the labels that are not in `list`, in first-seen order.
    public func newKeywords(beyond list: [String]) -> [String] {
        var known = Set(list)
        var result: [String] = []
        for name in names {
            for keyword in name.keywords where known.insert(keyword).inserted { result.append(keyword) }
        }
        return result
    }
}
