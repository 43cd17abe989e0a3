import DecisionMemory
import StoreInterface
import XCTest

final class VoteTallyTests: XCTestCase {
    func tally(_ decisions: [(String?, String, FeedbackAction)]) -> VoteTally.Resolution {
        var tally = VoteTally()
        for (id, decision) in decisions.enumerated() {
            tally.add(id: Int64(id + 1), annotator: decision.0, keyword: decision.1, action: decision.2)
        }
        return tally.resolved()
    }

    func testEachAnnotatorsLatestVoteThenTheMajority() {
        let resolution = tally([("a", "x", .accept), ("a", "y", .correct), ("b", "y", .accept), ("c", "x", .accept)])
        XCTAssertEqual(resolution.keywords.map(\.keyword), ["y", "x"])
        XCTAssertEqual(resolution.keywords.map(\.score), [2, 1])
        XCTAssertEqual(resolution.keywords.first?.supporters, ["a", "b"])
        XCTAssertEqual(resolution.keywords.first?.dissenters, 1)
        XCTAssertTrue(resolution.disagreement)
    }

    func testATieGoesToTheLatestVote() {
        XCTAssertEqual(tally([("a", "x", .accept), ("b", "y", .accept)]).keywords.map(\.keyword), ["y", "x"])
    }

    func testARejectCancelsAVoteAndTeachesNothingAlone() {
        XCTAssertEqual(tally([("a", "x", .accept), ("b", "x", .reject)]).keywords, [])
        XCTAssertEqual(tally([("a", "x", .reject)]).keywords, [])
        // Rejecting one's own vote withdraws it; voting again after a reject lifts the reject.
        XCTAssertEqual(tally([("a", "x", .accept), ("a", "x", .reject)]).keywords, [])
        XCTAssertEqual(tally([("a", "x", .reject), ("a", "x", .accept)]).keywords.map(\.keyword), ["x"])
    }

    func testDecisionsWithoutAnAnnotatorAreOneAnonymousAnnotator() {
        let resolution = tally([(nil, "x", .accept), (nil, "y", .correct)])
        XCTAssertEqual(resolution.keywords.map(\.keyword), ["y"])
        XCTAssertEqual(resolution.keywords.first?.supporters, [""])
        XCTAssertFalse(resolution.disagreement)
    }
}
