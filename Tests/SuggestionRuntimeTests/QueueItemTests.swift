@testable import FileStore
@testable import PostgresStore
@testable import StoreInterface
@testable import TeamQueue
import XCTest

/// The item rules alone, with times given: no store, no clock.
final class QueueItemTests: XCTestCase {
    private let policy = QueuePolicy(overlapShare: 0, auditShare: 0)

    private func item(overlap: Bool = false, auto: Bool = false, audit: Bool = false) -> QueueItem {
        QueueItem(id: "i", name: "カラーにんじん", model: "m", suggestions: [QueueSuggestion(keyword: "にんじん", confidence: 0.9)],
                  enqueuedAt: 100, overlap: overlap, modelKeyword: auto ? "にんじん" : nil, audit: audit)
    }

    private func decision(_ id: Int64, _ annotator: String, _ kind: QueueDecisionKind = .label, _ keywords: [String] = [],
                          lease: String = "L") -> QueueDecision {
        QueueDecision(id: id, annotator: annotator, item: "i", kind: kind, lease: lease, keywords: keywords, feedback: [],
                      at: 200 + id, seconds: 1)
    }

    func testOneAnnotatorLabelsAPlainItem() {
        var item = item()
        XCTAssertEqual(item.state, .open)
        XCTAssertTrue(item.canLease(to: "a", at: 100))
        item.hold(for: "a", lease: "L", at: 100, until: 1000)
        XCTAssertFalse(item.canLease(to: "b", at: 999))
        XCTAssertTrue(item.canLease(to: "b", at: 1000), "an expired hold frees the item")
        XCTAssertEqual(item.leasableFrom, 1000)
        XCTAssertNoThrow(try item.check("a", lease: "L"))
        XCTAssertThrowsError(try item.check("a", lease: "other"))
        item.apply(decision(1, "a", .label, ["にんじん"]), skipUntil: 0)
        XCTAssertEqual(item.state, .labelled)
        XCTAssertNil(item.leasableFrom)
        XCTAssertEqual(item.label?.keywords, ["にんじん"])
        XCTAssertEqual(item.label?.decidedBy, .annotator)
        XCTAssertThrowsError(try item.check("a", lease: "L")) { XCTAssertEqual($0 as? QueueError, .notOpen("i")) }
    }

    func testOverlapGoesToTwoThenAThirdWhoDecidesByMajority() {
        var item = item(overlap: true)
        item.hold(for: "a", lease: "A", at: 100, until: 1000)
        XCTAssertTrue(item.canLease(to: "b", at: 100))
        item.hold(for: "b", lease: "B", at: 100, until: 1000)
        XCTAssertFalse(item.canLease(to: "c", at: 100))
        item.apply(decision(1, "a", .label, ["にんじん", "大根"]), skipUntil: 0)
        XCTAssertFalse(item.canLease(to: "a", at: 100), "an annotator labels an item once")
        item.apply(decision(2, "b", .label, ["大根"]), skipUntil: 0)
        XCTAssertEqual(item.overlapOutcome, false)
        XCTAssertEqual(item.needed, 3)
        XCTAssertEqual(item.state, .open)
        XCTAssertNil(item.label)
        XCTAssertTrue(item.canLease(to: "c", at: 100))
        item.hold(for: "c", lease: "C", at: 100, until: 1000)
        item.apply(decision(3, "c", .label, ["大根", "にんじん"]), skipUntil: 0)
        XCTAssertEqual(item.label?.annotator, "c", "c agrees with a (same keywords in another order)")
        var split = self.item(overlap: true)
        for (id, annotator, keyword) in [(Int64(1), "a", "x"), (2, "b", "y"), (3, "c", "z")] {
            split.hold(for: annotator, lease: annotator, at: 100, until: 1000)
            split.apply(decision(id, annotator, .label, [keyword]), skipUntil: 0)
        }
        XCTAssertEqual(split.label?.keywords, ["z"], "with no majority the third decides")
    }

    func testAgreeingOverlapIsLabelledByTheSecond() {
        var item = item(overlap: true)
        for (id, annotator) in [(Int64(1), "a"), (2, "b")] {
            item.hold(for: annotator, lease: "L", at: 100, until: 1000)
            item.apply(decision(id, annotator, .label, ["にんじん"]), skipUntil: 0)
        }
        XCTAssertEqual(item.state, .labelled)
        XCTAssertEqual(item.overlapOutcome, true)
        XCTAssertEqual(item.label?.annotator, "b")
    }

    func testAutoAcceptedAndAudited() {
        let plain = item(auto: true)
        XCTAssertEqual(plain.state, .labelled)
        XCTAssertEqual(plain.label?.decidedBy, .model)
        XCTAssertEqual(plain.label?.at, 100)
        var audited = item(auto: true, audit: true)
        XCTAssertEqual(audited.state, .open)
        XCTAssertEqual(audited.label?.decidedBy, .model, "the model's label stands until a person checks it")
        audited.hold(for: "a", lease: "L", at: 100, until: 1000)
        audited.apply(decision(1, "a", .label, ["大根"]), skipUntil: 0)
        XCTAssertEqual(audited.auditOutcome, false)
        XCTAssertEqual(audited.label?.keywords, ["大根"])
    }

