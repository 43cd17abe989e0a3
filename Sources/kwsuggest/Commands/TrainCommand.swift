import EventLog
import Foundation
import KeywordModel
import StoreOpening
import ModelStorage
import StoreInterface
import TeamQueue
import Training
import TrainingData

/// `kwsuggest train`: trains the encoder on labelled names and writes a complete model directory.
struct TrainCommand: Command {
    static let data = Option<String>("--data", value: "file",
                                     help: "Training names, JSON lines {\"name\": …, \"keywords\": […]}; repeatable (the files are joined in order).",
                                     repeatable: true)
    static let dev = Option<String>("--dev", value: "file", help: "Dev names: Accuracy@5 is printed after every epoch.")
    static let out = Option<String>("--out", value: "dir",
                                    help: "Output model directory (other files are copied from --model).", required: true)
    static let recipe = Option<String>("--recipe", value: "dir",
                                       help: "Repeat the recipe in this model directory's manifest (data, options, seed) with it as the base; instead of --data and the training options.")
    static let feedback = Option<String>("--feedback", value: "store",
                                         help: "With --recipe: join the accepted and corrected decisions of this store (file:PATH or postgres://…).")
    static let feedbackWeight = Option<Int>("--feedback-weight", value: "n",
                                            help: "With --feedback: how many times each labelled name from the decisions is trained on.",
                                            default: 4, range: 1...100)
    static let feedbackCap = Option<Int>("--feedback-cap", value: "n",
                                         help: "With --feedback: the most training copies one annotator's own labels add for one keyword.",
                                         default: FeedbackInfluence.defaultCap, range: 1...100_000)
    static let epochs = Option<Int>("--epochs", value: "n", help: "Epochs.", default: TrainingOptions().epochs, range: 1...1000)
    static let seed = Option<Int>("--seed", value: "s", help: "Random seed.", default: Int(TrainingOptions().seed),
                                  check: { $0 >= 0 ? nil : "a non-negative integer" })
    static let model = Option<String>("--model", value: "dir", help: "Base model directory: vectors, lexicon, keywords.",
                                      defaultText: SharedOptions.model.spec.defaultText)
    static let hidden = Option<Int>("--hidden", value: "h", help: "Encoder state width.",
                                    default: ModelConfig.defaultHiddenDimension, range: 2...1024)
    static let subwordBuckets = Option<Int>(
        "--subword-buckets", value: "n",
        help: "Rows of the hashed sub-word table (character 1-3-grams and the whole word of every token, added to its input); 0 reads word rows only.",
        default: 0, range: 0...1_048_576)
    static let subwordDecay = Option<Double>(
        "--subword-decay", value: "d",
        help: "Decoupled weight decay of the sub-word table (times the learning rate, per step): pulls each token back toward its word row.",
        default: 0, range: 0...100)
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
        options: [data.spec, recipe.spec, feedback.spec, feedbackWeight.spec, feedbackCap.spec, dev.spec, out.spec, epochs.spec, seed.spec, model.spec, hidden.spec,
                  subwordBuckets.spec, subwordDecay.spec, separate.spec,
                  hardNegatives.spec, randomNegatives.spec, noAttention.spec, threads.spec, calibrationFraction.spec,
                  calibrationSplit.spec, maskAlternatives.spec],
        discussion: """
            Deterministic for a seed and a thread count. Prints epoch, loss, seconds and dev Accuracy@5. The
            calibration names are chosen by a 64-bit FNV-1a hash, so the split is the same on every run; the
            calibrator fitted on them (calibration.json) gives each suggestion its confidence. The manifest records
            the recipe (data files with their SHA-256, options, seed; paths as given, resolved against the working
            directory). --recipe DIR repeats it; --feedback STORE adds one labelled name per product name decided
            in the store: each annotator's latest accept or correction is a vote, a reject cancels a vote for the
            keyword it names, the most-voted keyword is the label (ties: the latest), names with only rejects are
            left out. Each such name is trained on --feedback-weight times (default 4): the decisions are a few
            hundred names beside the recipe's tens of thousands, and they are the marketplace's own. One
            annotator's influence is bounded: the names whose label only they voted for add at most --feedback-cap
            copies per keyword (default 20). A keyword that DIR's list lacks joins the new list when two named
            annotators voted for it or the store's keyword changes add it; otherwise it is held back, with a
            warning. The new manifest's lineage names DIR's model version as its parent, the data files, the
            feedback ids used, the weight and the cap.
            """
    )

    var plan: TrainingPlan
    /// With --recipe: the directory whose recipe is repeated, and the store whose feedback joins it.
    var recipeDirectory: String?
    var feedbackStore: StoreLocation?
    var feedbackWeight: Int
    var feedbackCap: Int

    init(arguments: ParsedArguments) throws {
        try arguments.expectNoPositionals()
        recipeDirectory = try arguments.get(Self.recipe)
        if let text = try arguments.get(Self.feedback) {
            guard recipeDirectory != nil else { throw CommandError.usage("--feedback needs --recipe") }
            do {
                feedbackStore = try StoreLocation(parsing: text)
            } catch {
                throw CommandError.usage("The value for '--feedback <store>' is invalid: \(error)")
            }
        }
        feedbackWeight = try arguments.require(Self.feedbackWeight)
        if arguments.values[Self.feedbackWeight.spec.key] != nil, feedbackStore == nil {
            throw CommandError.usage("--feedback-weight needs --feedback")
        }
        feedbackCap = try arguments.require(Self.feedbackCap)
        if arguments.values[Self.feedbackCap.spec.key] != nil, feedbackStore == nil {
            throw CommandError.usage("--feedback-cap needs --feedback")
        }
        if recipeDirectory != nil {
            let replaced = [Self.data.spec, Self.dev.spec, Self.epochs.spec, Self.seed.spec, Self.model.spec, Self.hidden.spec,
                            Self.subwordBuckets.spec, Self.subwordDecay.spec, Self.separate.spec, Self.hardNegatives.spec, Self.randomNegatives.spec, Self.noAttention.spec,
                            Self.threads.spec, Self.calibrationFraction.spec, Self.calibrationSplit.spec,
                            Self.maskAlternatives.spec]
            if let given = replaced.first(where: { arguments.values[$0.key] != nil || arguments.flags.contains($0.key) }) {
                throw CommandError.usage("--recipe repeats the recorded data and options; '\(given.key)' cannot be combined with it")
            }
        } else if try arguments.all(Self.data).isEmpty {
            throw CommandError.usage("Missing expected option '--data <file>' (or --recipe <dir>)")
        }
        plan = TrainingPlan(data: try arguments.all(Self.data), dev: try arguments.get(Self.dev),
                            out: try arguments.require(Self.out),
                            base: resolveModelDirectory(try arguments.get(Self.model)))
        plan.hidden = try arguments.require(Self.hidden)
        plan.subwordBuckets = try arguments.require(Self.subwordBuckets)
        plan.options.subwordDecay = try arguments.require(Self.subwordDecay)
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
        var plan = self.plan
        do {
            if let recipeDirectory {
                let command = plan.command
                let read = try readFeedback()
                plan = try TrainingPlan.retraining(recipeDirectory, out: plan.out, feedback: read?.labels, admitted: read?.admitted ?? [],
                                                   feedbackStore: feedbackStore?.displayName, feedbackWeight: feedbackWeight,
                                                   feedbackCap: feedbackCap)
                plan.command = command
                if let use = plan.lineage?.feedback {
                    print("feedback: \(use.records) decisions (ids \(use.firstID.map(String.init) ?? "-")…\(use.lastID.map(String.init) ?? "-")) → \(use.names) labelled names trained on ×\(feedbackWeight) (one annotator's own at most \(feedbackCap) copies per keyword), \(use.newKeywords.count) new keywords")
                }
                for capped in plan.cappedFeedback {
                    print("feedback cap: \(capped.names) names labelled \(capped.keyword.debugDescription) by \(capped.annotator.isEmpty ? "an anonymous annotator" : capped.annotator.debugDescription) alone → \(capped.copies) copies (cap \(feedbackCap))")
                }
                for held in plan.heldKeywords {
                    let who = held.supporters.isEmpty ? "no named annotator" : held.supporters.map(\.debugDescription).joined(separator: ", ")
                    EventLog.message(.warning, "the keyword \(held.keyword.debugDescription) is held back (voted for by \(who)): a new keyword joins the list when two named annotators vote for it, or an admin adds it to the store's list")
                }
                for (keyword, problem) in plan.unlistedKeywords {
                    EventLog.message(.warning, "the keyword \(keyword.debugDescription) is trained on but not added to the list: \(problem)")
                }
            }
            _ = try TrainingJob.run(plan) { line in
                print(line)
                fflush(nil)
            }
        } catch let error as ModelDirectoryError {
            throw CommandError.failure(error.description)
        }
    }

    /// The labels of every decision in the --feedback store (less those an undone queue decision withdrew), with
    /// the keywords the store's keyword changes add, or nil without a store.
    private func readFeedback() throws -> (labels: FeedbackLabels, admitted: Set<String>)? {
        guard let feedbackStore else { return nil }
        do {
            let store = try feedbackStore.open()
            defer { store.close() }
            let withdrawn = try feedbackStore.openQueue(feedbackStore: store, policy: QueuePolicy()).withdrawnFeedback()
            let labels = FeedbackLabels(try FeedbackLabels.records(from: store, withdrawn: withdrawn))
            return (labels, Set(try store.loadOverlay().added))
        } catch {
            throw CommandError.failure("cannot read the feedback of \(feedbackStore.displayName): \(error)")
        }
    }
}

extension CalibrationSplit.Key: ArgumentChoice {}
