import Foundation
import KeywordIndex
import KeywordModel
import KeywordService

/// `kwsuggest train`: trains the encoder on labelled names and writes a complete model directory.
struct TrainCommand: Command {
    static let data = Option<String>("--data", value: "file",
                                     help: "Training names, JSON lines {\"name\": …, \"keywords\": […]}.", required: true)
    static let dev = Option<String>("--dev", value: "file", help: "Dev names: Accuracy@5 is printed after every epoch.")
    static let out = Option<String>("--out", value: "dir",
                                    help: "Output model directory (other files are copied from --model).", required: true)
    static let epochs = Option<Int>("--epochs", value: "n", help: "Epochs.", default: TrainingOptions().epochs, range: 1...1000)
    static let seed = Option<Int>("--seed", value: "s", help: "Random seed.", default: 1,
                                  check: { $0 >= 0 ? nil : "a non-negative integer" })
    static let model = Option<String>("--model", value: "dir", help: "Base model directory: vectors, lexicon, keywords.",
                                      defaultText: SharedOptions.model.spec.defaultText)
    static let hidden = Option<Int>("--hidden", value: "h", help: "Encoder state width.", default: 64, range: 2...1024)
    static let separate = Flag("--separate", help: "One encoder each for names and keywords (default: one shared).")
    static let hardNegatives = Option<Int>("--hard-negatives", value: "n", help: "Hard negatives per name, re-mined every epoch.",
                                           default: TrainingOptions().hardNegatives, range: 0...256)
    static let randomNegatives = Option<Int>("--random-negatives", value: "n", help: "Random negatives per batch.",
                                             default: TrainingOptions().randomNegatives, range: 0...4096)
    static let noAttention = Flag("--no-attention", help: "Train with uniform weights over name words.")
    static let threads = Option<Int>("--threads", value: "n", help: "Worker threads.", default: 2, range: 1...64)

    static let configuration = CommandConfiguration(
        name: "train",
        abstract: "Trains the encoder and writes a model directory.",
        options: [data.spec, dev.spec, out.spec, epochs.spec, seed.spec, model.spec, hidden.spec, separate.spec,
                  hardNegatives.spec, randomNegatives.spec, noAttention.spec, threads.spec],
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

    init(arguments: ParsedArguments) throws {
        try arguments.expectNoPositionals()
        data = try arguments.require(Self.data)
        out = try arguments.require(Self.out)
        dev = try arguments.get(Self.dev)
        base = resolveModelDirectory(try arguments.get(Self.model))
        epochs = try arguments.require(Self.epochs)
        seed = try arguments.require(Self.seed)
        hidden = try arguments.require(Self.hidden)
        shared = !arguments.get(Self.separate)
        hardNegatives = try arguments.require(Self.hardNegatives)
        randomNegatives = try arguments.require(Self.randomNegatives)
        attention = !arguments.get(Self.noAttention)
        threads = try arguments.require(Self.threads)
    }

    func run() throws {
        do {
            let started = Date()
            let training = try LabelledData.load(path: data)
            let devData = try dev.map { try LabelledData.load(path: $0) }
            let components = try ModelDirectory.load(path: base, requireEncoder: false, verify: false)
            var options = TrainingOptions()
            options.epochs = epochs
            options.seed = UInt64(seed)
            options.attention = attention
            options.threads = threads
            options.hardNegatives = hardNegatives
            options.randomNegatives = randomNegatives
            let config = ModelConfig(inputDimension: components.vectors.dimension, hiddenDimension: hidden, sharedEncoder: shared)
            let run = ModelTraining(base: components, config: config, options: options)
            printLine("train: \(training.count) names, \(ModelTraining.universe(training).count) keywords; dev: \(devData?.count ?? 0) names; hidden \(hidden), \(shared ? "shared" : "separate") encoders, attention \(attention ? "on" : "off"), negatives \(hardNegatives) hard + \(randomNegatives) random, seed \(seed)")
            var lastDev: EvaluationMetrics?
            var weights = run.train(training) { report, weights in
                var line = "epoch \(report.epoch)/\(epochs)  loss \(String(format: "%.4f", report.loss))  \(String(format: "%.1f", report.seconds))s"
                if let devData {
                    let metrics = run.evaluate(weights, on: devData, scoring: ScoringOptions(attention: attention))
                    lastDev = metrics
                    line += "  dev Acc@1 \(String(format: "%.4f", metrics.accuracyAt1))  Acc@5 \(String(format: "%.4f", metrics.accuracyAt5))  MRR \(String(format: "%.4f", metrics.mrr))"
                }
                printLine(line)
            }
            var evidenceScale: Float = 1
            if let devData {
                let calibrated = run.calibrateEvidence(weights, on: devData) { scale, metrics in
                    printLine("evidence ×\(scale): dev Acc@1 \(String(format: "%.4f", metrics.accuracyAt1))  Acc@5 \(String(format: "%.4f", metrics.accuracyAt5))  MRR \(String(format: "%.4f", metrics.mrr))")
                }
                weights = calibrated.weights
                evidenceScale = calibrated.scale
                lastDev = run.evaluate(weights, on: devData, scoring: ScoringOptions(attention: attention))
                printLine("chose evidence ×\(evidenceScale) (best dev MRR), folded into the saved weights")
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
