import Foundation
import KeywordIndex
import ModelStorage
import StoreInterface
import SuggestionRuntime
import Training
import TrainingData

/// `kwsuggest eval`: Accuracy@1, Accuracy@5, MRR and primary Accuracy@1 / MRR of a model on labelled names.
struct EvalCommand: Command {
    static let data = Option<String>("--data", value: "file",
                                     help: "JSON lines: {\"name\": …, \"keywords\": [primary, acceptable …]}.", required: true)
    static let model = SharedOptions.model
    static let keywords = Option<String>("--keywords", value: "file",
                                         help: "Candidate keywords, one per line; replaces the model's list.")
    static let json = Flag("--json", help: "Print the metrics as one JSON object on the last line.")
    static let ablation = Option<Ablation>("--ablation", value: "ablation",
                                           help: "What to leave out: " + Ablation.allCases.map(\.rawValue).joined(separator: ", ") + ".",
                                           default: Ablation.none)
    static let hubness = Option<Float>("--hubness", value: "beta", help: "CSLS hubness correction strength.",
                                       default: 0, defaultText: "0, off", check: { $0 >= 0 ? nil : "a number ≥ 0" })
    static let evidenceScale = Option<Float>("--evidence-scale", value: "x", help: "Multiply the learned exact-match weights.",
                                             default: 1, defaultText: "1", check: { $0 >= 0 ? nil : "a number ≥ 0" })
    static let bySource = Flag("--by-source", help: "Also print the metrics of each data source.")
    static let failures = Option<Int>("--failures", value: "n", help: "Print up to n names ranked worst, with the top 5.",
                                      default: 0, defaultText: nil, check: { $0 >= 0 ? nil : "a non-negative integer" })
    static let bootstrap = Option<Int>("--bootstrap", value: "n", help: "Bootstrap resamples for the calibration intervals.",
                                       default: 1000, range: 1...100_000)

    static let configuration = CommandConfiguration(
        name: "eval",
        abstract: "Evaluates a model on labelled product names.",
        options: [data.spec, model.spec, keywords.spec, json.spec, ablation.spec, hubness.spec, evidenceScale.spec,
                  bySource.spec, failures.spec, bootstrap.spec],
        discussion: """
            A name's rank is the best rank of any of its keywords among the candidates; a name none of whose
            keywords is a candidate counts as a miss. Primary Accuracy@1 and primary MRR count only the first
            listed keyword (the most specific one): ごま first for 「白ごま」 labelled [白ごま, ごま] is a hit for
            Accuracy@1 and a miss for primary Accuracy@1. With a calibrated model (calibration.json) it also reports
            the expected calibration error (10 equal-width bins) and the Brier score of the top suggestion and
            of the top five, and the share of names auto-accepted at the model's thresholds for 95, 98 and
            99 % top-1 precision with the precision reached, each with a 95 % bootstrap interval over names.
            Ablations: no-attention = uniform weights over name words;
            untrained = raw word vectors with the article's attention, no exact-match evidence; lexical = the
            containment baseline, keywords contained in the normalised name, longest first.
            """
    )

    enum Ablation: String, ArgumentChoice {
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
    var bootstrap: Int

    init(arguments: ParsedArguments) throws {
        try arguments.expectNoPositionals()
        data = try arguments.require(Self.data)
        model = resolveModelDirectory(try arguments.get(Self.model))
        keywordsFile = try arguments.get(Self.keywords)
        json = arguments.get(Self.json)
        ablation = try arguments.require(Self.ablation)
        hubness = try arguments.require(Self.hubness)
        evidenceScale = try arguments.require(Self.evidenceScale)
        bySource = arguments.get(Self.bySource)
        failures = try arguments.require(Self.failures)
        bootstrap = try arguments.require(Self.bootstrap)
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
            let roles = KeywordRoles(model: components)
            let rankings = Evaluator.rankings(labelled, index: index, analyzer: components.analyzer, roles: roles,
                                              mode: ablation == .lexical ? .containment : .model)
            let ranks = rankings.map(\.best)
            let (all, sources) = Evaluator.metrics(labelled, rankings: rankings)
            let output = OutputBuffer()
            if failures > 0 { output.write(failureReport(labelled, ranks: ranks, index: index, components: components)) }
            // Confidence is the model's: measured only for the model as trained (no ablation, the model's scale).
            var calibration: CalibrationMetrics?
            if let calibrator = components.calibration, ablation == .none, hubness == 0, evidenceScale == 1 {
                let samples = CalibrationFitting.collect(labelled, index: index, analyzer: components.analyzer, roles: roles,
                                                         depth: 5)
                calibration = CalibrationMetrics.measure(samples, calibration: calibrator, bootstrap: bootstrap)
            }
            if json {
                output.write("{\"n\":\(all.n),\"accuracy_at_1\":\(fraction(all.accuracyAt1)),\"accuracy_at_5\":\(fraction(all.accuracyAt5)),\"mrr\":\(fraction(all.mrr)),\"primary_accuracy_at_1\":\(fraction(all.primaryAccuracyAt1)),\"primary_mrr\":\(fraction(all.primaryMRR)),\"calibration\":\(calibration.map(CalibrationReport.json) ?? "null")}\n")
            } else {
                if bySource {
                    for (source, metrics) in sources.sorted(by: { $0.key < $1.key }) {
                        output.write("source \(source.isEmpty ? "(none)" : source): n \(metrics.n), Accuracy@1 \(fixed(metrics.accuracyAt1)), Accuracy@5 \(fixed(metrics.accuracyAt5)), MRR \(fixed(metrics.mrr)), primary Accuracy@1 \(fixed(metrics.primaryAccuracyAt1))\n")
                    }
                }
                output.write("n: \(all.n)\nAccuracy@1: \(fixed(all.accuracyAt1))\nAccuracy@5: \(fixed(all.accuracyAt5))\nMRR: \(fixed(all.mrr))\nPrimary Accuracy@1: \(fixed(all.primaryAccuracyAt1))\nPrimary MRR: \(fixed(all.primaryMRR))\n")
                if let calibration { output.write(CalibrationReport.text(calibration)) }
            }
            output.flush()
        } catch let error as ModelDirectoryError {
            throw CommandError.failure(error.description)
        }
    }

    /// The worst-ranked names with their keywords and the model's top 5.
    private func failureReport(_ labelled: [LabelledName], ranks: [Int?], index: KeywordIndex, components: LoadedModel) -> String {
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
