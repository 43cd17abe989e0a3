import Foundation
import KeywordIndex

/// `kwsuggest bench`: in-process measurements of suggestion latency, tokenizer throughput, load time and memory.
struct BenchCommand: Command {
    static let configuration = CommandConfiguration(
        name: "bench",
        abstract: "Measures suggestion latency, tokenizer throughput, load time and memory.",
        usage: "kwsuggest bench [--model <dir>] [--keywords <n>] [--kernel <name>] [--json]",
        options: [
            OptionSpec(names: ["--model"], valueName: "dir", help: "Model directory (default: $KWSUGGEST_MODEL or models/default)."),
            OptionSpec(names: ["--keywords"], valueName: "n", help: "EXTRA keywords added to the model's list, taken from the vector vocabulary (default: 0 = the model's keywords.txt only)."),
            OptionSpec(names: ["--names"], valueName: "file", help: "Product names, one per line (default: bench/names.txt)."),
            OptionSpec(names: ["--rounds"], valueName: "r", help: "Timed passes over the names for latency and tokenizer throughput, 1-1000 (default: 7)."),
            OptionSpec(names: ["--loads"], valueName: "l", help: "Timed model loads, 1-100 (default: 3)."),
            OptionSpec(names: ["--kernel"], valueName: "name", help: "Scoring kernel: avx2 or portable (default: the fastest this CPU runs)."),
            OptionSpec(names: ["--json"], valueName: nil, help: "Print the summary as one JSON object on the last line."),
        ],
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
            """
    )

    var settings: BenchSettings
    var kernelName: String?
    var json: Bool

    init(arguments: ParsedArguments) throws {
        let kernelName = arguments.value("--kernel")
        settings = BenchSettings(
            model: resolveModelDirectory(arguments.value("--model")),
            namesFile: arguments.value("--names") ?? "bench/names.txt",
            extraKeywords: try arguments.int("--keywords", default: 0),
            rounds: try arguments.int("--rounds", default: 7),
            loads: try arguments.int("--loads", default: 3),
            kernel: kernelName.flatMap(ScoringKernel.init(rawValue:)) ?? .best)
        self.kernelName = kernelName
        json = arguments.flag("--json")
    }

    func validate() throws {
        if let kernelName {
            guard ScoringKernel(rawValue: kernelName) != nil else {
                throw CommandError.usage("The value '\(kernelName)' is invalid for '--kernel <name>': expected avx2 or portable.")
            }
            guard settings.kernel.isAvailable else {
                throw CommandError.usage("The kernel '\(kernelName)' needs a CPU with AVX2 and FMA; this one has neither or not both.")
            }
        }
        guard settings.extraKeywords >= 0 && settings.extraKeywords <= 10_000_000 else {
            throw CommandError.usage("The value '\(settings.extraKeywords)' is invalid for '--keywords <n>': expected an integer from 0 to 10000000.")
        }
        guard (1...1000).contains(settings.rounds) else {
            throw CommandError.usage("The value '\(settings.rounds)' is invalid for '--rounds <r>': expected an integer from 1 to 1000.")
        }
        guard (1...100).contains(settings.loads) else {
            throw CommandError.usage("The value '\(settings.loads)' is invalid for '--loads <l>': expected an integer from 1 to 100.")
        }
    }

    func run() throws {
        let report = try BenchRunner(settings: settings).run()
        let output = OutputBuffer()
        output.write(report.table())
        if json { output.write(report.json() + "\n") }
        output.flush()
    }
}
