// The queue's figures as Prometheus metrics. Labels are bounded: states, decision kinds and outcomes, never
// annotator names or item ids.
import KeywordService
import Locking

/// What this process did with the queue, counted as it happens.
final class QueueCounters: Sendable {
    private struct Counts: Sendable {
        var enqueued: [String: Int] = ["queued": 0, "auto_accepted": 0, "duplicate": 0]
        var leasedItems = 0
        var decisions: [String: Int] = Dictionary(uniqueKeysWithValues: QueueDecisionKind.allCases.map { ($0.rawValue, 0) })
        var undos = 0
    }
    private let counts = Locked(Counts())

    func count(_ summary: EnqueueSummary) {
        counts.withLock {
            $0.enqueued["queued", default: 0] += summary.queued
            $0.enqueued["auto_accepted", default: 0] += summary.autoAccepted
            $0.enqueued["duplicate", default: 0] += summary.duplicates
        }
    }

    func countLease(_ items: Int) { counts.withLock { $0.leasedItems += items } }
    func countDecisions(_ kind: QueueDecisionKind, _ items: Int) { counts.withLock { $0.decisions[kind.rawValue, default: 0] += items } }
    func countUndo() { counts.withLock { $0.undos += 1 } }

    /// This process's counters, then the queue's figures as the store holds them (shared by every replica).
    func render(_ stats: QueueStats?) -> String {
        let counts = self.counts.withLock { $0 }
        var text = "# HELP kwsuggest_queue_enqueued_total Items posted to the queue by this process, by outcome.\n"
            + "# TYPE kwsuggest_queue_enqueued_total counter\n"
        for outcome in ["queued", "auto_accepted", "duplicate"] {
            text += "kwsuggest_queue_enqueued_total{outcome=\"\(outcome)\"} \(counts.enqueued[outcome] ?? 0)\n"
        }
        text += "# HELP kwsuggest_queue_leased_items_total Items handed out in leases by this process.\n"
            + "# TYPE kwsuggest_queue_leased_items_total counter\nkwsuggest_queue_leased_items_total \(counts.leasedItems)\n"
        text += "# HELP kwsuggest_queue_decisions_total Decisions recorded by this process, by kind (one per item).\n"
            + "# TYPE kwsuggest_queue_decisions_total counter\n"
        for kind in QueueDecisionKind.allCases {
            text += "kwsuggest_queue_decisions_total{kind=\"\(kind.rawValue)\"} \(counts.decisions[kind.rawValue] ?? 0)\n"
        }
        text += "# HELP kwsuggest_queue_undo_total Decisions undone through this process.\n"
            + "# TYPE kwsuggest_queue_undo_total counter\nkwsuggest_queue_undo_total \(counts.undos)\n"
        guard let stats else { return text }
        text += "# HELP kwsuggest_queue_items Items in the queue's store, by state.\n# TYPE kwsuggest_queue_items gauge\n"
        for (state, count) in [("queued", stats.items.queued), ("leased", stats.items.leased),
                               ("labelled", stats.items.labelled), ("flagged", stats.items.flagged)] {
            text += "kwsuggest_queue_items{state=\"\(state)\"} \(count)\n"
        }
        let decisions = stats.annotators.values.reduce(0) { $0 + $1.decisions }
        let medians = stats.annotators.values.compactMap(\.medianSeconds).sorted()
        text += "# HELP kwsuggest_queue_annotators Annotators with at least one standing decision.\n"
            + "# TYPE kwsuggest_queue_annotators gauge\nkwsuggest_queue_annotators \(stats.annotators.count)\n"
        text += "# HELP kwsuggest_queue_annotator_decisions Standing (not undone) decisions of all annotators.\n"
            + "# TYPE kwsuggest_queue_annotator_decisions gauge\nkwsuggest_queue_annotator_decisions \(decisions)\n"
        if !medians.isEmpty {
            text += "# HELP kwsuggest_queue_median_seconds_per_decision The middle annotator's median seconds per decision.\n"
                + "# TYPE kwsuggest_queue_median_seconds_per_decision gauge\n"
                + "kwsuggest_queue_median_seconds_per_decision \(medians[medians.count / 2])\n"
        }
        text += "# HELP kwsuggest_queue_auto_accepted Items the model labelled.\n"
            + "# TYPE kwsuggest_queue_auto_accepted gauge\nkwsuggest_queue_auto_accepted \(stats.autoAccepted)\n"
        text += "# HELP kwsuggest_queue_audited Auto-accepted items a person checked, by whether they kept the model's keyword.\n"
            + "# TYPE kwsuggest_queue_audited gauge\n"
            + "kwsuggest_queue_audited{outcome=\"agreed\"} \(stats.auditAgreed)\n"
            + "kwsuggest_queue_audited{outcome=\"changed\"} \(stats.audited - stats.auditAgreed)\n"
        text += "# HELP kwsuggest_queue_overlap_items Items labelled by two annotators, by whether they agreed.\n"
            + "# TYPE kwsuggest_queue_overlap_items gauge\n"
            + "kwsuggest_queue_overlap_items{outcome=\"agreed\"} \(stats.agreed)\n"
            + "kwsuggest_queue_overlap_items{outcome=\"disagreed\"} \(stats.overlapItems - stats.agreed)\n"
        return text
    }
}
