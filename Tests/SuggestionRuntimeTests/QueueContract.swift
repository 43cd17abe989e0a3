import Foundation
@testable import FileStore
@testable import PostgresStore
@testable import StoreInterface
@testable import TeamQueue
import XCTest

/// Checks every QueueStore must pass, run against the file store and against a real PostgreSQL.
/// `make` opens a new store (another process or replica) on the same files or database with `policy`, and
/// `feedback` reads the keyword store the queue writes its feedback to, and `importFeedback` imports records into it
/// as `store import` does.
struct QueueContract {
    var make: (QueuePolicy) throws -> any QueueStore
    var feedback: () throws -> [FeedbackRecord]
    var importFeedback: ([FeedbackRecord]) throws -> Void

    static let t0: QueueTime = 1_790_000_000_000

    static func submission(_ id: String, name: String? = nil, top: String = "にんじん", confidence: Double = 0.5,
                           auto: Bool = false) -> QueueSubmission {
        QueueSubmission(id: id, name: name ?? "name of \(id)",
                        suggestions: [QueueSuggestion(keyword: top, confidence: confidence),
                                      QueueSuggestion(keyword: "じゃがいも", confidence: confidence / 2)],
                        autoAccept: auto, model: "m1")
    }

    /// Duplicates change nothing, a renamed id is queued again, auto-accepted items are labelled by the model.
    func enqueueCountsAndRenames() throws {
        let store = try make(QueuePolicy(overlapShare: 0, auditShare: 0))
        let first = try store.enqueue([Self.submission("a"), Self.submission("b", auto: true), Self.submission("c")], at: Self.t0)
        XCTAssertEqual(first, EnqueueSummary(queued: 2, autoAccepted: 1, duplicates: 0))
        let again = try make(store.policy).enqueue([Self.submission("a"), Self.submission("b", auto: true),
                                                   Self.submission("c", name: "renamed c")], at: Self.t0 + 1)
        XCTAssertEqual(again, EnqueueSummary(queued: 1, autoAccepted: 0, duplicates: 2))
        let labels = try store.labels(after: nil, limit: 10)
        XCTAssertEqual(labels.map(\.id), ["b"])
        XCTAssertEqual(labels.first?.decidedBy, .model)
        XCTAssertEqual(labels.first?.keywords, ["にんじん"])
        let stats = try store.stats(at: Self.t0 + 2)
        XCTAssertEqual(stats.items, QueueStats.Items(queued: 2, leased: 0, labelled: 1, flagged: 0))
        XCTAssertEqual(stats.autoAccepted, 1)
        let lease = try store.lease(LeaseRequest(annotator: "aiko", count: 5), at: Self.t0 + 2)
        XCTAssertEqual(Set(lease.items.map(\.name)), ["name of a", "renamed c"])
    }

