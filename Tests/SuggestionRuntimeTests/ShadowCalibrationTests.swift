import Foundation
import StoreInterface
import ModelStorage
import StrictJSON
@testable import SuggestionRuntime
import XCTest

/// The shadow's calibration figures on annotators' decisions: the gate's three figures (precision and coverage of
/// what a model would auto-accept, ECE) per model, and how /readyz writes them.
final class ShadowCalibrationTests: XCTestCase {
    private func result(_ keyword: String, _ confidence: Double, autoAccept: Bool) -> SuggestionResult {
        SuggestionResult(name: "n", suggestions: [Suggestion(keyword: keyword, score: 1, confidence: confidence)],
                         autoAccept: autoAccept)
    }

    func testTheFiguresFollowTheDecisions() {
        var calibration = ShadowScorer.DecisionCalibration()
        XCTAssertNil(calibration.precision)
        XCTAssertNil(calibration.coverage)
        XCTAssertNil(calibration.ece)
        calibration.add(result("ごま", 0.99, autoAccept: true), keyword: "担々麺")
        calibration.add(result("にんじん", 0.99, autoAccept: true), keyword: "にんじん")
        calibration.add(result("大根", 0.55, autoAccept: false), keyword: "大根")
        calibration.add(result("かぶ", 0.45, autoAccept: false), keyword: "大根")
        calibration.add(SuggestionResult(name: "★★★", suggestions: [], reason: .noContentTokens), keyword: "x")
        XCTAssertEqual(calibration.scored, 4, "a name with no suggestion is not scored")
        XCTAssertEqual(calibration.autoAccepted, 2)
        XCTAssertEqual(calibration.precision, 0.5)
        XCTAssertEqual(calibration.coverage, 0.5)
        // Bins: 0.9–1.0 holds 0.99 twice, 1 right (|0.5 − 0.99|); 0.5–0.6 holds 0.55, right (|1 − 0.55|);
        // 0.4–0.5 holds 0.45, wrong (|0 − 0.45|).
        XCTAssertEqual(calibration.ece ?? -1, 0.5 * 0.49 + 0.25 * 0.45 + 0.25 * 0.45, accuracy: 1e-12)
    }

    func testBinsMatchTheReliabilityDiagramsDefinition() {
        let bins = ReliabilityBins([(1.0, true), (0.0, false), (0.95, true), (0.1, true)])
        XCTAssertEqual(bins.counts[9], 2, "1.0 falls in the last bin")
        XCTAssertEqual(bins.counts[0], 1)
        XCTAssertEqual(bins.counts[1], 1)
        XCTAssertEqual(bins.ece, 0.5 * 0.025 + 0.25 * 0 + 0.25 * 0.9, accuracy: 1e-12)
        XCTAssertEqual(ReliabilityBins().ece, 0)
    }

    func testReadyzWritesNullBeforeAnyAutoAccept() {
        var json = JSONWriter()
        ModelWatcher.write(ShadowScorer.DecisionCalibration(), into: &json)
        XCTAssertEqual(String(decoding: json.bytes, as: UTF8.self),
                       #"{"auto_accepted":0,"precision":null,"coverage":null,"ece":null}"#)
    }
}

/// An engine that answers one keyword at a fixed confidence and can hold a call until the test lets it go.
private final class HeldEngine: SuggestionEngine {
    let modelVersion: String
    let gate: DispatchSemaphore?
    let entered = DispatchSemaphore(value: 0)

    init(_ version: String, held: Bool) {
        modelVersion = version
        gate = held ? DispatchSemaphore(value: 0) : nil
    }

    func suggest(_ name: String, k: Int, explain: Bool) -> SuggestionResult {
        if let gate {
            entered.signal()
            gate.wait()
        }
        return SuggestionResult(name: name, suggestions: [Suggestion(keyword: "k", score: 1, confidence: 0.9)])
    }

    func keywordList() -> KeywordListSnapshot { KeywordListSnapshot(keywords: ["k"], version: "v1") }
    func updateKeywords(_ change: KeywordChange) throws -> KeywordListSnapshot { keywordList() }
    func reloadKeywords() throws -> KeywordListSnapshot { keywordList() }
}

extension ShadowCalibrationTests {
    /// A decision the previous candidate was scoring when the candidate changed is counted as feedback but not
    /// added to the new candidate's calibration figures.
    func testADecisionScoredByThePreviousCandidateStaysOutOfTheNewFigures() {
        let scorer = ShadowScorer()
        defer { scorer.stop() }
        let first = HeldEngine("a", held: true), second = HeldEngine("b", held: true), live = HeldEngine("live", held: false)
        scorer.set(first, fraction: 0)
        scorer.offerFeedback(name: "n", keyword: "k", live: live)
        first.entered.wait()
        scorer.set(second, fraction: 0)
        scorer.offerFeedback(name: "n", keyword: "k", live: live)
        first.gate?.signal()
        // The worker is one thread: once it is inside the second candidate, the first job is counted.
        second.entered.wait()
        XCTAssertEqual(scorer.counters.feedback, 1)
        XCTAssertEqual(scorer.counters.shadowCalibration.scored, 0)
        XCTAssertEqual(scorer.counters.liveCalibration.scored, 0)
        second.gate?.signal()
    }
}
