import Foundation
@testable import StoreInterface
@testable import TeamQueue
import XCTest

/// The feedback a label writes, on every store: ids no other label and no client can take, and a decision over
/// several items that stores its items and their feedback all or none.
extension QueueContract {
    /// Item `x:y` labelled by `z` and item `x` labelled by `y:z` write two records with two ids, both in the queue's
    /// namespace, which `POST /v1/feedback` refuses and an import keeps.
    func feedbackIDsAreUnambiguous() throws {
        let store = try make(QueuePolicy(overlapShare: 0, auditShare: 0))
        _ = try store.enqueue([Self.submission("x:y")], at: Self.t0)
        _ = try store.enqueue([Self.submission("x")], at: Self.t0 + 1)
        let first = try store.lease(LeaseRequest(annotator: "z", count: 1, order: .oldest), at: Self.t0 + 2)
        XCTAssertEqual(first.items.map(\.id), ["x:y"])
        let second = try make(store.policy).lease(LeaseRequest(annotator: "y:z", count: 1, order: .oldest), at: Self.t0 + 3)
        XCTAssertEqual(second.items.map(\.id), ["x"])
        _ = try store.decide(DecisionRequest(lease: first.id, annotator: "z", ids: ["x:y"], kind: .label, keywords: ["にんじん"]),
                             at: Self.t0 + 4)
        _ = try make(store.policy).decide(DecisionRequest(lease: second.id, annotator: "y:z", ids: ["x"], kind: .label,
                                                          keywords: ["にんじん"]), at: Self.t0 + 5)
        let records = try feedback()
        XCTAssertEqual(records.map(\.item.name), ["name of x:y", "name of x"])
        let ids = records.compactMap(\.item.clientID)
        XCTAssertEqual(Set(ids).count, 2, "two labels, two ids: \(ids)")
        for id in ids {
            XCTAssertTrue(id.hasPrefix(FeedbackRules.queueIDPrefix), id)
            let item = FeedbackItem(name: "人参", keyword: "にんじん", action: .accept, clientID: id)
            XCTAssertThrowsError(try FeedbackRules.checked(item)) { error in
                XCTAssertEqual((error as? FeedbackProblem)?.kind, .clientID)
            }
            XCTAssertEqual(try FeedbackRules.checked(FeedbackRecord(id: 1, receivedAt: "2026-01-31T12:00:00.000Z", item: item)).item.clientID,
                           id, "an import keeps the queue's ids")
        }
    }

    /// A label over two items whose second item's feedback id is held by an imported record with another decision
    /// is refused whole: neither item is decided and no feedback record of it is stored; both stay leased.
    func decisionsAreAllOrNone() throws {
        let store = try make(QueuePolicy(overlapShare: 0, auditShare: 0))
        _ = try store.enqueue([Self.submission("a"), Self.submission("b")], at: Self.t0)
        let lease = try store.lease(LeaseRequest(annotator: "carol", count: 2), at: Self.t0 + 1)
        XCTAssertEqual(Set(lease.items.map(\.id)), ["a", "b"])
        let taken = FeedbackItem(name: "an imported decision", keyword: "にんじん", action: .accept, annotator: "carol",
                                 clientID: FeedbackRules.queueClientID(item: "b", annotator: "carol", attempt: 0, keyword: "にんじん"))
        try importFeedback([FeedbackRecord(id: 500, receivedAt: "2026-01-31T12:00:00.000Z", item: taken)])
        XCTAssertThrowsError(try store.decide(DecisionRequest(lease: lease.id, annotator: "carol", ids: ["a", "b"], kind: .label,
                                                              keywords: ["にんじん"]), at: Self.t0 + 2)) { error in
            guard case .store(.clientIDConflict(_, 500))? = error as? QueueError else {
                return XCTFail("\(error)")
            }
        }
        XCTAssertEqual(try feedback().map(\.id), [500], "no feedback of the refused decision is stored")
        let stats = try make(store.policy).stats(at: Self.t0 + 3)
        XCTAssertEqual(stats.items, QueueStats.Items(queued: 0, leased: 2, labelled: 0, flagged: 0))
        XCTAssertThrowsError(try store.undo(annotator: "carol", at: Self.t0 + 3)) { error in
            XCTAssertEqual(error as? QueueError, .nothingToUndo)
        }
        // The item without a conflict is labelled alone, with its feedback.
        let decided = try store.decide(DecisionRequest(lease: lease.id, annotator: "carol", ids: ["a"], kind: .label,
                                                       keywords: ["にんじん"]), at: Self.t0 + 4)
        XCTAssertEqual(decided.count, 1)
        XCTAssertEqual(try feedback().count, 2)
    }
}