    /// A new name with the item's name key is a cosmetic change: the label stays, undo still reaches it, and only
    /// a name with another key starts the item over.
    func cosmeticChangesAreNotRenames() throws {
        let policy = QueuePolicy(overlapShare: 0, auditShare: 0)
        let store = try make(policy)
        func keyed(_ name: String, _ key: String) -> QueueSubmission {
            var submission = Self.submission("k", name: name)
            submission.nameKey = key
            return submission
        }
        _ = try store.enqueue([keyed("国産豚バラ肉 500g", "国産豚バラ肉")], at: Self.t0)
        let lease = try store.lease(LeaseRequest(annotator: "aiko", count: 1), at: Self.t0)
        _ = try store.decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: ["k"], kind: .label, keywords: ["豚バラ肉"]),
                             at: Self.t0 + 1)
        let cosmetic = try make(policy).enqueue([keyed("国産  豚バラ肉 ５００ｇ", "国産豚バラ肉")], at: Self.t0 + 2)
        XCTAssertEqual(cosmetic, EnqueueSummary(duplicates: 1))
        XCTAssertEqual(try store.labels(after: nil, limit: 10).map(\.keywords), [["豚バラ肉"]])
        XCTAssertEqual(try store.undo(annotator: "aiko", at: Self.t0 + 3).item, "k")
        let renamed = try store.enqueue([keyed("国産 牛バラ肉", "国産牛バラ肉")], at: Self.t0 + 4)
        XCTAssertEqual(renamed, EnqueueSummary(queued: 1))
        XCTAssertEqual(try store.lease(LeaseRequest(annotator: "aiko", count: 1), at: Self.t0 + 5).items.map(\.name), ["国産 牛バラ肉"])
    }

    /// Leases on separate instances, all at once: no item is handed to two annotators.
    func concurrentLeasesAreExclusive(stores count: Int = 4, items: Int = 120) throws {
        let setup = try make(QueuePolicy(overlapShare: 0, auditShare: 0))
        _ = try setup.enqueue((0..<items).map { Self.submission("item-\($0)", confidence: Double($0 % 17) / 17) }, at: Self.t0)
        let stores = try (0..<count).map { _ in try make(setup.policy) }
        let taken = Failures()
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: count) { index in
            do {
                while true {
                    let lease = try stores[index].lease(LeaseRequest(annotator: "annotator-\(index)", count: 7), at: Self.t0 + 10)
                    if lease.items.isEmpty { break }
                    for item in lease.items { taken.add(item.id) }
                }
            } catch {
                failures.add("\(error)")
            }
        }
        XCTAssertEqual(failures.all, [])
        XCTAssertEqual(taken.all.count, items, "every item leased exactly once")
        XCTAssertEqual(Set(taken.all).count, items)
        XCTAssertEqual(try setup.stats(at: Self.t0 + 11).items.leased, items)
    }

    /// A lease holds its items until it expires; then another annotator may take them and the first one's
    /// decision is refused.
    func leasesExpire() throws {
        let policy = QueuePolicy(overlapShare: 0, auditShare: 0, leaseMillis: 60_000)
        let store = try make(policy)
        _ = try store.enqueue([Self.submission("x")], at: Self.t0)
        let first = try store.lease(LeaseRequest(annotator: "aiko"), at: Self.t0)
        XCTAssertEqual(first.items.map(\.id), ["x"])
        XCTAssertEqual(first.expiresAt, Self.t0 + 60_000)
        XCTAssertEqual(try make(policy).lease(LeaseRequest(annotator: "ben"), at: Self.t0 + 59_999).items, [])
        let second = try make(policy).lease(LeaseRequest(annotator: "ben"), at: Self.t0 + 60_000)
        XCTAssertEqual(second.items.map(\.id), ["x"])
        XCTAssertThrowsError(try store.decide(DecisionRequest(lease: first.id, annotator: "aiko", ids: ["x"], kind: .label,
                                                              keywords: ["にんじん"]), at: Self.t0 + 60_001)) { error in
            XCTAssertEqual(error as? QueueError, .notHeld("x"))
        }
    }

    /// Orders and review by keyword.
    func ordersAndKeywordFilter() throws {
        let store = try make(QueuePolicy(overlapShare: 0, auditShare: 0))
        _ = try store.enqueue([Self.submission("low", confidence: 0.1), Self.submission("high", confidence: 0.9),
                               Self.submission("mid", top: "ごぼう", confidence: 0.5)], at: Self.t0)
        _ = try store.enqueue([Self.submission("late", confidence: 0.05)], at: Self.t0 + 5)
        func ids(_ order: QueueOrder, keyword: String? = nil, annotator: String) throws -> [String] {
            try store.lease(LeaseRequest(annotator: annotator, count: 10, order: order, keyword: keyword), at: Self.t0 + 10).items.map(\.id)
        }
        XCTAssertEqual(try ids(.confident, keyword: "にんじん", annotator: "a"), ["high", "low", "late"])
        XCTAssertEqual(try ids(.uncertain, annotator: "b"), ["mid"])
        let other = try make(QueuePolicy(overlapShare: 0, auditShare: 0))
        // Confidences compare as numbers, never as text ("1e-05" sorts after "0.9" as text).
        _ = try other.enqueue([Self.submission("p", confidence: 0.3), Self.submission("q", confidence: 0.00001),
                               Self.submission("r", confidence: 0.2)], at: Self.t0 + 20)
        XCTAssertEqual(try other.lease(LeaseRequest(annotator: "c", count: 1, order: .oldest), at: Self.t0 + 30).items.map(\.id), ["p"])
        XCTAssertEqual(try other.lease(LeaseRequest(annotator: "c", count: 2, order: .uncertain), at: Self.t0 + 30).items.map(\.id), ["q", "r"])
    }

    /// The flagged list pages in (flag time, id) order: items flagged at one time are ordered by id, a page ends
    /// at `limit`, and a cursor in the middle of a tie resumes after its id (with no id, at that time).
    func flaggedListPages() throws {
        let policy = QueuePolicy(overlapShare: 0, auditShare: 0)
        let store = try make(policy)
        _ = try store.enqueue(["f4", "f2", "f3", "f1", "f5"].map { Self.submission($0) }, at: Self.t0)
        let lease = try store.lease(LeaseRequest(annotator: "aiko", count: 5, order: .oldest), at: Self.t0)
        XCTAssertEqual(lease.items.count, 5)
        _ = try store.decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: ["f5"], kind: .flag), at: Self.t0 + 1000)
        for id in ["f4", "f2", "f3"] {
            _ = try store.decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: [id], kind: .flag), at: Self.t0 + 2000)
        }
        _ = try store.decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: ["f1"], kind: .label, keywords: ["にんじん"]),
                             at: Self.t0 + 2000)
        let reader = try make(policy)
        XCTAssertEqual(try reader.flagged(after: nil, limit: 10).map(\.id), ["f5", "f2", "f3", "f4"])
        XCTAssertEqual(try reader.flagged(after: nil, limit: 2).map(\.id), ["f5", "f2"])
        XCTAssertEqual(try reader.flagged(after: LabelCursor(at: Self.t0 + 2000, id: "f2"), limit: 2).map(\.id), ["f3", "f4"])
        XCTAssertEqual(try reader.flagged(after: LabelCursor(at: Self.t0 + 2000, id: "f4"), limit: 2).map(\.id), [])
        XCTAssertEqual(try reader.flagged(after: LabelCursor(at: Self.t0 + 1000, id: nil), limit: 10).map(\.id), ["f5", "f2", "f3", "f4"])
        XCTAssertEqual(try reader.flagged(after: LabelCursor(at: Self.t0 + 1000, id: "f5"), limit: 10).map(\.id), ["f2", "f3", "f4"])
        XCTAssertEqual(try reader.flagged(after: LabelCursor(at: Self.t0 + 2000, id: nil), limit: 1).map(\.id), ["f2"])
    }

    /// Labels (one and many) write feedback, skip cools down, flag sets aside, undo walks back and withdraws.
    func decisionsFeedbackAndUndo() throws {
        let policy = QueuePolicy(overlapShare: 0, auditShare: 0, skipCooldownMillis: 1000, undoDepth: 3)
        let store = try make(policy)
        _ = try store.enqueue((1...6).map { Self.submission("s\($0)") }, at: Self.t0)
        let lease = try store.lease(LeaseRequest(annotator: "aiko", count: 6, order: .oldest), at: Self.t0)
        XCTAssertEqual(lease.items.count, 6)
        let one = try store.decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: ["s1"], kind: .label,
                                                   keywords: ["にんじん", "大根"]), at: Self.t0 + 4000)
        XCTAssertEqual(one.count, 1)
        XCTAssertEqual(one[0].seconds, 4)
        let many = try make(policy).decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: ["s2", "s3"], kind: .label,
                                                           keywords: ["じゃがいも"]), at: Self.t0 + 5000)
        XCTAssertEqual(many.map(\.item), ["s2", "s3"])
        XCTAssertEqual(many.map(\.seconds), [1, 0])
        _ = try store.decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: ["s4"], kind: .skip), at: Self.t0 + 6000)
        _ = try store.decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: ["s5"], kind: .flag), at: Self.t0 + 7000)
        XCTAssertThrowsError(try store.decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: ["s1"], kind: .label,
                                                              keywords: ["x"]), at: Self.t0 + 7000)) { error in
            XCTAssertEqual(error as? QueueError, .notOpen("s1"))
        }
        XCTAssertThrowsError(try store.decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: ["s6", "nope"], kind: .label,
                                                              keywords: ["x"]), at: Self.t0 + 7000)) { error in
            XCTAssertEqual(error as? QueueError, .unknownItem("nope"))
        }
        let records = try feedback()
        XCTAssertEqual(records.map(\.item.keyword), ["にんじん", "大根", "じゃがいも", "じゃがいも"])
        XCTAssertEqual(records.map(\.item.action), [.accept, .correct, .accept, .accept])
        XCTAssertEqual(records[0].item.shown, ["にんじん", "じゃがいも"])
        XCTAssertEqual(records[0].item.annotator, "aiko")
        XCTAssertEqual(records[0].item.name, "name of s1")

        // The skipped item is not leased to its annotator during the cool-down, but to others; after it, again.
        XCTAssertEqual(try store.lease(LeaseRequest(annotator: "aiko"), at: Self.t0 + 6500).items.map(\.id), [])
        var stats = try store.stats(at: Self.t0 + 6500)
        XCTAssertEqual(stats.items, QueueStats.Items(queued: 1, leased: 1, labelled: 3, flagged: 1))
        XCTAssertEqual(stats.annotators["aiko"]?.decisions, 5)
        XCTAssertEqual(stats.annotators["aiko"]?.medianSeconds, 1)
        // The flagged list names the item, who flagged it, when, and what the model suggested; it pages by (time, id).
        let flags = try make(policy).flagged(after: nil, limit: 10)
        XCTAssertEqual(flags, [QueueFlag(id: "s5", name: "name of s5", annotator: "aiko", at: Self.t0 + 7000,
                                         suggestions: lease.items[4].suggestions)])
        XCTAssertEqual(try store.flagged(after: LabelCursor(at: Self.t0 + 7000, id: "s5"), limit: 10), [])
        XCTAssertEqual(try store.flagged(after: LabelCursor(at: Self.t0 + 7000, id: nil), limit: 10).map(\.id), ["s5"])
        XCTAssertEqual(try store.flagged(after: nil, limit: 0), [])

        // Undo: flag, skip, then s3 (depth 3); a fourth finds nothing within reach.
        let undone = try (0..<3).map { _ in try make(policy).undo(annotator: "aiko", at: Self.t0 + 8000).item }
        XCTAssertEqual(undone, ["s5", "s4", "s3"])
        XCTAssertThrowsError(try store.undo(annotator: "aiko", at: Self.t0 + 8000)) { error in
            XCTAssertEqual(error as? QueueError, .nothingToUndo)
        }
        XCTAssertEqual(try store.withdrawnFeedback(), [many[1].feedback[0]])
        // The undone items are back in aiko's lease: she can decide them again, and relabelling writes new feedback.
        let redo = try store.decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: ["s3", "s4", "s5"], kind: .label,
                                                    keywords: ["ごぼう"]), at: Self.t0 + 9000)
        XCTAssertEqual(redo.count, 3)
        XCTAssertFalse(redo[0].feedback.contains(many[1].feedback[0]))
        stats = try store.stats(at: Self.t0 + 9000)
        XCTAssertEqual(stats.items, QueueStats.Items(queued: 0, leased: 1, labelled: 5, flagged: 0))
        XCTAssertEqual(try store.flagged(after: nil, limit: 10), [], "an undone flag leaves the flagged list")
        let labels = try store.labels(after: nil, limit: 100)
        XCTAssertEqual(labels.map(\.id), ["s1", "s2", "s3", "s4", "s5"])
        XCTAssertEqual(labels.last?.keywords, ["ごぼう"])
        XCTAssertEqual(labels.last?.annotator, "aiko")
        XCTAssertEqual(try store.labels(after: LabelCursor(at: labels[1].at, id: labels[1].id), limit: 2).map(\.id), ["s3", "s4"])
    }

    /// Overlap items go to two annotators (at once), a third when they disagree; audited items to one person.
    func overlapAgreementAndAudit() throws {
        let policy = QueuePolicy(overlapShare: 1, auditShare: 1)
        let store = try make(policy)
        _ = try store.enqueue([Self.submission("o1"), Self.submission("o2"), Self.submission("auto", auto: true)], at: Self.t0)
        let a = try store.lease(LeaseRequest(annotator: "a", count: 10), at: Self.t0)
        let b = try make(policy).lease(LeaseRequest(annotator: "b", count: 10), at: Self.t0)
        XCTAssertEqual(Set(a.items.map(\.id)), ["o1", "o2", "auto"])
        XCTAssertEqual(Set(b.items.map(\.id)), ["o1", "o2"])
        XCTAssertEqual(try store.lease(LeaseRequest(annotator: "c"), at: Self.t0).items, [])
        for (lease, annotator, o2) in [(a, "a", "ごぼう"), (b, "b", "大根")] {
            _ = try store.decide(DecisionRequest(lease: lease.id, annotator: annotator, ids: ["o1"], kind: .label,
                                                 keywords: ["にんじん"]), at: Self.t0 + 1)
            _ = try store.decide(DecisionRequest(lease: lease.id, annotator: annotator, ids: ["o2"], kind: .label,
                                                 keywords: [o2]), at: Self.t0 + 1)
        }
        _ = try store.decide(DecisionRequest(lease: a.id, annotator: "a", ids: ["auto"], kind: .label,
                                             keywords: ["じゃがいも"]), at: Self.t0 + 1)
        let c = try store.lease(LeaseRequest(annotator: "c"), at: Self.t0 + 2)
        XCTAssertEqual(c.items.map(\.id), ["o2"])
        _ = try store.decide(DecisionRequest(lease: c.id, annotator: "c", ids: ["o2"], kind: .label, keywords: ["大根"]), at: Self.t0 + 3)
        let stats = try store.stats(at: Self.t0 + 3)
        XCTAssertEqual(stats.overlapItems, 2)
        XCTAssertEqual(stats.agreed, 1)
        XCTAssertEqual(stats.autoAccepted, 1)
        XCTAssertEqual(stats.audited, 1)
        XCTAssertEqual(stats.auditPrecision, 0)
        let labels = Dictionary(uniqueKeysWithValues: try store.labels(after: nil, limit: 10).map { ($0.id, $0) })
        XCTAssertEqual(labels["o1"]?.keywords, ["にんじん"])
        XCTAssertEqual(labels["o2"]?.keywords, ["大根"])
        XCTAssertEqual(labels["o2"]?.annotator, "c")
        XCTAssertEqual(labels["auto"]?.decidedBy, .annotator)
        XCTAssertEqual(stats.items.labelled, 3)
    }
}

