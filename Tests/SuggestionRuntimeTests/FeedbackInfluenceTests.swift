import Foundation
import StoreInterface
@testable import Training
import TrainingData
import XCTest

/// One annotator's reach into a retrain is bounded: their own labels add at most the cap's copies per keyword,
/// and a keyword the list lacks joins it only with two named annotators or an admin.
final class FeedbackInfluenceTests: XCTestCase {
    private var nextID: Int64 = 0

    private func record(_ name: String, _ keyword: String, by annotator: String?, _ action: FeedbackAction = .correct) -> FeedbackRecord {
        nextID += 1
        return FeedbackRecord(id: nextID, receivedAt: "2026-01-01T00:00:00.000Z",
                              item: FeedbackItem(name: name, keyword: keyword, action: action, annotator: annotator))
    }

    private func copies(_ influence: FeedbackInfluence) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: zip(influence.names.map(\.name), influence.copies))
    }

    /// 150 corrections by one annotator add 20 copies, not 600; another annotator's names and names two
    /// annotators agree on keep the full weight.
    func testOneAnnotatorsLabelsForAKeywordShareTheCap() {
        var records = (0..<150).map { record("国産 豚バラ肉 \($0)g", "牛肉", by: "mallory") }
        records += (0..<3).map { record("黒毛和牛 切り落とし \($0)", "牛肉", by: "alice") }
        records += [record("国産 牛もも 300g", "牛肉", by: "alice"), record("国産 牛もも 300g", "牛肉", by: "bob")]
        let influence = FeedbackInfluence(FeedbackLabels(records), list: ["牛肉", "豚バラ肉"], admitted: [], weight: 4, cap: 20)
        let byName = copies(influence)
        let mallory = (0..<150).map { byName["国産 豚バラ肉 \($0)g"] ?? 0 }
        XCTAssertEqual(mallory.reduce(0, +), 20, "one annotator's copies for one keyword stop at the cap")
        XCTAssertEqual(mallory.filter { $0 > 0 }.count, 20, "past the cap, the newest names once each")
        XCTAssertEqual(mallory.suffix(20), Array(repeating: 1, count: 20))
        XCTAssertEqual(byName["黒毛和牛 切り落とし 0"], 4, "another annotator's budget is their own")
        XCTAssertEqual(byName["国産 牛もも 300g"], 4, "two annotators agreeing are not bounded")
        XCTAssertEqual(influence.capped, [.init(annotator: "mallory", keyword: "牛肉", names: 150, copies: 20)])

        let unbounded = FeedbackInfluence(FeedbackLabels(records), list: ["牛肉"], admitted: [], weight: 4, cap: 100_000)
        XCTAssertEqual(unbounded.copies.reduce(0, +), 4 * 154, "with no cap every name has the weight")
    }

    /// Between the weight and the cap, names share the cap evenly.
    func testAFewNamesOverTheCapShareIt() {
        let records = (0..<8).map { record("名前\($0)", "x", by: "a") }
        let influence = FeedbackInfluence(FeedbackLabels(records), list: ["x"], admitted: [], weight: 4, cap: 20)
        XCTAssertEqual(influence.copies, Array(repeating: 2, count: 8))
        let under = FeedbackInfluence(FeedbackLabels(Array(records.prefix(5))), list: ["x"], admitted: [], weight: 4, cap: 20)
        XCTAssertEqual(under.copies, Array(repeating: 4, count: 5), "five names at weight 4 fit the cap")
        XCTAssertEqual(under.capped, [])
    }

    /// A keyword the list lacks joins with two named annotators or an admin's keyword change; one annotator,
    /// however often, or anonymous decisions are held back, and a name left with no keyword is not trained on.
    func testANewKeywordNeedsTwoNamedAnnotatorsOrAnAdmin() {
        let long = String(repeating: "あ", count: 100)
        let records = [
            record("謎の品 1", long, by: "mallory"), record("謎の品 2", long, by: "mallory"),
            record("謎の品 3", "匿名菜", by: nil), record("謎の品 4", "匿名菜", by: nil),
            record("新顔 1", "新顔菜", by: "alice"), record("新顔 2", "新顔菜", by: "bob"),
            record("管理 1", "管理菜", by: "carol"),
            record("混在 1", "にんじん", by: "alice"), record("混在 1", long, by: "mallory"),
        ]
        let influence = FeedbackInfluence(FeedbackLabels(records), list: ["にんじん"], admitted: ["管理菜"], weight: 4, cap: 20)
        XCTAssertEqual(influence.newKeywords, ["新顔菜", "管理菜"])
        XCTAssertEqual(influence.held.map(\.keyword), [long, "匿名菜"])
        XCTAssertEqual(influence.held.first?.supporters, ["mallory"])
        XCTAssertEqual(Set(influence.names.map(\.name)), ["新顔 1", "新顔 2", "管理 1", "混在 1"])
        XCTAssertEqual(influence.names.first { $0.name == "混在 1" }?.keywords, ["にんじん"], "the held keyword leaves the label")
    }

    /// A retrain's plan carries the bounded copies, and the job trains on them: the cap shows in the plan that
    /// `train --recipe --feedback` runs.
    func testTheRetrainingPlanCarriesTheBoundedCopies() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(root.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        let records = (0..<150).map { record("国産 豚バラ肉 \($0)g", "牛肉", by: "mallory") }
        let plan = try TrainingPlan.retraining("models/default", out: NSTemporaryDirectory() + "retrain-\(UUID().uuidString)",
                                               feedback: FeedbackLabels(records), feedbackStore: "file:x", feedbackWeight: 4)
        XCTAssertEqual(plan.feedbackCopies.reduce(0, +), FeedbackInfluence.defaultCap)
        XCTAssertEqual(plan.feedback.count, plan.feedbackCopies.count)
        XCTAssertEqual(plan.cappedFeedback.first?.annotator, "mallory")
        XCTAssertEqual(plan.lineage?.feedback?.names, FeedbackInfluence.defaultCap)
    }

    /// The job's examples: each name its copies, round by round; a name the calibration split holds out counts
    /// once, there.
    func testTheJobTrainsEachNameItsCopies() {
        var plan = TrainingPlan(data: [], dev: nil, out: "", base: "")
        plan.calibration = CalibrationSplit(fraction: 0)
        plan.feedback = ["a", "b", "c"].map { LabelledName(name: $0, keywords: ["x"]) }
        plan.feedbackCopies = [2, 1, 3]
        XCTAssertEqual(plan.feedbackExamples().training.map(\.name), ["a", "b", "c", "a", "c", "c"])
        plan.feedbackCopies = []
        plan.feedbackWeight = 2
        XCTAssertEqual(plan.feedbackExamples().training.map(\.name), ["a", "b", "c", "a", "b", "c"], "no cap: the whole block repeats")
        plan.calibration = CalibrationSplit(fraction: 1)
        let all = plan.feedbackExamples()
        XCTAssertEqual(all.training, [])
        XCTAssertEqual(all.calibration.map(\.name), ["a", "b", "c"])
    }
}
