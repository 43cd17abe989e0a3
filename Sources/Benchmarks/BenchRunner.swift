// The measurements behind `kwsuggest bench`: load time, suggest latency, tokenizer throughput, peak RSS.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import Foundation
import KeywordIndex
import KeywordVectors
import ModelStorage
import Platform
import SuggestionRuntime

package struct BenchSettings {
    package var model: String
    package var namesFile: String
    package var extraKeywords: Int
    package var rounds: Int
    package var loads: Int
    package var kernel: ScoringKernel

    package init(model: String, namesFile: String, extraKeywords: Int, rounds: Int, loads: Int, kernel: ScoringKernel) {
        self.model = model
        self.namesFile = namesFile
        self.extraKeywords = extraKeywords
        self.rounds = rounds
        self.loads = loads
        self.kernel = kernel
    }
}

/// A benchmark that cannot run (a model that does not load, a names file that cannot be read): the message says why.
package struct BenchmarkError: Error, CustomStringConvertible {
    package var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// What one `kwsuggest bench` run measured.
package struct BenchReport {
    var kernel: ScoringKernel
    var keywords: Int
    var extraKeywords: Int
    var names: Int
    var rounds: Int
    var loadMilliseconds: Double
    var indexBuildMilliseconds: Double?
    var suggestP50: Double
    var suggestP99: Double
    var suggestMean: Double
    /// Scoring and top 5 alone, from names analysed beforehand (the part the reference scorer re-implements).
    var scoreOnlyP50: Double
    var scoreOnlyMean: Double
    /// Process CPU time per scored name (all threads), median over rounds: the cost without waiting for a core.
    var scoreOnlyCPU: Double
    var tokenizePerSecond: Double
    var rssMegabytes: Double

    package func table() -> String {
        var rows: [(String, String)] = [
            ("scoring kernel", kernel.rawValue),
            ("keywords in index", "\(keywords) (\(extraKeywords) extra)"),
            ("names", "\(names) × \(rounds) rounds"),
            ("model load (median)", fixed(loadMilliseconds, 1) + " ms"),
        ]
        if let build = indexBuildMilliseconds { rows.append(("index build with extras", fixed(build, 1) + " ms")) }
        rows += [
            ("suggest p50 (median)", fixed(suggestP50, 4) + " ms"),
            ("suggest p99 (median)", fixed(suggestP99, 4) + " ms"),
            ("suggest mean (median)", fixed(suggestMean, 4) + " ms"),
            ("score only p50 (median)", fixed(scoreOnlyP50, 4) + " ms"),
            ("score only mean (median)", fixed(scoreOnlyMean, 4) + " ms"),
            ("score only CPU/name (median)", fixed(scoreOnlyCPU, 4) + " ms"),
            ("tokenize (one core)", fixed(tokenizePerSecond, 0) + " names/s"),
            ("peak RSS (VmHWM)", fixed(rssMegabytes, 1) + " MiB"),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0 + String(repeating: " ", count: width - $0.0.count) + "  " + $0.1 + "\n" }.joined()
    }

    package func json() -> String {
        "{\"keywords\": \(keywords), \"suggest_p50_ms\": \(fixed(suggestP50, 4)), \"suggest_p99_ms\": \(fixed(suggestP99, 4)), "
            + "\"tokenize_per_s\": \(fixed(tokenizePerSecond, 0)), \"load_ms\": \(fixed(loadMilliseconds, 1)), "
            + "\"rss_mb\": \(fixed(rssMegabytes, 1))}"
    }

    private func fixed(_ value: Double, _ digits: Int) -> String {
        value.isFinite ? String(format: "%.\(digits)f", value) : "0"
    }
}

/// Runs the measurements in a fixed order (loads, extra keywords, tokenizer, suggest) and reads VmHWM last.
package struct BenchRunner {
    let settings: BenchSettings

    package init(settings: BenchSettings) {
        self.settings = settings
    }

    /// Passes over the name list per tokenizer round (so a round lasts long enough to time).
    static let tokenizeRepeats = 20

    package func run() throws -> BenchReport {
        let names = try BenchRunner.readNames(settings.namesFile)
        var loadTimes: [Double] = []
        var engine: ModelEngine?
        for _ in 0..<settings.loads {
            engine = nil
            let start = BenchClock.wall()
            let loaded = try BenchRunner.load(settings.model, kernel: settings.kernel)
            loadTimes.append((BenchClock.wall() - start) * 1000)
            engine = loaded
        }
        guard var engine else { throw BenchmarkError("no model loaded") }
        var buildTime: Double?
        if settings.extraKeywords > 0 {
            let extras = try BenchRunner.vocabularyKeywords(model: settings.model, count: settings.extraKeywords,
                                                            excluding: engine.components.keywords)
            var components = engine.components
            components.keywords += extras
            let start = BenchClock.wall()
            do {
                // The benchmark's list is built in memory and never served, so it may pass the served list's cap.
                engine = try ModelEngine(components: components, store: engine.store, options: engine.options, applyOverlay: false,
                                         maxKeywords: max(engine.maxKeywords, components.keywords.count))
            } catch let error as ModelDirectoryError {
                throw BenchmarkError(error.description)
            }
            buildTime = (BenchClock.wall() - start) * 1000
        }
        let tokenize = measureTokenizer(engine, names)
        let latency = measureSuggest(engine, names)
        let scoring = measureScoring(engine, names)
        return BenchReport(
            kernel: engine.options.kernel, keywords: engine.index.count, extraKeywords: settings.extraKeywords, names: names.count,
            rounds: settings.rounds, loadMilliseconds: BenchStatistics.median(loadTimes),
            indexBuildMilliseconds: buildTime, suggestP50: latency.p50, suggestP99: latency.p99,
            suggestMean: latency.mean, scoreOnlyP50: scoring.p50, scoreOnlyMean: scoring.mean, scoreOnlyCPU: scoring.cpu, tokenizePerSecond: tokenize, rssMegabytes: BenchClock.peakResidentMegabytes())
    }

    /// Names per CPU-second of this thread, median over rounds.
    func measureTokenizer(_ engine: ModelEngine, _ names: [String]) -> Double {
        let analyzer = engine.components.analyzer
        var sink = 0
        for name in names { sink &+= analyzer.analyzeName(name).rows.count }
        var rates: [Double] = []
        for _ in 0..<settings.rounds {
            let start = BenchClock.threadCPU()
            for _ in 0..<BenchRunner.tokenizeRepeats {
                for name in names { sink &+= analyzer.analyzeName(name).rows.count }
            }
            let seconds = BenchClock.threadCPU() - start
            rates.append(Double(names.count * BenchRunner.tokenizeRepeats) / max(seconds, 1e-9))
        }
        BenchClock.keep(sink)
        return BenchStatistics.median(rates)
    }

    /// Wall-clock latency of `engine.suggest(name, k: 5)` per name: medians over rounds of p50, p99 and mean (ms).
    func measureSuggest(_ engine: any SuggestionEngine, _ names: [String]) -> (p50: Double, p99: Double, mean: Double) {
        var sink = 0
        for name in names { sink &+= engine.suggest(name, k: 5, explain: false).suggestions.count }
        var p50s: [Double] = [], p99s: [Double] = [], means: [Double] = []
        var samples = [Double](repeating: 0, count: names.count)
        for _ in 0..<settings.rounds {
            for (i, name) in names.enumerated() {
                let start = BenchClock.wall()
                sink &+= engine.suggest(name, k: 5, explain: false).suggestions.count
                samples[i] = (BenchClock.wall() - start) * 1000
            }
            p50s.append(BenchStatistics.percentile(samples, 0.50))
            p99s.append(BenchStatistics.percentile(samples, 0.99))
            means.append(samples.reduce(0, +) / Double(samples.count))
        }
        BenchClock.keep(sink)
        return (BenchStatistics.median(p50s), BenchStatistics.median(p99s), BenchStatistics.median(means))
    }

    /// The model directory read into an engine with the model's own keyword list (overlay not applied).
    static func load(_ model: String, kernel: ScoringKernel) throws -> ModelEngine {
        var options = ScoringOptions()
        options.kernel = kernel
        do {
            let components = try ModelDirectory.load(path: model)
            let store = FileKeywordStore(overlayPath: KeywordOverlayFile.defaultPath(modelDirectory: model))
            return try ModelEngine(components: components, store: store, options: options, applyOverlay: false)
        } catch let error as ModelDirectoryError {
            throw BenchmarkError(error.description)
        }
    }

    /// Wall-clock latency of `index.search(name, k: 5)` for names analysed beforehand: medians over rounds.
    func measureScoring(_ engine: ModelEngine, _ names: [String]) -> (p50: Double, mean: Double, cpu: Double) {
        let index = engine.index
        let analyzed = names.map { engine.components.analyzer.analyzeName($0).lexical }
        var sink = 0
        for name in analyzed { sink &+= index.search(name, k: 5).count }
        var p50s: [Double] = [], means: [Double] = [], cpus: [Double] = []
        var samples = [Double](repeating: 0, count: analyzed.count)
        for _ in 0..<settings.rounds {
            let cpuStart = BenchClock.processCPU()
            for (i, name) in analyzed.enumerated() {
                let start = BenchClock.wall()
                sink &+= index.search(name, k: 5).count
                samples[i] = (BenchClock.wall() - start) * 1000
            }
            cpus.append((BenchClock.processCPU() - cpuStart) * 1000 / Double(analyzed.count))
            p50s.append(BenchStatistics.percentile(samples, 0.50))
            means.append(samples.reduce(0, +) / Double(samples.count))
        }
        BenchClock.keep(sink)
        return (BenchStatistics.median(p50s), BenchStatistics.median(means), BenchStatistics.median(cpus))
    }

    static func readNames(_ path: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BenchmarkError("\(path): cannot read the names file")
        }
        let names = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !names.isEmpty else { throw BenchmarkError("\(path): no names") }
        return names
    }

    /// `count` vocabulary keys of the model's vectors that are not keywords already: first every row's label
    /// (distinct vectors, row order), then the rows' other keys (aliases sharing a row) when labels run out.
    /// Keys with spaces or control characters are skipped.
    static func vocabularyKeywords(model: String, count: Int, excluding existing: [String]) throws -> [String] {
        let path = (model as NSString).appendingPathComponent(ModelDirectory.vectorsName)
        let vectors: WordVectors
        do {
            vectors = try WordVectors.load(path: path)
        } catch let error as VectorFileError {
            throw BenchmarkError(error.description)
        }
        var seen = Set(existing)
        var result: [String] = []
        result.reserveCapacity(count)
        func offer(_ key: String) {
            guard result.count < count, !key.isEmpty, key.count <= 200,
                  !key.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0.value == 0x3000 })
            else { return }
            if seen.insert(key).inserted { result.append(key) }
        }
        for row in 0..<vectors.rowCount where result.count < count {
            if let label = vectors.label(forRow: row) { offer(label) }
        }
        for row in 0..<vectors.rowCount where result.count < count {
            for key in vectors.keys(forRow: row).dropFirst() { offer(key) }
        }
        guard result.count == count else {
            throw BenchmarkError("\(path): only \(result.count) usable keys for --keywords \(count)")
        }
        return result
    }
}

enum BenchStatistics {
    /// The median (mean of the two middle values for an even count); 0 for no values.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// Nearest-rank percentile (`fraction` in 0...1); 0 for no values.
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

enum BenchClock {
    static func wall() -> Double { MonotonicClock.seconds() }
    /// CPU time of the calling thread: steadier than wall time on a shared machine.
    static func threadCPU() -> Double { MonotonicClock.threadCPUSeconds() }
    /// CPU time of the whole process (all threads).
    static func processCPU() -> Double { MonotonicClock.processCPUSeconds() }

    /// VmHWM from /proc/self/status in MiB; 0 where the file is missing (not Linux).
    static func peakResidentMegabytes() -> Double { statusMegabytes("VmHWM:") }

    /// VmRSS, the resident set now, in MiB; 0 where the file is missing.
    static func residentMegabytes() -> Double { statusMegabytes("VmRSS:") }

    private static func statusMegabytes(_ field: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            let digits = line.dropFirst(field.count).filter(\.isNumber)
            return (Double(String(digits)) ?? 0) / 1024
        }
        return 0
    }

    /// Keeps a computed value alive so the optimiser cannot drop the timed work.
    @inline(never) static func keep(_ value: Int) {
        if value == Int.min { print("") }
    }
}
