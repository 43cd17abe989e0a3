import Foundation
import KeywordService

/// `kwsuggest calibrate`: (re)fits the confidence calibration of an existing model directory.
struct CalibrateCommand: Command {
    static let data = Option<String>("--data", value: "file",
                                     help: "Labelled names the encoder was not trained on, JSON lines; repeatable.",
                                     required: true, repeatable: true)
    static let model = SharedOptions.model
    static let threads = Option<Int>("--threads", value: "n", help: "Worker threads.", default: 2, range: 1...64)

    static let configuration = CommandConfiguration(
        name: "calibrate",
        abstract: "Fits the confidence calibration of a model directory on held-out names.",
        options: [data.spec, model.spec, threads.spec],
        discussion: """
            Writes calibration.json (the logistic calibrator and its whole precision → threshold curve) and
            updates manifest.json; the model version changes with the calibration. Use names the encoder never
            saw in training: `kwsuggest train` holds out its own calibration split for this.
            """
    )

    var data: [String]
    var model: String
    var threads: Int

    init(arguments: ParsedArguments) throws {
        try arguments.expectNoPositionals()
        data = try arguments.all(Self.data)
        model = resolveModelDirectory(try arguments.get(Self.model))
        threads = try arguments.require(Self.threads)
    }

    func run() throws {
        do {
            let manifest = try TrainingJob.recalibrate(directory: model, data: data, threads: threads) { line in
                print(line)
                fflush(nil)
            }
            print("model version \(manifest.modelVersion)")
        } catch let error as ModelDirectoryError {
            throw CommandError.failure(error.description)
        }
    }
}
