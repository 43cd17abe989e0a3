import Foundation
import ModelStorage
import Training

/// `kwsuggest calibrate`: (re)fits the confidence calibration of an existing model directory.
struct CalibrateCommand: Command {
    static let data = Option<String>("--data", value: "file",
                                     help: "Labelled names the encoder was not trained on, JSON lines; repeatable.",
                                     required: true, repeatable: true)
    static let model = SharedOptions.model
    static let threads = Option<Int>("--threads", value: "n", help: "Worker threads.", default: 2, range: 1...64)
    static let calibrationFraction = Option<Double>(
        "--calibration-fraction", value: "f",
        help: "Fit only on the calibration split of --data: the names `train --calibration-fraction f` held out of encoder training.",
        range: 0.001...0.5)
    static let calibrationSplit = Option<CalibrationSplit.Key>(
        "--calibration-split", value: "key", help: "With --calibration-fraction: what the split's hash reads, as in train (name, keyword or both).",
        default: .both)

    static let configuration = CommandConfiguration(
        name: "calibrate",
        abstract: "Fits the confidence calibration of a model directory on held-out names.",
        options: [data.spec, model.spec, threads.spec, calibrationFraction.spec, calibrationSplit.spec],
        discussion: """
            Writes calibration.json (the logistic calibrator and its whole precision → threshold curve) and
            updates manifest.json; the model version changes with the calibration. Use names the encoder never
            saw in training: `kwsuggest train` holds out its own calibration split for this, and
            `--calibration-fraction` with the training options (and the training files as --data) refits on
            exactly that split. Thresholds are read off the curve by the one-sided 95 % Wilson lower bound of
            top-1 precision (threshold_rule wilson-lower-95).
            """
    )

    var data: [String]
    var model: String
    var threads: Int
    var split: CalibrationSplit?

    init(arguments: ParsedArguments) throws {
        try arguments.expectNoPositionals()
        data = try arguments.all(Self.data)
        model = resolveModelDirectory(try arguments.get(Self.model))
        threads = try arguments.require(Self.threads)
        if let fraction = try arguments.get(Self.calibrationFraction) {
            split = CalibrationSplit(fraction: fraction, key: try arguments.require(Self.calibrationSplit))
        }
    }

    func run() throws {
        do {
            let manifest = try TrainingJob.recalibrate(directory: model, data: data, split: split, threads: threads) { line in
                print(line)
                fflush(nil)
            }
            print("model version \(manifest.modelVersion)")
        } catch let error as ModelDirectoryError {
            throw CommandError.failure(error.description)
        }
    }
}