    func testSkipCoolsDownFlagSetsAsideAndRevertRestoresTheHold() {
        var item = item()
        item.hold(for: "a", lease: "L", at: 100, until: 1000)
        let skip = decision(1, "a", .skip)
        item.apply(skip, skipUntil: 5000)
        XCTAssertFalse(item.canLease(to: "a", at: 4999))
        XCTAssertTrue(item.canLease(to: "a", at: 5000))
        XCTAssertTrue(item.canLease(to: "b", at: 200))
        item.revert(skip, at: 300, until: 900)
        XCTAssertEqual(item.holds, [QueueHold(annotator: "a", lease: "L", since: 300, until: 900)])
        XCTAssertTrue(item.skips.isEmpty)
        let flag = decision(2, "a", .flag)
        item.apply(flag, skipUntil: 0)
        XCTAssertEqual(item.state, .flagged)
        XCTAssertFalse(item.canLease(to: "b", at: 300))
        item.revert(flag, at: 400, until: 1000)
        XCTAssertEqual(item.state, .open)
        XCTAssertNotNil(item.hold(of: "a", lease: "L"))
    }

    func testUndoTargetStaysWithinDepth() {
        let policy = QueuePolicy(undoDepth: 2)
        var latest = [decision(3, "a"), decision(2, "a"), decision(1, "a")]
        XCTAssertEqual(policy.undoTarget(latest)?.id, 3)
        latest[0].undone = true
        XCTAssertEqual(policy.undoTarget(latest)?.id, 2)
        latest[1].undone = true
        XCTAssertNil(policy.undoTarget(latest), "decision 1 is beyond the depth")
    }

    func testRoutingSharesAreStableAndNearTheirValue() {
        let policy = QueuePolicy(overlapShare: 0.1, auditShare: 0.05)
        let ids = (0..<20_000).map { "SKU-\($0)" }
        let overlap = ids.filter(policy.routesToOverlap).count
        let audit = ids.filter(policy.routesToAudit).count
        XCTAssertEqual(Double(overlap) / 20_000, 0.1, accuracy: 0.01)
        XCTAssertEqual(Double(audit) / 20_000, 0.05, accuracy: 0.008)
        XCTAssertEqual(ids.filter(policy.routesToOverlap).count, overlap)
        XCTAssertEqual(QueuePolicy.unitHash("SKU-1"), QueuePolicy.unitHash("SKU-1"))
        XCTAssertFalse(QueuePolicy(overlapShare: 0).routesToOverlap("SKU-1"))
        XCTAssertTrue(QueuePolicy(overlapShare: 1).routesToOverlap("SKU-1"))
    }

    func testLinesRoundTrip() throws {
        var item = item(overlap: true, auto: false)
        item.hold(for: "a", lease: "L", at: 100, until: 1000)
        item.apply(decision(1, "a", .label, ["にんじん"]), skipUntil: 0)
        item.skips = [QueueSkip(annotator: "z", until: 7)]
        item.flag = QueueVote(annotator: "b", keywords: [], decision: 9, at: 10)
        XCTAssertEqual(try QueueLine.decode(QueueLine.item(item).encoded().dropLast()), .item(item))
        let decision = QueueDecision(id: 4, annotator: "a", item: "i", kind: .skip, lease: "L", keywords: [], feedback: [3, 4],
                                     at: 5, seconds: 1.5, undone: true)
        XCTAssertEqual(try QueueLine.decode(QueueLine.decision(decision).encoded().dropLast()), .decision(decision))
        XCTAssertEqual(try QueueLine.item(fromDocument: QueueLine.itemDocument(item)), item)
        // Whether the first suggestion was the head: written only when it was not, and true when absent (lines
        // written before the field existed).
        XCTAssertFalse(QueueLine.itemDocument(item).contains("first_is_head"))
        var described = item
        described.firstIsHead = false
        XCTAssertTrue(QueueLine.itemDocument(described).contains(#""first_is_head":false"#))
        XCTAssertEqual(try QueueLine.item(fromDocument: QueueLine.itemDocument(described)), described)
        let evidence = QueueEvidence(model: "m", keyword: "ごま", confidence: 0.99, category: nil, correct: false, audit: false,
                                     firstIsHead: false)
        XCTAssertEqual(try QueueLine.evidence(fromDocument: QueueLine.evidenceDocument(evidence)), evidence)
        XCTAssertTrue(try QueueLine.evidence(fromDocument: #"{"model":"m","keyword":"k","confidence":0.9,"correct":true,"audit":false}"#).firstIsHead)
        XCTAssertThrowsError(try QueueLine.evidence(fromDocument: #"{"model":"m","keyword":"k","confidence":0.9,"correct":true,"audit":false,"first_is_head":1}"#)) { error in
            XCTAssertEqual("\(error)", "not a queue record: 'evidence.first_is_head' must be true or false")
        }
        XCTAssertThrowsError(try QueueLine.decode(Array(#"{"item":{"id":"x"},"decision":null}"#.utf8)))
        var damaged = String(decoding: QueueLine.item(item).encoded().dropLast(), as: UTF8.self)
        damaged = damaged.replacingOccurrences(of: #""until":7"#, with: #""until":"soon""#)
        XCTAssertThrowsError(try QueueLine.decode(Array(damaged.utf8))) { error in
            XCTAssertEqual("\(error)", "not a queue record: 'item.skips[0].until' must be an integer")
        }
        XCTAssertThrowsError(try QueueLine.decode(Array(#"{"commit":true,"commit":true}"#.utf8)), "a repeated key")
    }
}