extension QueueContract {
    /// Undo gives an item back only when its annotator could hold it again under the lease rules: never while
    /// another annotator holds it, and not once the product was renamed. The decision then stands.
    func undoNeverTakesAnItemFromAnotherLease() throws {
        let policy = QueuePolicy(overlapShare: 0, auditShare: 0)
        let store = try make(policy)
        _ = try store.enqueue([Self.submission("s")], at: Self.t0)
        let first = try store.lease(LeaseRequest(annotator: "aiko"), at: Self.t0)
        _ = try store.decide(DecisionRequest(lease: first.id, annotator: "aiko", ids: ["s"], kind: .skip), at: Self.t0 + 1)
        let other = try make(policy).lease(LeaseRequest(annotator: "ben"), at: Self.t0 + 2)
        XCTAssertEqual(other.items.map(\.id), ["s"])
        XCTAssertThrowsError(try store.undo(annotator: "aiko", at: Self.t0 + 3)) { error in
            XCTAssertEqual(error as? QueueError, .cannotUndo("s", "another annotator holds it now"))
        }
        XCTAssertEqual(try store.stats(at: Self.t0 + 3).items.leased, 1)
        _ = try store.decide(DecisionRequest(lease: other.id, annotator: "ben", ids: ["s"], kind: .label, keywords: ["にんじん"]),
                             at: Self.t0 + 4)

        _ = try store.enqueue([Self.submission("r")], at: Self.t0 + 5)
        let second = try store.lease(LeaseRequest(annotator: "aiko"), at: Self.t0 + 6)
        XCTAssertEqual(second.items.map(\.id), ["r"])
        _ = try store.decide(DecisionRequest(lease: second.id, annotator: "aiko", ids: ["r"], kind: .label, keywords: ["にんじん"]),
                             at: Self.t0 + 7)
        _ = try store.enqueue([Self.submission("r", name: "renamed r")], at: Self.t0 + 8)
        XCTAssertThrowsError(try make(policy).undo(annotator: "aiko", at: Self.t0 + 9)) { error in
            XCTAssertEqual(error as? QueueError, .cannotUndo("r", "the product was renamed since"))
        }
        let third = try make(policy).lease(LeaseRequest(annotator: "ben"), at: Self.t0 + 10)
        XCTAssertEqual(third.items.map(\.name), ["renamed r"])
    }

