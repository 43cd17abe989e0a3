// A whole training run: labelled files → calibration split → trained encoder → dev-chosen evidence scale →
// fitted confidence calibration → a complete model directory with its manifest. The CLI only parses options.
import Foundation
import KeywordIndex
import KeywordModel
import ModelStorage
import Platform
import SuggestionRuntime
import TrainingData

/// Which names leave encoder training to fit the confidence calibrator: a fixed fraction, chosen by a hash
/// (64-bit FNV-1a of the UTF-8 bytes) so the split is the same on every run and machine and a name's
/// duplicates land on the same side.
public struct CalibrationSplit: Sendable, Equatable {
    public enum Key: String, Sendable, CaseIterable {
        /// The product name: the calibration names' keywords are mostly seen in training, as in dev.
        case name
        /// The first (primary) keyword: whole keywords leave training, as in dev-unseen.
        case keyword
        /// Half the fraction by name, half by primary keyword: names with seen and with unseen keywords, as
        /// served (a list grows with keywords the encoder never saw).
        case both
    }

    public var fraction: Double
    public var key: Key

    public init(fraction: Double = 0.1, key: Key = .both) {
        self.fraction = fraction
        self.key = key
    }

    public func isCalibration(_ item: LabelledName) -> Bool {
        guard fraction > 0 else { return false }
        func below(_ text: String, _ share: Double) -> Bool {
            let hash = FNV1a.hash64(text.utf8)
            return Double(hash % 1_000_000) < share * 1_000_000
        }
        let keyword = item.keywords.first ?? ""
        switch key {
        case .name: return below(item.name, fraction)
        case .keyword: return below(keyword, fraction)
        case .both: return below(item.name, fraction / 2) || below(keyword, fraction / 2)
        }
    }

    /// (training names, calibration names), each in input order.
    public func split(_ data: [LabelledName]) -> (training: [LabelledName], calibration: [LabelledName]) {
        var training: [LabelledName] = [], calibration: [LabelledName] = []
        for item in data {
            if isCalibration(item) { calibration.append(item) } else { training.append(item) }
        }
        return (training, calibration)
    }

    public var description: String {
        let what = ["name": "the name", "keyword": "the primary keyword", "both": "the name (half) or the primary keyword (half)"][key.rawValue] ?? ""
        return "64-bit FNV-1a of \(what), fraction \(fraction)"
    }
}

/// Everything one training run needs.
public struct TrainingPlan: Sendable {
    public var data: [String]
    public var dev: String?
    public var out: String
    public var base: String
    public var hidden = 64
    /// Rows of the hashed sub-word table (0: word rows only).
    public var subwordBuckets = 0
    public var sharedEncoder = true
    public var options = TrainingOptions()
    public var calibration = CalibrationSplit()
    /// The command line, recorded in the manifest.
    public var command = ""
    /// Labelled names resolved from annotator decisions, trained on after `data` (see `FeedbackLabels` and
    /// `FeedbackInfluence`).
    public var feedback: [LabelledName] = []
    /// How many times each feedback name is trained on (at least 1): a store's decisions are a few hundred names
    /// beside tens of thousands of the recipe's, and they are the marketplace's own names, labelled by its
    /// annotators. Names the calibration split holds out are fitted on once.
    public var feedbackWeight = 1 {
        didSet { feedbackWeight = max(1, feedbackWeight) }
    }
    /// The copies of each of `feedback`, when they differ by name (`FeedbackInfluence`'s cap); empty: each is
    /// trained on `feedbackWeight` times.
    public var feedbackCopies: [Int] = []
    /// The most training copies one annotator's own labels add for one keyword (see `FeedbackInfluence`).
    public var feedbackCap = FeedbackInfluence.defaultCap {
        didSet { feedbackCap = max(1, feedbackCap) }
    }
    /// Keywords the feedback names that the base list lacks: they join the new model's list.
    public var newKeywords: [String] = []
    /// Keywords the feedback names that `FeedbackInfluence` holds back: not trained on, not listed.
    public var heldKeywords: [FeedbackInfluence.Held] = []
    /// Annotators' names per keyword that the cap trained on fewer times than the weight.
    public var cappedFeedback: [FeedbackInfluence.Capped] = []
    /// Keywords the feedback introduces that the list file cannot hold, with why: trained on, not listed.
    public var unlistedKeywords: [(keyword: String, problem: String)] = []
    /// Recorded in the manifest when the plan repeats another model's recipe.
    public var lineage: ModelManifest.Lineage?

