// The queue's figures as Prometheus metrics. Labels are bounded: states, decision kinds and outcomes, never
// annotator names or item ids.
import Dispatch
import HTTPCore
import Locking
import StoreInterface
import TeamQueue

/// The queue's figures for /metrics, read off the event loop. A scrape renders the figures read last and, when
/// they are older than `maxAge`, starts one read on a queue of its own: it never waits on the file store's lock
/// or on the database, so a slow or locked store cannot stall the loop that also answers /healthz. The figures a
/// scrape shows are at most `maxAge` plus one read old (their age is a metric of its own).
package final class QueueFigures: Sendable {
    private struct State: Sendable {
        var stats: QueueStats?
        var readAt: UInt64?
        var reading = false
    }
    private let state = Locked(State())
    private let maxAgeNanos: UInt64
    private let reads = DispatchQueue(label: "kwsuggest-queue-figures")

    init(maxAge: Double = 5) {
        maxAgeNanos = UInt64(max(0, maxAge) * 1e9)
    }

    /// The figures read last (nil before the first read ends) and their age in seconds; starts a read with `read`
    /// when they are stale and none is under way.
    func current(read: @escaping @Sendable () -> QueueStats?) -> (stats: QueueStats?, age: Double?) {
        let now = DispatchTime.now().uptimeNanoseconds
        let (stats, readAt, start) = state.withLock { state -> (QueueStats?, UInt64?, Bool) in
            let stale = state.readAt.map { now &- $0 >= maxAgeNanos } ?? true
            let start = stale && !state.reading
            if start { state.reading = true }
            return (state.stats, state.readAt, start)
        }
        if start {
            reads.async { [state] in
                let stats = read()
                let at = DispatchTime.now().uptimeNanoseconds
                state.withLock { state in
                    if let stats { state.stats = stats }
                    state.readAt = at
                    state.reading = false
                }
            }
        }
        return (stats, readAt.map { Double(now &- min(now, $0)) / 1e9 })
    }

    /// Waits for the read under way, if any (tests).
    package func settle() { reads.sync {} }
}

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

    /// This process's counters, then the queue's figures as the store holds them (shared by every replica), read
    /// `age` seconds ago.
    func render(_ stats: QueueStats?, age: Double? = nil, into text: inout PrometheusText) {
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
        if let age {
            text.family("kwsuggest_queue_figures_age_seconds", .gauge,
                        help: "How long ago the queue figures below were read from the store (read off the event loop).")
            text.sample("kwsuggest_queue_figures_age_seconds", age)
        }
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
