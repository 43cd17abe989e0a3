// `kwsuggest bench --queue N`: what one lease, decision and stats call costs with N items in the annotation queue.
import Foundation
import StoreOpening
import StoreInterface
import TeamQueue

/// Fills a fresh queue (a file store in a temporary directory, or the given PostgreSQL) with N items whose
/// suggestions are synthetic (top keyword one of 200, confidence spread over 0–1: a lease's cost does not depend
/// on the model), then times, over --rounds rounds after one warm-up: a lease of 10 by a new annotator in each
/// order and by keyword, labelling the 10 leased items, and the stats. Also times the first operation of a
/// second store instance on the same files (a process starting on a queue that size: reading the whole log).
package struct QueueBench {
    let items: Int
    let rounds: Int
    let postgresURL: String?

    package init(items: Int, rounds: Int, postgresURL: String?) {
        self.items = items
        self.rounds = rounds
        self.postgresURL = postgresURL
    }

    package struct Row {
        var label: String
        var p50: Double
        var p99: Double
    }

    package func run() throws -> (fill: Double, open: Double?, rows: [Row]) {
        let directory = NSTemporaryDirectory() + "kwsuggest-queue-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let overlay = directory + "/keywords.overlay.json"
        let location: StoreLocation = postgresURL.map { .postgres($0) } ?? .file(overlay)
        let policy = QueuePolicy(overlapShare: 0.05, auditShare: 0.05)
        let open = { () throws -> any QueueStore in
            let feedback = try location.open()
            return try location.openQueue(feedbackStore: feedback, policy: policy)
        }
        let store = try open()
        var generator = SystemRandomNumberGenerator()
        let keywords = (0..<200).map { "keyword-\($0)" }
        let now = SystemQueueClock.now()
        let fillStart = BenchClock.wall()
        for start in stride(from: 0, to: items, by: 1000) {
            let batch = (start..<min(items, start + 1000)).map { index -> QueueSubmission in
                let confidence = Double.random(in: 0..<1, using: &generator)
                let top = keywords[Int.random(in: 0..<keywords.count, using: &generator)]
                return QueueSubmission(id: "bench-\(index)", name: "bench product \(index)",
                                       suggestions: [QueueSuggestion(keyword: top, confidence: confidence)]
                                           + (1..<5).map { QueueSuggestion(keyword: keywords[($0 * 37 + index) % 200], confidence: confidence / Double($0 + 1)) },
                                       autoAccept: false, model: "bench")
            }
            _ = try store.enqueue(batch, at: now)
        }
        let fill = BenchClock.wall() - fillStart
        var openSeconds: Double?
        if postgresURL == nil {
            let second = try open()
            let start = BenchClock.wall()
            _ = try second.stats(at: now)
            openSeconds = BenchClock.wall() - start
        }
        var samples: [String: [Double]] = [:]
        let labels = ["lease 10, uncertain", "lease 10, confident", "lease 10, oldest", "lease 10, by keyword",
                      "label 10 (one decision each)", "stats"]
        for round in 0...rounds {
            func time(_ label: String, _ body: () throws -> Void) rethrows {
                let start = BenchClock.wall()
                try body()
                if round > 0 { samples[label, default: []].append((BenchClock.wall() - start) * 1000) }
            }
            var leased: [QueueLease] = []
            for (label, order, keyword) in [(labels[0], QueueOrder.uncertain, nil), (labels[1], .confident, nil),
                                            (labels[2], .oldest, nil), (labels[3], .uncertain, keywords[round % 200])] as [(String, QueueOrder, String?)] {
                try time(label) {
                    leased.append(try store.lease(LeaseRequest(annotator: "bench-\(round)-\(label)", count: 10, order: order,
                                                               keyword: keyword), at: now))
                }
            }
            let lease = leased[0]
            try time(labels[4]) {
                for item in lease.items {
                    _ = try store.decide(DecisionRequest(lease: lease.id, annotator: "bench-\(round)-\(labels[0])", ids: [item.id],
                                                         kind: .label, keywords: [item.topKeyword ?? "x"]), at: now)
                }
            }
            try time(labels[5]) { _ = try store.stats(at: now) }
        }
        let rows = labels.map { label in
            Row(label: label, p50: BenchStatistics.median(samples[label] ?? []),
                p99: BenchStatistics.percentile(samples[label] ?? [], 0.99))
        }
        return (fill, openSeconds, rows)
    }

    package func table(_ result: (fill: Double, open: Double?, rows: [Row])) -> String {
        var text = "queue of \(items) items on the \(postgresURL == nil ? "file" : "PostgreSQL") store, \(rounds) rounds\n"
        text += "fill (enqueue in batches of 1000): \(String(format: "%.2f", result.fill)) s\n"
        if let open = result.open { text += "first read by a second instance (whole log): \(String(format: "%.1f", open * 1000)) ms\n" }
        let width = (result.rows.map(\.label.count).max() ?? 0) + 2
        for row in result.rows {
            text += row.label.padding(toLength: width, withPad: " ", startingAt: 0)
                + String(format: "p50 %8.2f ms   p99 %8.2f ms\n", row.p50, row.p99)
        }
        return text
    }
}
