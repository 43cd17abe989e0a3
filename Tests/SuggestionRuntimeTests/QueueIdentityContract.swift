import Foundation
@testable import StoreInterface
@testable import TeamQueue
import XCTest

/// Who holds what, on every store: one annotator however their name is spelled, and no more items than the cap.
extension QueueContract {
    /// A lease past the cap gets only what fits, and a lease at it gets nothing; earlier leases are kept, leases
    /// that expired stop counting, and other annotators are not held back.
    func leaseCapHoldsOverLeases() throws {
        let policy = QueuePolicy(overlapShare: 0, auditShare: 0, leaseMillis: 60_000, leaseCap: 5)
        let store = try make(policy)
        _ = try store.enqueue((0..<20).map { Self.submission("c\($0)") }, at: Self.t0)
        let first = try store.lease(LeaseRequest(annotator: "mallory", count: 3), at: Self.t0 + 1)
        XCTAssertEqual(first.items.count, 3)
        XCTAssertEqual(try make(policy).lease(LeaseRequest(annotator: "mallory", count: 10), at: Self.t0 + 2).items.count, 2)
        XCTAssertEqual(try make(policy).lease(LeaseRequest(annotator: " ｍａｌｌｏｒｙ", count: 10), at: Self.t0 + 3).items, [])
        XCTAssertEqual(try store.lease(LeaseRequest(annotator: "ann", count: 10), at: Self.t0 + 4).items.count, 5)
        _ = try store.decide(DecisionRequest(lease: first.id, annotator: "mallory", ids: [first.items[0].id], kind: .label,
                                             keywords: ["にんじん"]), at: Self.t0 + 5)
        XCTAssertEqual(try store.lease(LeaseRequest(annotator: "mallory", count: 10), at: Self.t0 + 6).items.count, 1)
        XCTAssertEqual(try store.stats(at: Self.t0 + 7).items.leased, 10)
        // Once the leases expire, the cap counts nothing of them.
        XCTAssertEqual(try store.lease(LeaseRequest(annotator: "mallory", count: 10), at: Self.t0 + 70_000).items.count, 5)
    }

    /// Concurrent leases by one annotator on separate instances never hold more than the cap together.
    func concurrentLeasesKeepTheCap() throws {
        let policy = QueuePolicy(overlapShare: 0, auditShare: 0, leaseCap: 7)
        let setup = try make(policy)
        _ = try setup.enqueue((0..<60).map { Self.submission("k\($0)") }, at: Self.t0)
        let stores = try (0..<4).map { _ in try make(policy) }
        let taken = Failures()
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: stores.count) { index in
            do {
                for _ in 0..<3 {
                    for item in try stores[index].lease(LeaseRequest(annotator: "mallory", count: 3), at: Self.t0 + 1).items {
                        taken.add(item.id)
                    }
                }
            } catch {
                failures.add("\(error)")
            }
        }
        XCTAssertEqual(failures.all, [])
        XCTAssertEqual(taken.all.count, 7)
    }

    /// Names differing only by white space around them or compatibility forms are one annotator: a skip's
    /// cool-down holds for all of them, and stats count them once.
    func keysFollowTheKeywordRules() throws {
        let store = try make(QueuePolicy(overlapShare: 0, auditShare: 0))
        _ = try store.enqueue([Self.submission("ｓｋｕ-1", name: "にんじん")], at: Self.t0)
        XCTAssertEqual(try store.enqueue([Self.submission(" sku-1 ", name: "にんじん")], at: Self.t0).duplicates, 1)
        let lease = try store.lease(LeaseRequest(annotator: " bob"), at: Self.t0 + 1)
        XCTAssertEqual(lease.items.map(\.id), ["sku-1"])
        _ = try make(store.policy).decide(DecisionRequest(lease: lease.id, annotator: "ｂｏｂ", ids: ["ｓｋｕ-1"], kind: .skip),
                                          at: Self.t0 + 2)
        XCTAssertEqual(try make(store.policy).lease(LeaseRequest(annotator: "bob\u{3000}"), at: Self.t0 + 3).items, [])
        XCTAssertEqual(Array(try store.stats(at: Self.t0 + 4).annotators.keys), ["bob"])
    }
}

extension QueueContract {
    /// A decide-and-undo loop stops at `maxDecisionsPerItem` decisions by one annotator on one item, so it cannot
    /// grow the logs without bound; others may still decide the item.
    func decideUndoLoopsAreBounded() throws {
        let policy = QueuePolicy(overlapShare: 0, auditShare: 0, maxDecisionsPerItem: 3)
        let store = try make(policy)
        _ = try store.enqueue([Self.submission("loop")], at: Self.t0)
        let lease = try store.lease(LeaseRequest(annotator: "looper"), at: Self.t0 + 1)
        let label = DecisionRequest(lease: lease.id, annotator: "looper", ids: ["loop"], kind: .label, keywords: ["にんじん"])
        for round in 0..<3 {
            _ = try make(policy).decide(label, at: Self.t0 + 10 * QueueTime(round) + 2)
            _ = try make(policy).undo(annotator: "looper", at: Self.t0 + 10 * QueueTime(round) + 3)
        }
        XCTAssertThrowsError(try store.decide(label, at: Self.t0 + 50)) { error in
            XCTAssertEqual(error as? QueueError, .tooManyDecisions("loop", 3))
        }
        XCTAssertEqual(try feedback().count, 3, "three labels, three records; the refused one wrote none")
        // The item is still open to others.
        let other = try store.lease(LeaseRequest(annotator: "other"), at: Self.t0 + 10 * 60_000 + 60)
        XCTAssertEqual(other.items.map(\.id), ["loop"])
    }
}
