// `kwsuggest bench --updates`: what one keyword change costs, split into the store's write and the in-memory side.
import FileStore
import Foundation
import KeywordIndex
import Locking
import ModelStorage
import SuggestionRuntime
import StoreInterface

/// A file store that records how long each `apply` took (lock, read, check, atomic write, unlock).
final class TimedStore: KeywordStore {
    let inner: FileKeywordStore
    private let lastApply = Locked(0.0)

    init(_ inner: FileKeywordStore) { self.inner = inner }

    /// Seconds the last `apply` took.
    var lastApplySeconds: Double { lastApply.withLock { $0 } }

    var displayName: String { inner.displayName }
    var kind: String { inner.kind }
    var isAvailable: Bool { inner.isAvailable }
    func loadOverlay() throws(KeywordStoreError) -> KeywordOverlay { try inner.loadOverlay() }
    func apply(_ change: KeywordChange,
               check: (KeywordOverlay) throws(KeywordStoreError) -> Void) throws(KeywordStoreError) -> KeywordOverlay {
        let start = BenchClock.wall()
        defer { let took = BenchClock.wall() - start; lastApply.withLock { $0 = took } }
        return try inner.apply(change, check: check)
    }
    func replaceOverlay(_ overlay: KeywordOverlay,
                        check: (KeywordOverlay) throws(KeywordStoreError) -> Void) throws(KeywordStoreError) {
        try inner.replaceOverlay(overlay, check: check)
    }
    func appendFeedback(_ items: [FeedbackItem]) throws(KeywordStoreError) -> [FeedbackReceipt] { try inner.appendFeedback(items) }
    func importFeedback(_ records: [FeedbackRecord]) throws(KeywordStoreError) -> Int { try inner.importFeedback(records) }
    func feedback(after: Int64, limit: Int) throws(KeywordStoreError) -> [FeedbackRecord] {
        try inner.feedback(after: after, limit: limit)
    }
    func lastFeedbackID(after: Int64, limit: Int?) throws(KeywordStoreError) -> Int64? {
        try inner.lastFeedbackID(after: after, limit: limit)
    }
    func startWatching(_ onChange: @escaping @Sendable (String) -> Void) {}
    func close() { inner.close() }
}

/// Medians of one kind of change at one list size, in milliseconds.
struct UpdateTimings {
    var label: String
    var store: Double
    var memory: Double
    var total: Double
}

/// One list size's measurements.
package struct UpdateSizeReport {
    var keywords: Int
    var rows: [UpdateTimings]
}

