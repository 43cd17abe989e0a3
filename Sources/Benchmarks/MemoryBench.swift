// `kwsuggest bench --memory N`: what the decision memory costs a suggestion, and its load time and footprint, with
// up to N remembered names.
import DecisionMemory
import FileStore
import Foundation
import SuggestionRuntime
import StoreInterface

/// For each size (0, N/10 and N remembered names), fills a file store in a temporary directory with that many
/// decisions (every bench name decided, the rest synthetic names with distinct keys), reads them into a fresh
/// memory as `serve` does at start (`DecisionMemory.catchUp`), and times `suggest` through the remembering engine
/// over the bench names (each an exact hit) and over the same names with a word that no decision holds (misses),
/// beside the model alone on the same names.
package struct MemoryBench {
    let settings: BenchSettings
    let names: Int

    package init(settings: BenchSettings, names: Int) {
        self.settings = settings
        self.names = names
    }

    package struct Row {
        var remembered: Int
        var loadMilliseconds: Double
        var residentMegabytes: Double
        var hitP50: Double
        var missP50: Double
    }

    package struct Report {
        var modelHitP50: Double
        var modelMissP50: Double
        var rows: [Row]
    }

    package func run() throws -> Report {
        let benchNames = try BenchRunner.readNames(settings.namesFile)
        let misses = benchNames.map { $0 + " ぞゑ" }
        let engine = try BenchRunner.load(settings.model, kernel: settings.kernel)
        let runner = BenchRunner(settings: settings)
        let modelHit = runner.measureSuggest(engine, benchNames).p50
        let modelMiss = runner.measureSuggest(engine, misses).p50
        let keywords = Array(engine.keywordList().keywords)
        var rows: [Row] = []
        for size in Array(Set([0, names / 10, names])).sorted() {
            let directory = NSTemporaryDirectory() + "kwsuggest-memory-bench-\(getpid())-\(size)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
            let decided = size == 0 ? [] : benchNames.prefix(size) + (0 ..< max(0, size - benchNames.count)).map(Self.syntheticName)
            for start in stride(from: 0, to: decided.count, by: 1_000) {
                let batch = decided[start ..< min(decided.count, start + 1_000)].enumerated().map { offset, name in
                    FeedbackItem(name: name, keyword: keywords[(start + offset) % keywords.count], action: .correct, annotator: "bench")
                }
                _ = try store.appendFeedback(Array(batch))
            }
            let before = BenchClock.residentMegabytes()
            let memory = DecisionMemory()
            let remembering = RememberingEngine(base: engine, memory: memory)
            let start = BenchClock.wall()
            try memory.catchUp(store: store, queue: nil)
            let load = (BenchClock.wall() - start) * 1000
            let footprint = BenchClock.residentMegabytes() - before
            rows.append(Row(remembered: memory.count, loadMilliseconds: load, residentMegabytes: footprint,
                            hitP50: runner.measureSuggest(remembering, benchNames).p50,
                            missP50: runner.measureSuggest(remembering, misses).p50))
        }
        return Report(modelHitP50: modelHit, modelMissP50: modelMiss, rows: rows)
    }

    /// A product name whose key is distinct for each index: a kind word and the index spelled in katakana.
    static func syntheticName(_ index: Int) -> String {
        let digits = Array("アイウエオカキクケコ")
        var spelled = "", rest = index
        repeat {
            spelled.append(digits[rest % 10])
            rest /= 10
        } while rest > 0
        return "ベンチ商品 " + spelled + " 1kg"
    }

    package static func table(_ report: Report, rounds: Int) -> String {
        func ms(_ value: Double) -> String { String(format: "%.4f", value) }
        var lines = ["suggest p50 of the model alone: \(ms(report.modelHitP50)) ms (bench names), \(ms(report.modelMissP50)) ms (names no decision holds); median over \(rounds) rounds",
                     "remembered  load_ms  rss_delta_mb  hit_p50_ms  hit/model  miss_p50_ms  miss/model"]
        for row in report.rows {
            lines.append(String(format: "%10d  %7.1f  %12.1f  %10.4f  %9.3f  %11.4f  %10.3f", row.remembered, row.loadMilliseconds,
                                row.residentMegabytes, row.hitP50, row.hitP50 / report.modelHitP50, row.missP50,
                                row.missP50 / report.modelMissP50))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
