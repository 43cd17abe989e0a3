import Foundation
import KeywordService

/// `kwsuggest calibrate`: (re)fits the confidence calibration of an existing model directory.
struct CalibrateCommand: Command {
    static let configuration = CommandConfiguration(
        name: "calibrate",
        abstract: "Fits the confidence calibration of a model directory on held-out names.",
        usage: "kwsuggest calibrate --data <file> ... [--model <dir>] [--threads <n>]",
        options: [
            OptionSpec(names: ["--data"], valueName: "file",
                       help: "Labelled names the encoder was not trained on, JSON lines; repeatable.", isRepeatable: true),
            OptionSpec(names: ["--model"], valueName: "dir", help: "Model directory (default: $KWSUGGEST_MODEL or models/default)."),
            OptionSpec(names: ["--threads"], valueName: "n", help: "Worker threads (default: 2)."),
        ],
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
        _ = try arguments.required("--data", placeholder: "file")
        data = arguments.all("--data")
        model = resolveModelDirectory(arguments.value("--model"))
        threads = try arguments.int("--threads", default: 2)
    }

    func validate() throws {
        guard (1...64).contains(threads) else { throw CommandError.usage("The value '\(threads)' is invalid for '--threads <n>': expected 1 to 64.") }
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
