import Benchmarks
import Foundation
import KeywordIndex

extension ScoringKernel: ArgumentChoice {}

/// `kwsuggest bench`: in-process measurements of suggestion latency, tokenizer throughput, load time and memory.
struct BenchCommand: Command {
    static let model = SharedOptions.model
    static let keywords = Option<Int>("--keywords", value: "n",
                                      help: "EXTRA keywords added to the model's list, taken from the vector vocabulary.",
                                      default: 0, defaultText: "0 = the model's keywords.txt only", range: 0...10_000_000)
    static let names = Option<String>("--names", value: "file", help: "Product names, one per line.",
                                      default: "bench/names.txt")
    static let rounds = Option<Int>("--rounds", value: "r",
                                    help: "Timed passes over the names for latency and tokenizer throughput.",
                                    default: 7, range: 1...1000)
    static let loads = Option<Int>("--loads", value: "l", help: "Timed model loads.", default: 3, range: 1...100)
    static let kernel = Option<ScoringKernel>("--kernel", value: "name", help: "Scoring kernel: avx2 or portable.",
                                              defaultText: "the fastest this CPU runs")
    static let json = Flag("--json", help: "Print the summary as one JSON object on the last line.")
    static let updates = Flag("--updates", help: "Time keyword changes (store write and in-memory side) instead.")
    static let queue = Option<Int>("--queue", value: "n", help: "Time annotation-queue operations with n queued items instead.",
                                   range: 1...10_000_000)
    static let queueStore = Option<String>("--queue-store", value: "url",
                                           help: "With --queue: a PostgreSQL URL (a throwaway database) instead of a file store.")
    static let memory = Option<Int>("--memory", value: "n",
                                    help: "Time suggest with 0, n/10 and n remembered names (the decision memory) instead.",
                                    range: 1...10_000_000)

    static let configuration = CommandConfiguration(
        name: "bench",
        abstract: "Measures suggestion latency, tokenizer throughput, load time and memory.",
        options: [model.spec, keywords.spec, names.spec, rounds.spec, loads.spec, kernel.spec, json.spec, updates.spec,
                  queue.spec, queueStore.spec, memory.spec],
        discussion: """
            Build with -c release. The model is loaded --loads times (directory read to engine ready; the overlay
            file is neither read nor written) and the median is reported. With --keywords N, N vocabulary keys of
            vectors.kwv that are not keywords yet are added (row labels first, in row order, then the rows' other
            keys) and the index is built in memory; nothing is written.
            Each round times every name once through the whole suggest path (analysis, scoring, top 5) after one
            warm-up pass; p50 and p99 are taken per round and the median over rounds is reported. Tokenizer
            throughput is names per CPU-second of one thread (normalise, clean, segment), median over rounds.
            The scoring kernel in use is shown in the table (not in the JSON line).
            rss_mb is the peak resident set (VmHWM, MiB) at the end of the run. JSON keys: keywords (total in
            the index), suggest_p50_ms, suggest_p99_ms, tokenize_per_s, load_ms, rss_mb.
            With --updates, keyword changes are timed instead, side by side at the model's own list and at a large
            one (the model's list plus --keywords vocabulary keys, default up to 50,000 keywords, kept as additions
            in the overlay): each round adds a new keyword and removes it, then removes a keyword from the middle of
            the model's list and adds it back, through the engine and a file store in a temporary directory. Each
            change is split into the store's write (lock, read and check the overlay, atomic durable write) and the
            in-memory side (the new list, index and exact-match tables, the swap); medians over --rounds rounds after
            one warm-up round. --json then prints {"updates": [per size: keywords, and store_ms, memory_ms and
            total_ms for add, remove, remove_middle and add_middle]}.
            With --queue N, the annotation queue is timed instead: N items with synthetic suggestions are queued
            in a file store in a temporary directory (or the database --queue-store names), then each round times
            a lease of 10 in each order and by keyword, labelling the 10 leased items, and the stats; p50 and p99
            over --rounds rounds after one warm-up. The model is not loaded.
            With --memory N, the decision memory is timed instead: for 0, N/10 and N remembered names (every bench
            name decided, the rest synthetic), a file store in a temporary directory is filled with the decisions
            and read into a fresh memory as serve does at start (load_ms; rss_delta_mb is the resident set it
            added); suggest p50 through the memory is timed on the bench names (each an exact hit) and on the same
            names with a word no decision holds (misses), each beside the model alone.
            """
    )

    var settings: BenchSettings
    var kernelChosen: Bool
    var json: Bool
    var updates: Bool
    var queueItems: Int?
    var queueStore: String?
    var memoryNames: Int?

    init(arguments: ParsedArguments) throws {
        let kernel = try arguments.get(Self.kernel)
        settings = BenchSettings(
            model: resolveModelDirectory(try arguments.get(Self.model)),
            namesFile: try arguments.require(Self.names),
            extraKeywords: try arguments.require(Self.keywords),
            rounds: try arguments.require(Self.rounds),
            loads: try arguments.require(Self.loads),
            kernel: kernel ?? .best)
        kernelChosen = kernel != nil
        json = arguments.get(Self.json)
        updates = arguments.get(Self.updates)
        queueItems = try arguments.get(Self.queue)
        queueStore = try arguments.get(Self.queueStore)
        memoryNames = try arguments.get(Self.memory)
    }

    func validate() throws {
        if kernelChosen, !settings.kernel.isAvailable {
            throw CommandError.usage("The kernel '\(settings.kernel.rawValue)' needs a CPU with AVX2 and FMA; this one has neither or not both.")
        }
    }

    func run() throws {
        if let memoryNames {
            let output = OutputBuffer()
            output.write(MemoryBench.table(try MemoryBench(settings: settings, names: memoryNames).run(), rounds: settings.rounds))
            output.flush()
            return
        }
        if let queueItems {
            let bench = QueueBench(items: queueItems, rounds: settings.rounds, postgresURL: queueStore)
            let output = OutputBuffer()
            output.write(bench.table(try bench.run()))
            output.flush()
            return
        }
        if updates {
            let reports = try UpdateBench(settings: settings).run()
            let output = OutputBuffer()
            output.write(UpdateBench.table(reports, rounds: settings.rounds))
            if json { output.write(UpdateBench.json(reports) + "\n") }
            output.flush()
            return
        }
        let report = try BenchRunner(settings: settings).run()
        let output = OutputBuffer()
        output.write(report.table())
        if json { output.write(report.json() + "\n") }
        output.flush()
    }
}
