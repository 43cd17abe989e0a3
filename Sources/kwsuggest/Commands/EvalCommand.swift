import Foundation
import KeywordIndex
import KeywordService

/// `kwsuggest eval`: Accuracy@1, Accuracy@5, MRR and primary Accuracy@1 / MRR of a model on labelled names.
struct EvalCommand: Command {
    static let configuration = CommandConfiguration(
        name: "eval",
        abstract: "Evaluates a model on labelled product names.",
        usage: "kwsuggest eval --data <file> [--model <dir>] [--keywords <file>] [--json] [--ablation <ablation>]",
        options: [
            OptionSpec(names: ["--data"], valueName: "file", help: "JSON lines: {\"name\": …, \"keywords\": [primary, acceptable …]}."),
            OptionSpec(names: ["--model"], valueName: "dir", help: "Model directory (default: $KWSUGGEST_MODEL or models/default)."),
            OptionSpec(names: ["--keywords"], valueName: "file", help: "Candidate keywords, one per line; replaces the model's list."),
            OptionSpec(names: ["--json"], valueName: nil, help: "Print the metrics as one JSON object on the last line."),
            OptionSpec(names: ["--ablation"], valueName: "ablation", help: "none, no-attention, untrained or lexical (default: none)."),
            OptionSpec(names: ["--hubness"], valueName: "beta", help: "CSLS hubness correction strength (default: 0, off)."),
            OptionSpec(names: ["--evidence-scale"], valueName: "x", help: "Multiply the learned exact-match weights (default: 1)."),
            OptionSpec(names: ["--by-source"], valueName: nil, help: "Also print the metrics of each data source."),
            OptionSpec(names: ["--failures"], valueName: "n", help: "Print up to n names ranked worst, with the top 5."),
        ],
        discussion: """
            A name's rank is the best rank of any of its keywords among the candidates; a name none of whose
            keywords is a candidate counts as a miss. Primary Accuracy@1 and primary MRR count only the first
            listed keyword (the most specific one): ごま first for 「白ごま」 labelled [白ごま, ごま] is a hit for
            Accuracy@1 and a miss for primary Accuracy@1. Ablations: no-attention = uniform weights over name words;
            untrained = raw word vectors with the article's attention, no exact-match evidence; lexical =
            keywords contained in the normalised name, longest first.
            """
    )

    enum Ablation: String, CaseIterable {
        case none
        case noAttention = "no-attention"
        case untrained
        case lexical
    }

    var data: String
    var model: String
    var keywordsFile: String?
    var json: Bool
    var ablation: Ablation
    var hubness: Float
    var evidenceScale: Float
    var bySource: Bool
    var failures: Int

    init(arguments: ParsedArguments) throws {
        try arguments.expectNoPositionals()
        let data = try arguments.required("--data", placeholder: "file")
        self.data = data
        model = resolveModelDirectory(arguments.value("--model"))
        keywordsFile = arguments.value("--keywords")
        json = arguments.flag("--json")
        let name = arguments.value("--ablation") ?? "none"
        guard let ablation = Ablation(rawValue: name) else {
            throw CommandError.usage("The value '\(name)' is invalid for '--ablation <ablation>': expected one of none, no-attention, untrained, lexical.")
        }
        self.ablation = ablation
        let beta = arguments.value("--hubness") ?? "0"
        guard let hubness = Float(beta), hubness.isFinite, hubness >= 0 else {
            throw CommandError.usage("The value '\(beta)' is invalid for '--hubness <beta>': expected a number ≥ 0.")
        }
        self.hubness = hubness
        let scale = arguments.value("--evidence-scale") ?? "1"
        guard let evidenceScale = Float(scale), evidenceScale.isFinite, evidenceScale >= 0 else {
            throw CommandError.usage("The value '\(scale)' is invalid for '--evidence-scale <x>': expected a number ≥ 0.")
        }
        self.evidenceScale = evidenceScale
        bySource = arguments.flag("--by-source")
        failures = try arguments.int("--failures", default: 0)
    }