    public init(data: [String], dev: String?, out: String, base: String) {
        self.data = data
        self.dev = dev
        self.out = out
        self.base = base
    }
}

extension TrainingPlan {
    /// The feedback names as training examples, each repeated its copies (round by round, so equal copies repeat
    /// the whole block), and the names the calibration split holds out, once each.
    func feedbackExamples() -> (training: [LabelledName], calibration: [LabelledName]) {
        let copies = feedbackCopies.count == feedback.count ? feedbackCopies
            : Array(repeating: feedbackWeight, count: feedback.count)
        var trained: [(name: LabelledName, copies: Int)] = []
        var calibrationNames: [LabelledName] = []
        for (item, count) in zip(feedback, copies) {
            if calibration.isCalibration(item) { calibrationNames.append(item) } else { trained.append((item, count)) }
        }
        var training: [LabelledName] = []
        for round in 0..<(trained.map(\.copies).max() ?? 0) {
            training += trained.filter { $0.copies > round }.map(\.name)
        }
        return (training, calibrationNames)
    }
}

public enum TrainingJob {
    /// Runs the plan and writes the model directory; `log` receives one line per step (epochs, evidence scales,
    /// calibration). Returns the manifest written.
    public static func run(_ plan: TrainingPlan, log: (String) -> Void) throws -> ModelManifest {
        let started = Date()
        var all: [LabelledName] = []
        var bytes: [UInt8] = []
        for path in plan.data {
            all += try LabelledData.load(path: path)
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ModelDirectoryError(path: path, message: "cannot read the file")
            }
            bytes += contents
        }
        for item in plan.feedback {
            bytes += Array((item.name + "\t" + item.keywords.joined(separator: "\t") + "\n").utf8)
        }
        let recipe = try plan.recipe()
        var (training, held) = plan.calibration.split(all)
        let feedback = plan.feedbackExamples()
        training += feedback.training
        held += feedback.calibration
        let devData = try plan.dev.map { try LabelledData.load(path: $0) }
        // The base is read, not served: its files are copied and re-checksummed into the new directory, so
        // one edited on purpose (a new keyword list, say) is fine.
        var components = try ModelDirectory.load(path: plan.base, requireEncoder: false, verify: false)
        components.categories = try ModelDirectory.categoriesToWrite(directory: plan.base)
        // Training and the evidence scale see brand rows as any other variety row; their own scale comes after.
        components.manifest?.brandEvidenceScale = nil
        components.keywords += plan.newKeywords
        let options = plan.options
        let config = ModelConfig(inputDimension: components.vectors.dimension, hiddenDimension: plan.hidden,
                                 sharedEncoder: plan.sharedEncoder, subwordBuckets: plan.subwordBuckets)
        let run = ModelTraining(base: components, config: config, options: options)
        log("train: \(training.count) names, \(ModelTraining.universe(training).count) keywords; calibration: \(held.count) names; dev: \(devData?.count ?? 0) names; hidden \(plan.hidden), sub-word buckets \(plan.subwordBuckets), \(plan.sharedEncoder ? "shared" : "separate") encoders, attention \(options.attention ? "on" : "off"), negatives \(options.hardNegatives) hard + \(options.randomNegatives) random, seed \(options.seed)")
        let scoring = ScoringOptions(attention: options.attention)
        var lastDev: EvaluationMetrics?
        var weights = run.train(training) { report, weights in
            var line = "epoch \(report.epoch)/\(options.epochs)  loss \(format(report.loss))  \(String(format: "%.1f", report.seconds))s"
            if let devData {
                let metrics = run.evaluate(weights, on: devData, scoring: scoring)
                lastDev = metrics
                line += "  dev Acc@1 \(format(metrics.accuracyAt1))  Acc@5 \(format(metrics.accuracyAt5))  MRR \(format(metrics.mrr))  primary Acc@1 \(format(metrics.primaryAccuracyAt1))"
            }
            log(line)
        }
        var evidenceScale: Float = 1
        if let devData {
            let chosen = run.chooseEvidenceScale(weights, on: devData) { scale, metrics in
                log("evidence ×\(scale): dev Acc@1 \(format(metrics.accuracyAt1))  Acc@5 \(format(metrics.accuracyAt5))  MRR \(format(metrics.mrr))  primary MRR \(format(metrics.primaryMRR))")
            }
            weights = chosen.weights
            evidenceScale = chosen.scale
            lastDev = run.evaluate(weights, on: devData, scoring: scoring)
            log("chose evidence ×\(evidenceScale) (best dev mean of MRR and primary MRR), folded into the saved weights")
        }
        var brandScale: Float = 1
        if let devData {
            brandScale = run.chooseBrandEvidenceScale(weights, on: devData) { scale, metrics in
                log("brand evidence \(scale): dev Acc@1 \(format(metrics.accuracyAt1))  Acc@5 \(format(metrics.accuracyAt5))  MRR \(format(metrics.mrr))  primary MRR \(format(metrics.primaryMRR))")
            }
            lastDev = run.evaluate(weights, on: devData, scoring: scoring, brandScale: brandScale)
            log("chose brand evidence \(brandScale) (best dev mean of MRR and primary MRR)")
        }
        var manifest = components.manifest ?? ModelManifest(modelVersion: "")
        manifest.brandEvidenceScale = Double(brandScale)
        components.manifest = manifest
        let weightsDigest = SHA256.hex(Array(Checkpoint.valuesData(weights)))
        var calibration: ModelCalibration?
        if !held.isEmpty {
            var trained = components
            trained.weights = weights
            calibration = try fitCalibration(trained, on: held, encoderSHA256: weightsDigest, threads: options.threads,
                                             description: calibrationDescription(files: plan.data.map(fileName).joined(separator: " + "),
                                                                                 split: plan.calibration))
            if let calibration { log(summary(calibration)) }
        }

