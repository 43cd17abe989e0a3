import Foundation
import KeywordModel
import ModelStorage
import Training

/// `kwsuggest train`: trains the encoder on labelled names and writes a complete model directory.
struct TrainCommand: Command {
    static let data = Option<String>("--data", value: "file",
                                     help: "Training names, JSON lines {\"name\": …, \"keywords\": […]}; repeatable (the files are joined in order).",
                                     required: true, repeatable: true)
    static let dev = Option<String>("--dev", value: "file", help: "Dev names: Accuracy@5 is printed after every epoch.")
    static let out = Option<String>("--out", value: "dir",
                                    help: "Output model directory (other files are copied from --model).", required: true)
    static let epochs = Option<Int>("--epochs", value: "n", help: "Epochs.", default: TrainingOptions().epochs, range: 1...1000)
    static let seed = Option<Int>("--seed", value: "s", help: "Random seed.", default: Int(TrainingOptions().seed),
                                  check: { $0 >= 0 ? nil : "a non-negative integer" })
    static let model = Option<String>("--model", value: "dir", help: "Base model directory: vectors, lexicon, keywords.",
                                      defaultText: SharedOptions.model.spec.defaultText)
    static let hidden = Option<Int>("--hidden", value: "h", help: "Encoder state width.",
                                    default: ModelConfig.defaultHiddenDimension, range: 2...1024)
    static let separate = Flag("--separate", help: "One encoder each for names and keywords (default: one shared).")
    static let hardNegatives = Option<Int>("--hard-negatives", value: "n", help: "Hard negatives per name, re-mined every epoch.",
                                           default: TrainingOptions().hardNegatives, range: 0...256)
    static let randomNegatives = Option<Int>("--random-negatives", value: "n", help: "Random negatives per batch.",
                                             default: TrainingOptions().randomNegatives, range: 0...4096)
    static let noAttention = Flag("--no-attention", help: "Train with uniform weights over name words.")
    static let threads = Option<Int>("--threads", value: "n", help: "Worker threads.", default: TrainingOptions().threads,
                                     range: 1...64)
    static let maskAlternatives = Flag("--mask-alternatives",
                                       help: "Leave a name's other keywords out of its loss (ablation; default: they must rank below the first).")
    static let calibrationFraction = Option<Double>(
        "--calibration-fraction", value: "f",
        help: "Share of the training names held out of encoder training to fit the confidence calibration; 0 fits none.",
        default: CalibrationSplit().fraction, range: 0...0.5)
    static let calibrationSplit = Option<CalibrationSplit.Key>(
        "--calibration-split", value: "key", help: "What the hash that picks the calibration names reads: name, keyword (the primary one) or both (half each).",
        default: CalibrationSplit().key)

    static let configuration = CommandConfiguration(
        name: "train",
        abstract: "Trains the encoder and writes a model directory.",
        options: [data.spec, dev.spec, out.spec, epochs.spec, seed.spec, model.spec, hidden.spec, separate.spec,
                  hardNegatives.spec, randomNegatives.spec, noAttention.spec, threads.spec, calibrationFraction.spec,
                  calibrationSplit.spec, maskAlternatives.spec],
        discussion: """
            Deterministic for a seed and a thread count. Prints epoch, loss, seconds and dev Accuracy@5. The
            calibration names are chosen by a 64-bit FNV-1a hash, so the split is the same on every run; the
            calibrator fitted on them (calibration.json) gives each suggestion its confidence.
            """
    )

    var plan: TrainingPlan

    init(arguments: ParsedArguments) throws {
        try arguments.expectNoPositionals()
        plan = TrainingPlan(data: try arguments.all(Self.data), dev: try arguments.get(Self.dev),
                            out: try arguments.require(Self.out),
                            base: resolveModelDirectory(try arguments.get(Self.model)))
        plan.hidden = try arguments.require(Self.hidden)
        plan.sharedEncoder = !arguments.get(Self.separate)
        plan.options.epochs = try arguments.require(Self.epochs)
        plan.options.seed = UInt64(try arguments.require(Self.seed))
        plan.options.attention = !arguments.get(Self.noAttention)
        plan.options.threads = try arguments.require(Self.threads)
        plan.options.hardNegatives = try arguments.require(Self.hardNegatives)
        plan.options.randomNegatives = try arguments.require(Self.randomNegatives)
        plan.options.primaryFirst = !arguments.get(Self.maskAlternatives)
        plan.calibration = CalibrationSplit(fraction: try arguments.require(Self.calibrationFraction),
                                            key: try arguments.require(Self.calibrationSplit))
        plan.command = (["kwsuggest"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
    }

    func run() throws {
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

extension CalibrationSplit.Key: ArgumentChoice {}
