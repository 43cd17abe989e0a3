// Training from a recipe: a plan that repeats a model's recorded data, options and seed, with feedback joined.
import Foundation
import ModelStorage
import TrainingData

extension TrainingPlan {
    /// The recipe of this plan, hashing its data files as they are now.
    public func recipe() throws -> ModelManifest.Recipe {
        ModelManifest.Recipe(
            data: try data.map(ModelManifest.DataFile.hashing), dev: try dev.map(ModelManifest.DataFile.hashing),
            seed: options.seed,
            options: ModelManifest.RecipeOptions(
                epochs: options.epochs, hidden: hidden, sharedEncoder: sharedEncoder, attention: options.attention,
                hardNegatives: options.hardNegatives, randomNegatives: options.randomNegatives, threads: options.threads,
                primaryFirst: options.primaryFirst, calibrationFraction: calibration.fraction,
                calibrationSplit: calibration.key.rawValue,
                subwordBuckets: subwordBuckets > 0 ? subwordBuckets : nil,
                subwordDecay: subwordBuckets > 0 ? options.subwordDecay : nil))
    }

    /// The plan that repeats `recipe` on the model directory `base`, writing `out`. Every data file must still
    /// hold the bytes the recipe records.
    public init(recipe: ModelManifest.Recipe, base: String, out: String) throws {
        for file in recipe.data + (recipe.dev.map { [$0] } ?? []) { try file.verify() }
        self.init(data: recipe.data.map(\.path), dev: recipe.dev?.path, out: out, base: base)
        let options = recipe.options
        hidden = options.hidden
        subwordBuckets = options.subwordBuckets ?? 0
        self.options.subwordDecay = options.subwordDecay ?? 0
        sharedEncoder = options.sharedEncoder
        self.options.epochs = options.epochs
        self.options.seed = recipe.seed
        self.options.attention = options.attention
        self.options.hardNegatives = options.hardNegatives
        self.options.randomNegatives = options.randomNegatives
        self.options.threads = options.threads
        self.options.primaryFirst = options.primaryFirst
        guard let key = CalibrationSplit.Key(rawValue: options.calibrationSplit) else {
            throw ModelDirectoryError(path: (base as NSString).appendingPathComponent(ModelDirectory.manifestName),
                                      message: "recipe.options.calibration_split '\(options.calibrationSplit)' is not one of "
                                        + CalibrationSplit.Key.allCases.map(\.rawValue).joined(separator: ", "))
        }
        calibration = CalibrationSplit(fraction: options.calibrationFraction, key: key)
    }
}

extension TrainingPlan {
    /// The plan that repeats the recipe in `directory`'s manifest, with `directory` as the base, joined by the
    /// labelled names `feedback` resolves to, bounded by `FeedbackInfluence` (`feedbackCap` copies per annotator
    /// and keyword; `admitted`: the keywords the store's keyword changes add). Keywords the labels name that the
    /// directory's list lacks join the new model's list by that rule. The lineage names `directory`'s model as the
    /// parent.
    public static func retraining(_ directory: String, out: String, feedback: FeedbackLabels?, admitted: Set<String> = [],
                                  feedbackStore: String?, feedbackWeight: Int = 1,
                                  feedbackCap: Int = FeedbackInfluence.defaultCap) throws -> TrainingPlan {
        let manifestPath = (directory as NSString).appendingPathComponent(ModelDirectory.manifestName)
        guard FileManager.default.fileExists(atPath: manifestPath) else {
            throw ModelDirectoryError(path: manifestPath, message: "no manifest, so no recipe to repeat")
        }
        let manifest = try ModelManifest.load(path: manifestPath)
        guard let recipe = manifest.recipe else {
            throw ModelDirectoryError(path: manifestPath, message: "the manifest has no recipe to repeat")
        }
        let same = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath()
            == URL(fileURLWithPath: out).standardizedFileURL.resolvingSymlinksInPath()
        guard !same else { throw ModelDirectoryError(path: out, message: "the output must be another directory than the recipe's") }
        var plan = try TrainingPlan(recipe: recipe, base: directory, out: out)
        var use: ModelManifest.FeedbackUse?
        if let feedback {
            let list = try ModelFiles.keywords(path: (directory as NSString).appendingPathComponent(ModelDirectory.keywordsName))
            plan.feedbackWeight = feedbackWeight
            plan.feedbackCap = feedbackCap
            let influence = FeedbackInfluence(feedback, list: list, admitted: admitted, weight: plan.feedbackWeight,
                                              cap: plan.feedbackCap)
            plan.feedback = influence.names
            plan.feedbackCopies = influence.copies
            plan.heldKeywords = influence.held
            plan.cappedFeedback = influence.capped
            // A keyword one line of keywords.txt cannot hold (it starts with #, which the list reads as a comment)
            // is trained on but stays off the new list, and the command says which and why.
            for keyword in influence.newKeywords {
                if let problem = ModelFiles.listProblem(with: keyword) {
                    plan.unlistedKeywords.append((keyword, problem))
                } else {
                    plan.newKeywords.append(keyword)
                }
            }
            use = ModelManifest.FeedbackUse(store: feedbackStore ?? "", firstID: feedback.firstID, lastID: feedback.lastID,
                                            records: feedback.records, names: influence.names.count,
                                            newKeywords: plan.newKeywords, weight: plan.feedbackWeight, cap: plan.feedbackCap)
        }
        plan.lineage = ModelManifest.Lineage(parent: manifest.modelVersion, data: recipe.data, dev: recipe.dev, feedback: use)
        return plan
    }
}