        let seconds = Date().timeIntervalSince(started)
        manifest.formatVersion = 1
        let digest = SHA256.hex(bytes)
        manifest.trainingData = plan.data.map(fileName).joined(separator: " + ")
        manifest.trainingDataSHA256 = digest
        manifest.seed = options.seed
        manifest.epochs = options.epochs
        manifest.trainingSeconds = (seconds * 10).rounded() / 10
        manifest.evidenceScale = Double(evidenceScale)
        manifest.command = plan.command
        manifest.recipe = recipe
        manifest.lineage = plan.lineage
        manifest.hidden = plan.hidden
        manifest.sharedEncoder = plan.sharedEncoder
        manifest.devMetrics = nil
        if let lastDev, let dev = plan.dev {
            manifest.devMetrics = [fileName(dev): ModelManifest.Metrics(
                n: lastDev.n, accuracyAt1: lastDev.accuracyAt1, accuracyAt5: lastDev.accuracyAt5, mrr: lastDev.mrr)]
        }
        // Data hash, then the hash of encoder.bin, then that of calibration.json: retraining (same data, other
        // code) or refitting the calibration always gives a new version.
        let base = "kwsuggest-conv\(plan.hidden)-seed\(options.seed)-" + String(digest.prefix(8)) + "-w" + String(weightsDigest.prefix(8))
        manifest.setCalibration(calibration, fraction: plan.calibration.fraction, baseVersion: base)
        try ModelDirectoryWriter.write(weights, manifest: manifest, calibration: calibration, to: plan.out, base: plan.base,
                                       addedKeywords: plan.newKeywords)
        log("wrote \(plan.out) in \(String(format: "%.1f", seconds))s")
        return manifest
    }

    /// Fits a calibrator for `components.weights` on labelled names the encoder was not trained on.
    public static func fitCalibration(_ components: LoadedModel, on data: [LabelledName], encoderSHA256: String,
                                      threads: Int = 2, description: String) throws -> ModelCalibration {
        var scoring = ScoringOptions()
        scoring.kernel = ModelTraining.kernel
        let index = try components.makeIndex(keywords: components.keywords, options: scoring)
        let samples = CalibrationFitting.collect(data, index: index, analyzer: components.analyzer,
                                                 roles: KeywordRoles(model: components), threads: threads)
        return CalibrationFitting.fit(samples, encoderSHA256: encoderSHA256, description: description)
    }

    /// Refits the calibration of an existing model directory on held-out labelled files, rewriting
    /// `calibration.json` and the manifest (whose model version changes with it). With `split`, only the
    /// files' calibration split is used: the names `train` held out of encoder training with that split.
    public static func recalibrate(directory: String, data paths: [String], split: CalibrationSplit? = nil,
                                   threads: Int = 2, log: (String) -> Void) throws -> ModelManifest {
        var components = try ModelDirectory.load(path: directory)
        // The manifest written below lists every file present, so the calibrator is fitted on what will be served.
        components.categories = try ModelDirectory.categoriesToWrite(directory: directory)
        guard let weights = components.weights else {
            throw ModelDirectoryError(path: directory, message: "no trained encoder to calibrate")
        }
        var data: [LabelledName] = []
        for path in paths { data += try LabelledData.load(path: path) }
        let files = paths.map(fileName).joined(separator: " + ")
        var description = files + " (held out of encoder training)"
        if let split {
            data = split.split(data).calibration
            description = calibrationDescription(files: files, split: split)
        }
        let digest = SHA256.hex(Array(Checkpoint.valuesData(weights)))
        let calibration = try fitCalibration(components, on: data, encoderSHA256: digest, threads: threads,
                                             description: description)
        log(summary(calibration))
        var manifest = components.manifest ?? ModelManifest(modelVersion: "kwsuggest-unversioned")
        let current = manifest.modelVersion
        let base = current.range(of: "-c", options: .backwards).map { range in
            current[range.upperBound...].count == 8 ? String(current[..<range.lowerBound]) : current
        } ?? current
        manifest.setCalibration(calibration, fraction: split?.fraction, baseVersion: base)
        let file = (directory as NSString).appendingPathComponent(ModelCalibration.fileName)
        try calibration.save(path: file)
        manifest.fileSHA256 = try ModelDirectory.checksums(directory: directory)
        try manifest.save(path: (directory as NSString).appendingPathComponent(ModelDirectory.manifestName))
        log("wrote \(file)")
        return manifest
    }

    /// What the calibration names are, as `calibration.json` and the manifest record it.
    static func calibrationDescription(files: String, split: CalibrationSplit) -> String {
        "calibration split of \(files) (\(split.description)), held out of encoder training"
    }

    static func summary(_ calibration: ModelCalibration) -> String {
        let fit = calibration.fittedOn
        let thresholds = ModelCalibration.reportedPrecisions.map { precision -> String in
            let point = calibration.threshold(forPrecision: precision).flatMap { t in calibration.curve.first { $0.threshold == t } }
            return "\(Int(precision * 100))% → " + (point.map { "\(format($0.threshold)) (coverage \(format($0.coverage)))" } ?? "none")
        }
        return "calibration: \(fit.names) names, \(fit.suggestions) suggestions, Acc@1 \(format(fit.accuracyAt1)); thresholds (\(calibration.rule.rawValue)) " + thresholds.joined(separator: ", ")
    }

    static func fileName(_ path: String) -> String { (path as NSString).lastPathComponent }
    static func format(_ value: Double) -> String { String(format: "%.4f", value) }
}

extension ModelManifest {
    /// Records `calibration` (its file's SHA-256) and sets the model version to `baseVersion` plus `-c` and 8 hex
    /// digits of that hash, or to `baseVersion` alone when there is no calibration.
    mutating func setCalibration(_ calibration: ModelCalibration?, fraction: Double?, baseVersion: String) {
        guard let calibration else {
            modelVersion = baseVersion
            self.calibration = nil
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let bytes = ((try? encoder.encode(calibration)) ?? Data()) + [0x0A]
        let digest = SHA256.hex(Array(bytes))
        self.calibration = Calibration(file: ModelCalibration.fileName, sha256: digest, data: calibration.fittedOn.data,
                                       names: calibration.fittedOn.names, fraction: fraction)
        modelVersion = baseVersion + "-c" + String(digest.prefix(8))
    }
}
