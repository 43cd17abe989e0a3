import Foundation
import KeywordIndex
import KeywordModel
import KeywordService

/// `kwsuggest train`: trains the encoder on labelled names and writes a complete model directory.
struct TrainCommand: Command {
    static let configuration = CommandConfiguration(
        name: "train",
        abstract: "Trains the encoder and writes a model directory.",
        usage: "kwsuggest train --data <file> [--dev <file>] --out <dir> [--epochs <n>] [--seed <s>]",
        options: [
            OptionSpec(names: ["--data"], valueName: "file", help: "Training names, JSON lines {\"name\": …, \"keywords\": […]}."),
            OptionSpec(names: ["--dev"], valueName: "file", help: "Dev names: Accuracy@5 is printed after every epoch."),
            OptionSpec(names: ["--out"], valueName: "dir", help: "Output model directory (other files are copied from --model)."),
            OptionSpec(names: ["--epochs"], valueName: "n", help: "Epochs (default: \(TrainingOptions().epochs))."),
            OptionSpec(names: ["--seed"], valueName: "s", help: "Random seed (default: 1)."),
            OptionSpec(names: ["--model"], valueName: "dir", help: "Base model directory: vectors, lexicon, keywords (default: $KWSUGGEST_MODEL or models/default)."),
            OptionSpec(names: ["--hidden"], valueName: "h", help: "Encoder state width (default: 64)."),
            OptionSpec(names: ["--separate"], valueName: nil, help: "One encoder each for names and keywords (default: one shared)."),
            OptionSpec(names: ["--hard-negatives"], valueName: "n", help: "Hard negatives per name, re-mined every epoch (default: \(TrainingOptions().hardNegatives))."),
            OptionSpec(names: ["--random-negatives"], valueName: "n", help: "Random negatives per batch (default: \(TrainingOptions().randomNegatives))."),
            OptionSpec(names: ["--no-attention"], valueName: nil, help: "Train with uniform weights over name words."),
            OptionSpec(names: ["--threads"], valueName: "n", help: "Worker threads (default: 2)."),
            OptionSpec(names: ["--mask-alternatives"], valueName: nil, help: "Leave a name's other keywords out of its loss (ablation; default: they must rank below the first)."),
        ],
        discussion: "Deterministic for a seed and a thread count. Prints epoch, loss, seconds and dev Accuracy@5."
    )

    var data: String
    var dev: String?
    var out: String
    var base: String
    var epochs: Int
    var seed: Int
    var hidden: Int
    var shared: Bool
    var attention: Bool
    var threads: Int
    var hardNegatives: Int
    var randomNegatives: Int
    var primaryFirst: Bool

    init(arguments: ParsedArguments) throws {
        try arguments.expectNoPositionals()
        let data = try arguments.required("--data", placeholder: "file")
        let out = try arguments.required("--out", placeholder: "dir")
        self.data = data
        self.out = out
        dev = arguments.value("--dev")
        base = resolveModelDirectory(arguments.value("--model"))
        epochs = try arguments.int("--epochs", default: TrainingOptions().epochs)
        seed = try arguments.int("--seed", default: 1)
        hidden = try arguments.int("--hidden", default: 64)
        shared = !arguments.flag("--separate")
        hardNegatives = try arguments.int("--hard-negatives", default: TrainingOptions().hardNegatives)
        randomNegatives = try arguments.int("--random-negatives", default: TrainingOptions().randomNegatives)
        attention = !arguments.flag("--no-attention")
        threads = try arguments.int("--threads", default: 2)
        primaryFirst = !arguments.flag("--mask-alternatives")
    }

    func validate() throws {
        guard (1...1000).contains(epochs) else { throw CommandError.usage("The value '\(epochs)' is invalid for '--epochs <n>': expected 1 to 1000.") }
        guard seed >= 0 else { throw CommandError.usage("The value '\(seed)' is invalid for '--seed <s>': expected a non-negative integer.") }
        guard (2...1024).contains(hidden) else { throw CommandError.usage("The value '\(hidden)' is invalid for '--hidden <h>': expected 2 to 1024.") }
        guard (0...256).contains(hardNegatives) else { throw CommandError.usage("The value '\(hardNegatives)' is invalid for '--hard-negatives <n>': expected 0 to 256.") }
        guard (0...4096).contains(randomNegatives) else { throw CommandError.usage("The value '\(randomNegatives)' is invalid for '--random-negatives <n>': expected 0 to 4096.") }
        guard (1...64).contains(threads) else { throw CommandError.usage("The value '\(threads)' is invalid for '--threads <n>': expected 1 to 64.") }
    }

