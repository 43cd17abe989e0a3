import Foundation
@testable import StoreInterface
@testable import TeamQueue
import XCTest

extension QueueContract {
    /// Every label on a suggested item is evidence about the model that suggested it: read back by another
    /// instance (a replica, a restarted process), per model version, with the category the item arrived with;
    /// skips and flags are not evidence, and undo withdraws a label's evidence. Whether the first suggestion was the
    /// head of the name travels from the submission to the evidence.
    func labelsAreEvidence() throws {
        let policy = QueuePolicy(overlapShare: 0, auditShare: 1)
        let store = try make(policy)
        var other = Self.submission("v2", top: "ごま", confidence: 0.99)
        other.model = "m2"
        var categorised = Self.submission("right", confidence: 0.97)
        categorised.category = "野菜"
        var described = Self.submission("wrong", confidence: 0.9)
        described.firstIsHead = false
        _ = try store.enqueue([categorised, described, Self.submission("skipped"),
                               Self.submission("audited", confidence: 0.995, auto: true), other], at: Self.t0)
        let lease = try store.lease(LeaseRequest(annotator: "aiko", count: 10), at: Self.t0)
        XCTAssertEqual(lease.items.count, 5)
        func decide(_ id: String, _ keywords: [String], kind: QueueDecisionKind = .label) throws {
            _ = try store.decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: [id], kind: kind, keywords: keywords),
                                 at: Self.t0 + 1)
        }
        try decide("right", ["にんじん", "大根"])
        try decide("wrong", ["ごぼう"])
        try decide("skipped", [], kind: .skip)
        try decide("audited", ["にんじん"])
        try decide("v2", ["ごま担々麺"])
        let expected = [
            QueueEvidence(model: "m1", keyword: "にんじん", confidence: 0.97, category: "野菜", correct: true, audit: false),
            QueueEvidence(model: "m1", keyword: "にんじん", confidence: 0.9, category: nil, correct: false, audit: false,
                          firstIsHead: false),
            QueueEvidence(model: "m1", keyword: "にんじん", confidence: 0.995, category: nil, correct: true, audit: true),
        ]
        let reader = try make(policy)
        XCTAssertEqual(try reader.evidence(model: "m1"), expected)
        XCTAssertEqual(try reader.evidence(model: "m2").map(\.correct), [false])
        XCTAssertEqual(try reader.evidence(model: nil).count, 4)
        let counts = try reader.keywordCounts()
        XCTAssertEqual(counts["にんじん"]?.autoAccepted, 1)
        XCTAssertEqual(counts["にんじん"]?.queued, 1, "the skipped item waits again")
        _ = try reader.undo(annotator: "aiko", at: Self.t0 + 2)
        XCTAssertEqual(try make(policy).evidence(model: "m2"), [], "undo withdrew the latest label's evidence")
        XCTAssertEqual(try make(policy).evidence(model: "m1"), expected)
    }
}
