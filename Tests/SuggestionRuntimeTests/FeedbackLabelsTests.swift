import FileStore
import Foundation
import ModelStorage
import StoreInterface
import Training
import TrainingData
import XCTest

/// How annotator decisions become labelled names: each annotator's latest vote, the majority across annotators,
/// ties to the latest, rejects cancelling votes and never labelling on their own.
final class FeedbackLabelsTests: XCTestCase {
    private var nextID: Int64 = 0

    private func record(_ name: String, _ keyword: String, _ action: FeedbackAction, by annotator: String? = nil) -> FeedbackRecord {
        nextID += 1
        return FeedbackRecord(id: nextID, receivedAt: "2026-01-01T00:00:00.000Z",
                              item: FeedbackItem(name: name, keyword: keyword, action: action, annotator: annotator))
    }

    private func labels(_ records: [FeedbackRecord]) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: FeedbackLabels(records).names.map { ($0.name, $0.keywords) })
    }

    func testAnAnnotatorsLatestDecisionIsTheirVote() {
        let result = labels([record("n", "にんじん", .accept, by: "a"), record("n", "人参", .correct, by: "a")])
        XCTAssertEqual(result["n"], ["人参"])
    }

    func testTheMajorityOfAnnotatorsWinsAndATieGoesToTheLatest() {
        let majority = labels([record("n", "x", .accept, by: "a"), record("n", "x", .accept, by: "b"),
                               record("n", "y", .correct, by: "c")])
        XCTAssertEqual(majority["n"], ["x", "y"], "the others' keyword stays as an acceptable one")
        let tie = labels([record("t", "x", .accept, by: "a"), record("t", "y", .correct, by: "b")])
        XCTAssertEqual(tie["t"], ["y", "x"])
        XCTAssertEqual(FeedbackLabels([record("t", "x", .accept, by: "a"), record("t", "y", .correct, by: "b")]).disagreements, 1)
    }

    func testRejectsCancelVotesAndNeverLabelAlone() {
        let result = labels([
            record("only-rejected", "x", .reject, by: "a"),
            record("cancelled", "x", .accept, by: "a"), record("cancelled", "x", .reject, by: "b"),
            record("changed-mind", "x", .accept, by: "a"), record("changed-mind", "x", .reject, by: "a"),
            record("reject-then-correct", "x", .reject, by: "a"), record("reject-then-correct", "y", .correct, by: "a"),
        ])
        XCTAssertNil(result["only-rejected"])
        XCTAssertNil(result["cancelled"])
        XCTAssertNil(result["changed-mind"])
        XCTAssertEqual(result["reject-then-correct"], ["y"])
    }

    func testAnonymousDecisionsAreOneAnnotatorAndRangeAndNewKeywords() {
        let labels = FeedbackLabels([record("n", "x", .accept), record("n", "新語", .correct), record("m", "x", .accept)])
        XCTAssertEqual(labels.names.map(\.name), ["n", "m"])
        XCTAssertEqual(labels.names.first?.keywords, ["新語"])
        XCTAssertEqual(labels.names.first?.source, "feedback")
        XCTAssertEqual(labels.firstID, 1)
        XCTAssertEqual(labels.lastID, 3)
        XCTAssertEqual(labels.supporters.first, [[""]], "one anonymous annotator")
    }

    /// Pages through a real file store, after an id.
    func testRecordsArePagedFromTheStore() throws {
        let directory = NSTemporaryDirectory() + "labels-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
        _ = try store.appendFeedback((0..<2_500).map { FeedbackItem(name: "name \($0)", keyword: "k", action: .accept) })
        XCTAssertEqual(try FeedbackLabels.records(from: store).count, 2_500)
        XCTAssertEqual(try FeedbackLabels.records(from: store, after: 2_000).map(\.id).first, 2_001)
        // Records an undone queue decision withdrew teach nothing, across page boundaries too.
        let withdrawn: Set<Int64> = [1, 1_000, 1_001, 2_500]
        let kept = try FeedbackLabels.records(from: store, withdrawn: withdrawn)
        XCTAssertEqual(kept.count, 2_496)
        XCTAssertTrue(kept.allSatisfy { !withdrawn.contains($0.id) })
        XCTAssertFalse(FeedbackLabels(kept).names.contains { $0.name == "name 0" })
    }
}