    func run() throws {
        do {
            let started = Date()
            let training = try LabelledData.load(path: data)
            let devData = try dev.map { try LabelledData.load(path: $0) }
            let components = try ModelDirectory.load(path: base, requireEncoder: false)
            var options = TrainingOptions()
            options.epochs = epochs
            options.seed = UInt64(seed)
            options.attention = attention
            options.threads = threads
            options.hardNegatives = hardNegatives
            options.randomNegatives = randomNegatives
            options.primaryFirst = primaryFirst
            let config = ModelConfig(inputDimension: components.vectors.dimension, hiddenDimension: hidden, sharedEncoder: shared)
            let run = ModelTraining(base: components, config: config, options: options)
            printLine("train: \(training.count) names, \(ModelTraining.universe(training).count) keywords; dev: \(devData?.count ?? 0) names; hidden \(hidden), \(shared ? "shared" : "separate") encoders, attention \(attention ? "on" : "off"), negatives \(hardNegatives) hard + \(randomNegatives) random, seed \(seed)")
            var lastDev: EvaluationMetrics?
            var weights = run.train(training) { report, weights in
                var line = "epoch \(report.epoch)/\(epochs)  loss \(String(format: "%.4f", report.loss))  \(String(format: "%.1f", report.seconds))s"
                if let devData {
                    let metrics = run.evaluate(weights, on: devData, scoring: ScoringOptions(attention: attention))
                    lastDev = metrics
                    line += "  dev Acc@1 \(String(format: "%.4f", metrics.accuracyAt1))  Acc@5 \(String(format: "%.4f", metrics.accuracyAt5))  MRR \(String(format: "%.4f", metrics.mrr))  primary Acc@1 \(String(format: "%.4f", metrics.primaryAccuracyAt1))"
                }
                printLine(line)
            }
            var evidenceScale: Float = 1
            if let devData {
                let calibrated = run.calibrateEvidence(weights, on: devData) { scale, metrics in
                    printLine("evidence ×\(scale): dev Acc@1 \(String(format: "%.4f", metrics.accuracyAt1))  Acc@5 \(String(format: "%.4f", metrics.accuracyAt5))  MRR \(String(format: "%.4f", metrics.mrr))  primary MRR \(String(format: "%.4f", metrics.primaryMRR))")
                }
                weights = calibrated.weights
                evidenceScale = calibrated.scale
                lastDev = run.evaluate(weights, on: devData, scoring: ScoringOptions(attention: attention))
                printLine("chose evidence ×\(evidenceScale) (best dev mean of MRR and primary MRR), folded into the saved weights")
            }
            let seconds = Date().timeIntervalSince(started)
            var manifest = components.manifest ?? ModelManifest(modelVersion: "")
            manifest.formatVersion = 1
            let digest = SHA256.hex(Array(try Data(contentsOf: URL(fileURLWithPath: data))))
            // Data hash, then the hash of encoder.bin: a retrained model (same data, other code) gets a new version.
            let weightsDigest = SHA256.hex(Array(Checkpoint.valuesData(weights)))
            manifest.modelVersion = "kwsuggest-conv\(hidden)-seed\(seed)-" + String(digest.prefix(8)) + "-w" + String(weightsDigest.prefix(8))
            manifest.trainingData = (data as NSString).lastPathComponent
            manifest.trainingDataSHA256 = digest
            manifest.seed = UInt64(seed)
            manifest.epochs = epochs
            manifest.trainingSeconds = (seconds * 10).rounded() / 10
            manifest.evidenceScale = Double(evidenceScale)
            manifest.command = (["kwsuggest"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
            manifest.hidden = hidden
            manifest.sharedEncoder = shared
            if let lastDev, let dev {
                var metrics = manifest.devMetrics ?? [:]
                metrics[(dev as NSString).lastPathComponent] = ModelManifest.Metrics(
                    n: lastDev.n, accuracyAt1: lastDev.accuracyAt1, accuracyAt5: lastDev.accuracyAt5, mrr: lastDev.mrr)
                manifest.devMetrics = metrics
            }
            try ModelDirectoryWriter.write(weights, manifest: manifest, to: out, base: base)
            printLine("wrote \(out) in \(String(format: "%.1f", seconds))s")
        } catch let error as ModelDirectoryError {
            throw CommandError.failure(error.description)
        }
    }

    private func printLine(_ text: String) {
        print(text)
        fflush(nil)
    }
}
