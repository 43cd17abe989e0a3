import Foundation
import KeywordIndex
import KeywordModel
import KeywordService

/// `kwsuggest train`: trains the encoder on labelled names and writes a complete model directory.
struct TrainCommand: Command {
    static let configuration = CommandConfiguration(
        name: "train",
        abstract: "Trains the encoder and writes a model directory.",
        usage: "kwsuggest train --data <file> ... [--dev <file>] --out <dir> [--epochs <n>] [--seed <s>]",
        options: [
            OptionSpec(names: ["--data"], valueName: "file", help: "Training names, JSON lines {\"name\": …, \"keywords\": […]}; repeatable (files are joined in order).",
                       isRepeatable: true),
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
            OptionSpec(names: ["--calibration-fraction"], valueName: "f", help: "Share of the training names held out of encoder training to fit the confidence calibration, 0-0.5; 0 fits none (default: 0.1)."),
            OptionSpec(names: ["--calibration-split"], valueName: "key", help: "Hash the name or the primary keyword to choose them: name or keyword (default: name)."),
        ],
        discussion: """
            Deterministic for a seed and a thread count. Prints epoch, loss, seconds and dev Accuracy@5. The
            calibration names are chosen by a 64-bit FNV-1a hash, so the split is the same on every run; the
            fitted calibrator (calibration.json) gives each suggestion its confidence.
            """
    )

    var data: [String]
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
    var calibrationFraction: Double
    var calibrationKey: CalibrationSplit.Key

    init(arguments: ParsedArguments) throws {
        try arguments.expectNoPositionals()
        _ = try arguments.required("--data", placeholder: "file")
        let out = try arguments.required("--out", placeholder: "dir")
        data = arguments.all("--data")
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
        let fraction = arguments.value("--calibration-fraction") ?? "0.1"
        guard let value = Double(fraction), (0...0.5).contains(value) else {
            throw CommandError.usage("The value '\(fraction)' is invalid for '--calibration-fraction <f>': expected a number from 0 to 0.5.")
        }
        calibrationFraction = value
        let key = arguments.value("--calibration-split") ?? "name"
        guard let split = CalibrationSplit.Key(rawValue: key) else {
            throw CommandError.usage("The value '\(key)' is invalid for '--calibration-split <key>': expected name or keyword.")
        }
        calibrationKey = split
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
        var plan = TrainingPlan(data: data, dev: dev, out: out, base: base)
        plan.hidden = hidden
        plan.sharedEncoder = shared
        plan.options.epochs = epochs
        plan.options.seed = UInt64(seed)
        plan.options.attention = attention
        plan.options.threads = threads
        plan.options.hardNegatives = hardNegatives
        plan.options.randomNegatives = randomNegatives
        plan.calibration = CalibrationSplit(fraction: calibrationFraction, key: calibrationKey)
        plan.command = (["kwsuggest"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
        do {
            _ = try TrainingJob.run(plan) { line in
                print(line)
                fflush(nil)
            }
        } catch let error as ModelDirectoryError {
            throw CommandError.failure(error.description)
        }
    }
}