/// The recipe in the manifest: written by every training run, read back, and repeated with its data checked.
final class TrainingRecipeTests: XCTestCase {
    func testTheShippedManifestCarriesARecipeThatMatchesItsData() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let manifest = try ModelManifest.load(path: root.appendingPathComponent("models/default/manifest.json").path)
        let recipe = try XCTUnwrap(manifest.recipe)
        XCTAssertEqual(recipe.data.map(\.path), ["data/train.jsonl", "data/train-knowledge.jsonl"])
        let header = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("models/default/encoder.json")))
        let config = try XCTUnwrap((header as? [String: Any])?["config"] as? [String: Any])
        XCTAssertEqual(recipe.options.subwordBuckets, config["subwordBuckets"] as? Int, "the recipe trains the sub-word table the model has")
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(root.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        let plan = try TrainingPlan(recipe: recipe, base: "models/default", out: "/nonexistent")
        XCTAssertEqual(plan.options.seed, recipe.seed)
        XCTAssertEqual(try plan.recipe(), recipe, "a plan made from the recipe records the same recipe")
    }

    func testADataFileThatChangedIsRefusedNamingIt() throws {
        let directory = NSTemporaryDirectory() + "recipe-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/train.jsonl"
        try Data("{\"name\":\"a\",\"keywords\":[\"b\"]}\n".utf8).write(to: URL(fileURLWithPath: file))
        var recipe = try TrainingPlan(data: [file], dev: nil, out: "", base: "").recipe()
        XCTAssertNoThrow(try TrainingPlan(recipe: recipe, base: directory, out: "/x"))
        try Data("{\"name\":\"a\",\"keywords\":[\"c\"]}\n".utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertThrowsError(try TrainingPlan(recipe: recipe, base: directory, out: "/x")) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(file): SHA-256 is "), "\(error)")
        }
        recipe.data = [ModelManifest.DataFile(path: directory + "/missing.jsonl", sha256: "00")]
        XCTAssertThrowsError(try TrainingPlan(recipe: recipe, base: directory, out: "/x")) { error in
            XCTAssertTrue("\(error)".contains("missing.jsonl: the recipe names this file, which does not exist here"), "\(error)")
        }
    }

    /// A keyword written to a keyword list is read back as itself, or the writer refuses it: never a line the list
    /// skips as a comment or blank, trims, or splits.
    func testTheListWriterRefusesWhatTheListWouldNotReadBack() throws {
        let path = NSTemporaryDirectory() + "list-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: path) }
        for keyword in ["にんじん", "C#", "a # b", "#ハッシュ菜", "  #x", " padded", "", " ", "a\nb", "a\rb", "tab\t",
                        String(repeating: "x", count: 100), String(repeating: "x", count: 101)] {
            try Data((keyword + "\n").utf8).write(to: URL(fileURLWithPath: path))
            let readBack = (try? ModelFiles.keywords(path: path)) == [keyword]
            XCTAssertEqual(ModelFiles.listProblem(with: keyword) == nil, readBack, keyword.debugDescription)
        }
        XCTAssertNoThrow(try ModelDirectoryWriter.checkAppendable(["にんじん", "C#"], path: path))
        XCTAssertThrowsError(try ModelDirectoryWriter.checkAppendable(["にんじん", "#ハッシュ菜"], path: path)) { error in
            XCTAssertEqual("\(error)", "\(path): cannot add the keyword \"#ハッシュ菜\" to the list: it starts with #, and the list "
                           + "reads a line starting with # as a comment")
        }
    }

    /// Retraining on feedback that names a keyword the new list could not hold (one starting with #, which the
    /// list reads as a comment) trains on it but keeps it off the list, and says so; other new keywords join. Both
    /// have the two named annotators a new keyword needs.
    func testAKeywordTheListCannotHoldIsTrainedOnButNotListed() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(root.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        let out = NSTemporaryDirectory() + "retrain-\(UUID().uuidString)"
        let records = [("謎の品 ハッシュ菜 1束", "#ハッシュ菜", "a"), ("謎の品 ハッシュ菜 1束", "#ハッシュ菜", "b"),
                       ("謎の品 ハッシュ菜 2束", "ハッシュ菜#1", "a"), ("謎の品 ハッシュ菜 3束", "ハッシュ菜#1", "b")]
            .enumerated().map { FeedbackRecord(id: Int64($0.offset + 1), receivedAt: "2026-01-01T00:00:00.000Z",
                                               item: FeedbackItem(name: $0.element.0, keyword: $0.element.1, action: .correct,
                                                                  annotator: $0.element.2)) }
        let plan = try TrainingPlan.retraining("models/default", out: out, feedback: FeedbackLabels(records), feedbackStore: "file:x")
        XCTAssertEqual(plan.newKeywords, ["ハッシュ菜#1"])
        XCTAssertEqual(plan.unlistedKeywords.map(\.keyword), ["#ハッシュ菜"])
        XCTAssertTrue(plan.unlistedKeywords.first?.problem.contains("comment") ?? false)
        XCTAssertEqual(plan.feedback.count, 3, "every name is trained on")
        XCTAssertEqual(plan.lineage?.feedback?.newKeywords, ["ハッシュ菜#1"])
        XCTAssertEqual(plan.lineage?.feedback?.cap, FeedbackInfluence.defaultCap)
    }

    func testTheManifestRoundTripsRecipeAndLineage() throws {
        var manifest = ModelManifest(modelVersion: "v")
        manifest.recipe = ModelManifest.Recipe(
            data: [.init(path: "data/train.jsonl", sha256: "ab")], dev: nil, seed: 3,
            options: .init(epochs: 1, hidden: 8, sharedEncoder: true, attention: true, hardNegatives: 1, randomNegatives: 2,
                           threads: 2, primaryFirst: true, calibrationFraction: 0.1, calibrationSplit: "both"))
        manifest.lineage = ModelManifest.Lineage(parent: "p", data: [], dev: nil,
                                                 feedback: .init(store: "file:x", firstID: 1, lastID: 9, records: 9, names: 4, newKeywords: ["新"], weight: 4))
        let path = NSTemporaryDirectory() + "manifest-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try manifest.save(path: path)
        XCTAssertEqual(try ModelManifest.load(path: path), manifest)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains("\"last_id\" : 9"), text)
        XCTAssertTrue(text.contains("\"weight\" : 4"), text)
        XCTAssertTrue(text.contains("\"calibration_split\" : \"both\""), text)
    }
}