/// Times keyword changes through `ModelEngine.updateKeywords` on a file store in a temporary directory, at the
/// model's own list and at a large one, side by side in one process.
///
/// Per round and size: add a keyword not in the list (it goes to the end), remove it again; remove a keyword
/// of the model's list from the middle, add it back (it returns to its place). The store's part is the time of
/// `FileKeywordStore.apply` (lock, read and check the overlay, apply, atomic durable write); the in-memory part
/// is the rest of `updateKeywords` (the new list, index and exact-match tables, and the swap).
package struct UpdateBench {
    let settings: BenchSettings

    package init(settings: BenchSettings) {
        self.settings = settings
    }

    /// Served keywords in the large run when `--keywords` is not given: one under the cap, so the step that adds
    /// a keyword stays within it.
    static let defaultLargeSize = KeywordRules.maxKeywords - 1

    package func run() throws -> [UpdateSizeReport] {
        var options = ScoringOptions()
        options.kernel = settings.kernel
        let components: LoadedModel
        do {
            components = try ModelDirectory.load(path: settings.model)
        } catch let error as ModelDirectoryError {
            throw BenchmarkError(error.description)
        }
        let base = components.keywords
        let extraCount = settings.extraKeywords > 0 ? settings.extraKeywords : max(0, Self.defaultLargeSize - base.count)
        let fresh = settings.rounds + 1
        // Keys the API would refuse (white space around them, too long) cannot be in an overlay: asked for with
        // some to spare, and dropped.
        let vocabulary = try BenchRunner.vocabularyKeywords(model: settings.model, count: (extraCount + fresh) * 11 / 10,
                                                            excluding: base).filter {
            KeywordRules.problem(with: $0) == nil && $0.trimmingCharacters(in: .whitespacesAndNewlines) == $0
        }
        guard vocabulary.count >= extraCount + fresh else {
            throw BenchmarkError("only \(vocabulary.count) usable vocabulary keys for \(extraCount + fresh) keywords")
        }
        let extras = Array(vocabulary.prefix(extraCount)), probes = Array(vocabulary[extraCount..<(extraCount + fresh)])
        var reports: [UpdateSizeReport] = []
        for added in [[], extras] {
            reports.append(try measure(components, options: options, added: added, probes: probes))
        }
        return reports
    }

    private func measure(_ components: LoadedModel, options: ScoringOptions, added: [String],
                         probes: [String]) throws -> UpdateSizeReport {
        let directory = NSTemporaryDirectory() + "kwsuggest-update-bench-\(getpid())-\(added.count)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = TimedStore(FileKeywordStore(overlayPath: directory + "/keywords.overlay.json"))
        try store.replaceOverlay(KeywordOverlay(added: added))
        let engine = try ModelEngine(components: components, store: store, options: options)
        let base = components.keywords
        let labels = ["add a new keyword (end of list)", "remove it", "remove a model keyword (middle)",
                      "add it back (middle)"]
        var samples = [[(Double, Double)]](repeating: [], count: labels.count)
        func timed(_ step: Int, _ round: Int, add: [String] = [], remove: [String] = []) throws {
            let start = BenchClock.wall()
            _ = try engine.updateKeywords(add: add, remove: remove)
            let total = BenchClock.wall() - start
            if round > 0 { samples[step].append((store.lastApplySeconds * 1000, total * 1000)) }
        }
        // Round 0 warms up and is not counted.
        for round in 0...settings.rounds {
            let probe = probes[round]
            let middle = base[(base.count / 2 + round) % base.count]
            try timed(0, round, add: [probe])
            try timed(1, round, remove: [probe])
            try timed(2, round, remove: [middle])
            try timed(3, round, add: [middle])
        }
        let rows = labels.enumerated().map { step, label in
            UpdateTimings(label: label, store: BenchStatistics.median(samples[step].map(\.0)),
                          memory: BenchStatistics.median(samples[step].map { $0.1 - $0.0 }),
                          total: BenchStatistics.median(samples[step].map(\.1)))
        }
        return UpdateSizeReport(keywords: engine.keywordList().keywords.count, rows: rows)
    }

    /// One table: a row per change, a column group per list size.
    package static func table(_ reports: [UpdateSizeReport], rounds: Int) -> String {
        func fixed(_ value: Double) -> String { String(format: "%.2f", value) }
        var lines = ["medians of \(rounds) rounds, ms: store write (lock, read, atomic write) / in-memory (list, index, "
                     + "matcher, swap) / whole update"]
        let width = (reports.first?.rows.map(\.label.count).max() ?? 0) + 2
        var header = "change".padding(toLength: width, withPad: " ", startingAt: 0)
        for report in reports { header += "| \(report.keywords) keywords".padding(toLength: 28, withPad: " ", startingAt: 0) }
        lines.append(header)
        for (i, row) in (reports.first?.rows ?? []).enumerated() {
            var line = row.label.padding(toLength: width, withPad: " ", startingAt: 0)
            for report in reports {
                let r = report.rows[i]
                line += "| \(fixed(r.store)) / \(fixed(r.memory)) / \(fixed(r.total))".padding(toLength: 28, withPad: " ", startingAt: 0)
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One JSON object: per size, per change, the three medians.
    package static func json(_ reports: [UpdateSizeReport]) -> String {
        let keys = ["add", "remove", "remove_middle", "add_middle"]
        let sizes = reports.map { report in
            let rows = zip(keys, report.rows).map { key, r in
                "\"\(key)\": {\"store_ms\": \(String(format: "%.3f", r.store)), \"memory_ms\": \(String(format: "%.3f", r.memory)), "
                    + "\"total_ms\": \(String(format: "%.3f", r.total))}"
            }
            return "{\"keywords\": \(report.keywords), " + rows.joined(separator: ", ") + "}"
        }
        return "{\"updates\": [" + sizes.joined(separator: ", ") + "]}"
    }
}