    func validate() throws {
        guard failures >= 0 else { throw CommandError.usage("The value '\(failures)' is invalid for '--failures <n>'.") }
    }

    func run() throws {
        do {
            let labelled = try LabelledData.load(path: data)
            var components = try ModelDirectory.load(path: model, requireEncoder: ablation != .untrained && ablation != .lexical)
            if let keywordsFile {
                components.keywords = try ModelFiles.keywords(path: keywordsFile)
                guard !components.keywords.isEmpty else { throw CommandError.failure("\(keywordsFile): no keywords") }
            }
            var options = ScoringOptions(attention: ablation != .noAttention, evidence: ablation != .untrained,
                                         hubness: hubness)
            if ablation == .lexical { options.evidence = true }
            options.evidenceScale = evidenceScale
            let index = try components.makeIndex(keywords: components.keywords, options: options,
                                                 untrained: ablation == .untrained || (ablation == .lexical && components.weights == nil))
            let rankings = Evaluator.rankings(labelled, index: index, analyzer: components.analyzer,
                                              mode: ablation == .lexical ? .lexical : .model)
            let ranks = rankings.map(\.best)
            let (all, sources) = Evaluator.metrics(labelled, rankings: rankings)
            let output = OutputBuffer()
            if failures > 0 { output.write(failureReport(labelled, ranks: ranks, index: index, components: components)) }
            if json {
                output.write("{\"n\":\(all.n),\"accuracy_at_1\":\(fraction(all.accuracyAt1)),\"accuracy_at_5\":\(fraction(all.accuracyAt5)),\"mrr\":\(fraction(all.mrr)),\"primary_accuracy_at_1\":\(fraction(all.primaryAccuracyAt1)),\"primary_mrr\":\(fraction(all.primaryMRR))}\n")
            } else {
                if bySource {
                    for (source, metrics) in sources.sorted(by: { $0.key < $1.key }) {
                        output.write("source \(source.isEmpty ? "(none)" : source): n \(metrics.n), Accuracy@1 \(fixed(metrics.accuracyAt1)), Accuracy@5 \(fixed(metrics.accuracyAt5)), MRR \(fixed(metrics.mrr)), primary Accuracy@1 \(fixed(metrics.primaryAccuracyAt1))\n")
                    }
                }
                output.write("n: \(all.n)\nAccuracy@1: \(fixed(all.accuracyAt1))\nAccuracy@5: \(fixed(all.accuracyAt5))\nMRR: \(fixed(all.mrr))\nPrimary Accuracy@1: \(fixed(all.primaryAccuracyAt1))\nPrimary MRR: \(fixed(all.primaryMRR))\n")
            }
            output.flush()
        } catch let error as ModelDirectoryError {
            throw CommandError.failure(error.description)
        }
    }

    /// The worst-ranked names with their keywords and the model's top 5.
    private func failureReport(_ labelled: [LabelledName], ranks: [Int?], index: KeywordIndex, components: ModelComponents) -> String {
        let order = labelled.indices.filter { (ranks[$0] ?? Int.max) > 1 }
            .sorted { (ranks[$0] ?? Int.max, $0) > (ranks[$1] ?? Int.max, $1) }
        var out = ""
        for i in order.prefix(failures) {
            let name = components.analyzer.analyzeName(labelled[i].name)
            let top = index.search(name.lexical, k: 5).map { "\(index.entries[$0.index].keyword) \(fixed(Double($0.score)))" }
            out += "FAIL rank \(ranks[i].map(String.init) ?? "-") [\(labelled[i].source)] \(labelled[i].name) → \(labelled[i].keywords.joined(separator: "|"))\n"
            out += "     tokens: \(name.surfaces.joined(separator: " ")) | top: \(top.joined(separator: ", "))\n"
        }
        return out
    }

    private func fixed(_ value: Double) -> String { String(format: "%.4f", value) }
    private func fraction(_ value: Double) -> String { String(format: "%.6f", value) }
}