    /// The submissions of one call apply in order: an id given twice with two names is renamed by the second,
    /// and a third with the second's name is a duplicate.
    func oneCallAppliesInOrder() throws {
        let store = try make(QueuePolicy(overlapShare: 0, auditShare: 0))
        let summary = try store.enqueue([Self.submission("a", name: "first"), Self.submission("a", name: "second"),
                                         Self.submission("a", name: "second")], at: Self.t0)
        XCTAssertEqual(summary, EnqueueSummary(queued: 2, autoAccepted: 0, duplicates: 1))
        let lease = try make(store.policy).lease(LeaseRequest(annotator: "aiko"), at: Self.t0 + 1)
        XCTAssertEqual(lease.items.map(\.name), ["second"])
    }

    /// An item id or annotator name is one whatever its Unicode form (NFC or NFD), in every store.
    func equivalentIDsAndAnnotatorsAreOne() throws {
        let store = try make(QueuePolicy(overlapShare: 0, auditShare: 0))
        let composed = "caf\u{e9}-1", decomposed = "cafe\u{301}-1"
        XCTAssertEqual(try store.enqueue([Self.submission(composed, name: "café au lait")], at: Self.t0),
                       EnqueueSummary(queued: 1, autoAccepted: 0, duplicates: 0))
        XCTAssertEqual(try make(store.policy).enqueue([Self.submission(decomposed, name: "café au lait")], at: Self.t0 + 1),
                       EnqueueSummary(queued: 0, autoAccepted: 0, duplicates: 1))
        let lease = try store.lease(LeaseRequest(annotator: "Jos\u{e9}"), at: Self.t0 + 2)
        XCTAssertEqual(lease.items.map { Array($0.id.utf8) }, [Array(composed.utf8)])
        _ = try store.decide(DecisionRequest(lease: lease.id, annotator: "Jose\u{301}", ids: [decomposed], kind: .label,
                                             keywords: ["にんじん"]), at: Self.t0 + 3)
        let stats = try make(store.policy).stats(at: Self.t0 + 4)
        XCTAssertEqual(stats.annotators.keys.map { Array($0.utf8) }, [Array("Jos\u{e9}".utf8)])
        XCTAssertEqual(stats.annotators.values.first?.decisions, 1)
        let undone = try make(store.policy).undo(annotator: "Jose\u{301}", at: Self.t0 + 5)
        XCTAssertEqual(Array(undone.item.utf8), Array(composed.utf8))
    }
}
