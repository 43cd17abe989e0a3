// The queue's figures as Prometheus metrics. Labels are bounded: states, decision kinds and outcomes, never
// annotator names or item ids.
import HTTPCore
import Locking
import StoreInterface
import TeamQueue

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
    func render(_ stats: QueueStats?, into text: inout PrometheusText) {
        let counts = self.counts.withLock { $0 }
        text.family("kwsuggest_queue_enqueued_total", .counter, help: "Items posted to the queue by this process, by outcome.")
        for outcome in ["queued", "auto_accepted", "duplicate"] {
            text.sample("kwsuggest_queue_enqueued_total", labels: ["outcome": outcome], counts.enqueued[outcome] ?? 0)
        }
        text.single("kwsuggest_queue_leased_items_total", .counter, help: "Items handed out in leases by this process.",
                    counts.leasedItems)
        text.family("kwsuggest_queue_decisions_total", .counter, help: "Decisions recorded by this process, by kind (one per item).")
        for kind in QueueDecisionKind.allCases {
            text.sample("kwsuggest_queue_decisions_total", labels: ["kind": kind.rawValue], counts.decisions[kind.rawValue] ?? 0)
        }
        text.single("kwsuggest_queue_undo_total", .counter, help: "Decisions undone through this process.", counts.undos)
        guard let stats else { return }
        text.family("kwsuggest_queue_items", .gauge, help: "Items in the queue's store, by state.")
        for (state, count) in [("queued", stats.items.queued), ("leased", stats.items.leased),
                               ("labelled", stats.items.labelled), ("flagged", stats.items.flagged)] {
            text.sample("kwsuggest_queue_items", labels: ["state": state], count)
        }
        text.single("kwsuggest_queue_annotators", .gauge, help: "Annotators with at least one standing decision.",
                    stats.annotators.count)
        text.single("kwsuggest_queue_annotator_decisions", .gauge, help: "Standing (not undone) decisions of all annotators.",
                    stats.annotators.values.reduce(0) { $0 + $1.decisions })
        let medians = stats.annotators.values.compactMap(\.medianSeconds).sorted()
        if !medians.isEmpty {
            text.family("kwsuggest_queue_median_seconds_per_decision", .gauge,
                        help: "The middle annotator's median seconds per decision.")
            text.sample("kwsuggest_queue_median_seconds_per_decision", medians[medians.count / 2])
        }
        text.single("kwsuggest_queue_auto_accepted", .gauge, help: "Items the model labelled.", stats.autoAccepted)
        text.family("kwsuggest_queue_audited", .gauge,
                    help: "Auto-accepted items a person checked, by whether they kept the model's keyword.")
        text.sample("kwsuggest_queue_audited", labels: ["outcome": "agreed"], stats.auditAgreed)
        text.sample("kwsuggest_queue_audited", labels: ["outcome": "changed"], stats.audited - stats.auditAgreed)
        text.family("kwsuggest_queue_overlap_items", .gauge, help: "Items labelled by two annotators, by whether they agreed.")
        text.sample("kwsuggest_queue_overlap_items", labels: ["outcome": "agreed"], stats.agreed)
        text.sample("kwsuggest_queue_overlap_items", labels: ["outcome": "disagreed"], stats.overlapItems - stats.agreed)
    }
}
