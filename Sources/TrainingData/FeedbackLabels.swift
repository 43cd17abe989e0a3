// Annotator decisions → labelled names for training and gating, with one rule for disagreements.
import DecisionMemory
import StoreInterface

/// The labelled names a run of feedback records resolves to, per product name (the name exactly as posted), by
/// `VoteTally`'s rule: each annotator's latest decision, then the majority, ties to the latest. A name whose
/// keywords all score zero or less is left out, so a reject never becomes a training example of its own; it only
/// cancels votes for the keyword it names.
public struct FeedbackLabels: Sendable, Equatable {
    /// Labelled names in the order their latest decision arrived; `source` is "feedback".
    public var names: [LabelledName]
    /// For each of `names`, the annotators voting for each of its keywords, in the keywords' order ("" is the
    /// anonymous annotator): what `FeedbackInfluence` bounds.
    public var supporters: [[[String]]]
    public var firstID: Int64?
    public var lastID: Int64?
    public var records: Int
    /// Names whose annotators voted for more than one keyword.
    public var disagreements: Int

    public init(_ records: [FeedbackRecord]) {
        var byName: [String: VoteTally] = [:]
        for record in records.sorted(by: { $0.id < $1.id }) {
            byName[record.item.name, default: VoteTally()].add(record)
        }
        var labelled: [(latest: Int64, name: LabelledName, supporters: [[String]])] = []
        var disagreements = 0
        for (name, tally) in byName {
            let resolution = tally.resolved()
            if resolution.disagreement { disagreements += 1 }
            guard !resolution.keywords.isEmpty else { continue }
            labelled.append((tally.latest, LabelledName(name: name, keywords: resolution.keywords.map(\.keyword), source: "feedback"),
                             resolution.keywords.map(\.supporters)))
        }
        labelled.sort { $0.latest < $1.latest }
        names = labelled.map(\.name)
        supporters = labelled.map(\.supporters)
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
}
