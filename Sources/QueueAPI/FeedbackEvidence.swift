// Evidence from decisions posted to POST /v1/feedback that name what was shown: a client's accept or correction
// of the model's first suggestion says whether the model was right, as a queue label does. Derived from the
// store's feedback records, so it survives restarts and every replica derives the same.
import Locking
import StoreInterface
import SuggestionRuntime
import TeamQueue

/// The auto-accept evidence in the store's feedback records for one model version, read incrementally.
///
/// A record counts when it names the serving version as its `model`, lists what was `shown`, was not written by
/// a queue label (those give their evidence with the label), and the model's own first suggestion for the name
/// is still `shown[0]` (so it was the model's, not the memory's, and the list has not moved it). Then:
/// - an accept or a correction of `shown[0]` is a right first suggestion, a reject of it a wrong one;
/// - a correction to another keyword is a wrong first suggestion;
/// - an accept of another keyword says nothing of the first, and counts for nothing.
///
/// One annotator's decisions on one product count once, as in `VoteTally`: their latest record about the name key
/// (two listings of one product share it) replaces the earlier ones, so repeating a post does not add evidence.
/// Records without an annotator are one anonymous annotator. The confidence is the model's own for `shown[0]`,
/// recomputed when the record is read.
public final class FeedbackEvidence: Sendable {
    private struct Progress: Sendable {
        var model = ""
        var lastRecordID: Int64 = 0
        /// Name key + NUL + annotator → the latest evidence, in the order first seen.
        var latest: [String: Int] = [:]
        var evidence: [QueueEvidence] = []
    }

    private let progress = Locked(Progress())
    /// Records read per page.
    static let pageRecords = 1_000

    public init() {}

    /// The evidence read so far for `model` (empty when the last catch-up was for another version).
    public func evidence(model: String) -> [QueueEvidence] {
        progress.withLock { $0.model == model ? $0.evidence : [] }
    }

    /// Reads the records stored since the last call, judging them with `engine`'s model (a new version starts
    /// from the first record: a version's evidence is its own). Returns how many records were read.
    @discardableResult
    public func catchUp(store: any KeywordStore, engine: any SuggestionEngine,
                        category: (String) -> String?) throws(KeywordStoreError) -> Int {
        let model = engine.modelVersion
        var state = progress.withLock { current in current.model == model ? current : Progress(model: model) }
        var read = 0
        while true {
            let page = try store.feedback(after: state.lastRecordID, limit: Self.pageRecords)
            for record in page {
                guard let evidence = Self.evidence(record, engine: engine, category: category) else { continue }
                let key = engine.nameKey(record.item.name) + "\u{0}" + (record.item.annotator ?? "")
                if let index = state.latest[key] {
                    state.evidence[index] = evidence
                } else {
                    state.latest[key] = state.evidence.count
                    state.evidence.append(evidence)
                }
            }
            read += page.count
            state.lastRecordID = page.last?.id ?? state.lastRecordID
            guard page.count == Self.pageRecords else { break }
        }
        progress.withLock { $0 = state }
        return read
    }

    /// The evidence one record gives about `engine`'s model, or nil (see the type's rule).
    static func evidence(_ record: FeedbackRecord, engine: any SuggestionEngine,
                         category: (String) -> String?) -> QueueEvidence? {
        let item = record.item
        guard item.model == engine.modelVersion, let shown = item.shown.first,
              !(item.clientID?.hasPrefix(FeedbackRules.queueIDPrefix) ?? false) else { return nil }
        let correct: Bool
        switch (item.action, item.keyword == shown) {
        case (.accept, true), (.correct, true): correct = true
        case (.reject, true), (.correct, false): correct = false
        case (.accept, false), (.reject, false): return nil
        }
        let result = engine.modelOnly.suggest(item.name, k: 1, explain: false)
        guard let first = result.suggestions.first,
              first.keyword == shown, let confidence = first.confidence, confidence.isFinite else { return nil }
        return QueueEvidence(model: engine.modelVersion, keyword: shown, confidence: confidence, category: category(shown),
                             correct: correct, audit: false, firstIsHead: result.firstIsHead)
    }
}
