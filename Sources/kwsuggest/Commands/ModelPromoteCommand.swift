import EventLog
import Foundation
import ModelStorage
import ModelVersions
import StoreInterface
import StoreOpening
import TeamQueue
import Training
import TrainingData

/// `kwsuggest model promote VERSION`: makes a stored version live, through the gate unless forced.
struct ModelPromoteCommand: Command {
    static let store = ModelCommand.store
    static let gate = Option<String>("--gate", value: "file",
                                     help: "Labelled names (JSON lines) to compare on; repeatable.",
                                     defaultText: "the candidate recipe's dev file", repeatable: true)
    static let force = Flag("--force", help: "Skip the gate (the store and the log record that it was skipped).")
    static let model = Option<String>("--model", value: "dir", help: "The model serves use while no version is live; compared against then.",
                                      defaultText: SharedOptions.model.spec.defaultText)
    static let newest = Option<Int>("--newest", value: "n",
                                    help: "Newest decided names the candidate did not train on, added as the gate set 'feedback'.",
                                    default: 2000, range: 0...1_000_000)
    static let autoAcceptPrecision = Option<Double>(
        "--auto-accept-precision", value: "p",
        help: "The precision the calibration check reads each model's auto-accept threshold for.",
        default: ModelCalibration.defaultPrecision, range: 0.5...1)

    static let configuration = CommandConfiguration(
        name: "model promote",
        abstract: "Makes a stored version live, if the gate passes.",
        arguments: [ArgumentSpec(name: "<version>", help: "A version from 'kwsuggest model list'.")],
        options: [store.spec, gate.spec, force.spec, model.spec, newest.spec, autoAcceptPrecision.spec],
        discussion: """
            The gate ranks each set with the live model and the candidate, each with its own keyword list and the
            store's keyword changes, and compares Acc@1 name by name. It refuses (exit 1) when the candidate is
            worse on any set by more than twice the standard error of the paired difference (the noise). The
            sets: each --gate file (default: the dev file of the candidate's recipe), and 'feedback': the
            store's decisions after the last one the candidate trained on, resolved as train --feedback
            resolves them. On each set it also compares calibration: what each model's calibration would
            auto-accept at --auto-accept-precision (precision and coverage) and the top suggestion's ECE; it
            refuses a candidate whose precision there is below the target and below the live model's by more than
            the noise (twice the standard error of the difference), or whose ECE is worse by more than the noise
            (twice the bootstrap standard deviation of the paired difference). The comparison is printed and
            stored with the version. Serves swap to the new version within 5 s.
            """
    )

    var version: String
    var gateFiles: [String]
    var forced: Bool
    var fallback: String
    var newestNames: Int
    var target: Double
    var arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        version = try ModelCommand.positional(arguments, "<version>")
        gateFiles = try arguments.all(Self.gate)
        forced = arguments.get(Self.force)
        fallback = resolveModelDirectory(try arguments.get(Self.model))
        newestNames = try arguments.require(Self.newest)
        target = try arguments.require(Self.autoAcceptPrecision)
        self.arguments = arguments
    }

    func run() throws {
        let (location, registry) = try ModelCommand.registry(arguments)
        defer { registry.close() }
        let catalog = try ModelCommand.perform { try registry.catalog() }
        guard let candidate = catalog.model(version) else {
            throw CommandError.failure("no version \(version) in the registry of \(location.displayName) (model list shows the stored ones)")
        }
        let live = catalog.head.live
        var report = GateReport(live: live ?? "--model \(fallback)", candidate: version, sets: [], forced: forced)
        if forced {
            EventLog.record(.warning, "model_promote_forced", ["version": version, "live": live ?? "", "store": location.displayName])
        } else {
            (report.sets, report.calibration) = try compare(candidate, live: live, registry: registry, location: location)
            for line in report.lines { print(line) }
            guard report.passed else {
                throw CommandError.failure("the gate refused \(version): worse than \(report.live) beyond noise on "
                    + report.refusedSets.joined(separator: ", ") + " (--force skips the gate)")
            }
        }
        try ModelCommand.perform {
            try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in
                guard catalog.head.live == live else {
                    throw .failed("the live version changed to \(catalog.head.live ?? "none") while the gate ran; promote again")
                }
                try catalog.promote(version, gate: report.json)
            }
        }
        print("promoted \(version) (was \(live ?? "none: the --model of each serve"))\(forced ? ", gate skipped (--force)" : "")")
    }

    /// Loads both models and compares them on the gate sets.
    private func compare(_ candidate: RegisteredModel, live: String?, registry: any ModelRegistry,
                         location: StoreLocation) throws -> ([GateComparison], [GateCalibration]) {
        try ModelCommand.perform {
            let candidateModel = try ModelDirectory.load(path: try registry.directory(of: candidate.version))
            let liveModel = try ModelDirectory.load(path: try live.map { try registry.directory(of: $0) } ?? fallback)
            var sets: [GateSet] = []
            var files = gateFiles
            if files.isEmpty, let dev = candidateModel.manifest?.recipe?.dev {
                try dev.requireExisting()
                files = [dev.path]
            }
            for file in files { sets.append(GateSet(name: (file as NSString).lastPathComponent, data: try LabelledData.load(path: file))) }
            let store = try location.open()
            defer { store.close() }
            let withdrawn = try location.openQueue(feedbackStore: store, policy: QueuePolicy()).withdrawnFeedback()
            let records = try FeedbackLabels.records(from: store, after: candidate.trainedThrough ?? 0, withdrawn: withdrawn)
            let labels = FeedbackLabels(records)
            sets.append(GateSet(name: "feedback", data: Array(labels.names.suffix(newestNames))))
            let overlay = try store.loadOverlay()
            if sets.allSatisfy(\.data.isEmpty) {
                throw CommandError.failure("no gate set has names: give --gate FILE (the candidate's recipe names no dev file)")
            }
            return try ModelGate.evaluate(live: liveModel, candidate: candidateModel, overlay: overlay, sets: sets,
                                          target: target)
        }
    }
}
