import Foundation
import Locking
@testable import StoreInterface
import XCTest

/// Checks every KeywordStore must pass, run against the file store and against a real PostgreSQL.
/// `make` opens a new store on the same underlying files or database (another process or replica).
struct StoreContract {
    var make: () throws -> any KeywordStore

    /// Writers on separate store instances, all at once: every acknowledged keyword is in the result.
    func concurrentChangesLoseNothing(writers: Int = 6, changesEach: Int = 15) throws {
        let stores = try (0..<writers).map { _ in try make() }
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for change in 0..<changesEach {
                do {
                    _ = try stores[writer].apply(KeywordChange(add: ["w\(writer)-\(change)"]))
                } catch {
                    failures.add("\(error)")
                }
            }
        }
        XCTAssertEqual(failures.all, [])
        let overlay = try make().loadOverlay()
        XCTAssertEqual(Set(overlay.added).count, writers * changesEach, "lost writes")
        XCTAssertEqual(overlay.added.count, writers * changesEach)
    }

    /// Order of additions is kept; a later change wins; `check` runs on the current overlay and can refuse.
    func changesApplyInOrderAndCheckCanRefuse() throws {
        let store = try make()
        XCTAssertEqual(try store.loadOverlay(), KeywordOverlay())
        XCTAssertEqual(try store.apply(KeywordChange(add: ["にんじん", "ごぼう"])), KeywordOverlay(added: ["にんじん", "ごぼう"]))
        XCTAssertEqual(try store.apply(KeywordChange(add: ["豚肉"], remove: ["にんじん"])),
                       KeywordOverlay(added: ["ごぼう", "豚肉"], removed: ["にんじん"]))
        XCTAssertThrowsError(try store.apply(KeywordChange(add: ["牛肉"])) { (overlay: KeywordOverlay) throws(KeywordStoreError) in
            XCTAssertEqual(overlay.added, ["ごぼう", "豚肉"])
            throw .versionMismatch(current: "v2")
        }) { error in
            XCTAssertEqual(error as? KeywordStoreError, .versionMismatch(current: "v2"))
        }
        let other = try make()
        XCTAssertEqual(try other.loadOverlay(), KeywordOverlay(added: ["ごぼう", "豚肉"], removed: ["にんじん"]))
        try other.replaceOverlay(KeywordOverlay(added: ["a"], removed: ["b"]))
        XCTAssertEqual(try store.loadOverlay(), KeywordOverlay(added: ["a"], removed: ["b"]))
    }

    /// Ids increase; a client id is stored once (in one batch, across calls and across instances).
    func feedbackIsIdempotentByClientID() throws {
        let store = try make()
        let first = try store.appendFeedback([
            FeedbackItem(name: "国産豚バラ肉 500g", keyword: "豚バラ肉", action: .accept, shown: ["豚バラ肉", "豚肉"],
                         model: "m1", annotator: "aiko", clientID: "c-1"),
            FeedbackItem(name: "カラーにんじん", keyword: "にんじん", action: .correct, clientID: "c-2"),
            FeedbackItem(name: "カラーにんじん", keyword: "にんじん", action: .correct, clientID: "c-2"),
        ])
        XCTAssertEqual(first.map(\.duplicate), [false, false, true])
        XCTAssertLessThan(first[0].id, first[1].id)
        XCTAssertEqual(first[1].id, first[2].id)
        let again = try make().appendFeedback([
            FeedbackItem(name: "国産豚バラ肉 500g", keyword: "豚バラ肉", action: .accept, shown: ["豚バラ肉", "豚肉"],
                         model: "m1", annotator: "aiko", clientID: "c-1"),
            FeedbackItem(name: "送料無料 玉ねぎ", keyword: "にんじん", action: .reject),
        ])
        XCTAssertEqual(again[0], FeedbackReceipt(id: first[0].id, duplicate: true))
        XCTAssertFalse(again[1].duplicate)
        XCTAssertGreaterThan(again[1].id, first[1].id)

        let records = try store.feedback(after: 0, limit: 100)
        XCTAssertEqual(records.map(\.id), [first[0].id, first[1].id, again[1].id])
        XCTAssertEqual(records[0].item, FeedbackItem(name: "国産豚バラ肉 500g", keyword: "豚バラ肉", action: .accept,
                                                     shown: ["豚バラ肉", "豚肉"], model: "m1", annotator: "aiko", clientID: "c-1"))
        XCTAssertTrue(records[0].receivedAt.hasSuffix("Z"), records[0].receivedAt)
        XCTAssertEqual(try store.feedback(after: first[1].id, limit: 100).map(\.id), [again[1].id])
        XCTAssertEqual(try store.feedback(after: 0, limit: 1).count, 1)
    }

    /// The same client id with another decision refuses the whole batch, whoever sends it, and names the earlier
    /// record; a retry with the same decision stays a duplicate. Client ids are one id in either Unicode form
    /// (`é` and `e` + U+0301), stored in NFC.
    func clientIDConflictsAreRefused() throws {
        let store = try make()
        let annotatorA = FeedbackItem(name: "カラーにんじん", keyword: "にんじん", action: .accept, annotator: "A", clientID: "1")
        let first = try store.appendFeedback([annotatorA])
        let annotatorB = FeedbackItem(name: "メークイン 1kg", keyword: "じゃがいも", action: .correct, annotator: "B", clientID: "1")
        let fresh = FeedbackItem(name: "玉ねぎ", keyword: "玉ねぎ", action: .accept)
        XCTAssertThrowsError(try make().appendFeedback([fresh, annotatorB])) { error in
            XCTAssertEqual(error as? KeywordStoreError, .clientIDConflict(clientID: "1", earlierID: first[0].id))
        }
        let inOneBatch = FeedbackItem(name: "x", keyword: "y", action: .accept, clientID: "twice")
        var changed = inOneBatch
        changed.action = .reject
        XCTAssertThrowsError(try store.appendFeedback([inOneBatch, changed])) { error in
            guard case .clientIDConflict(let id, _) = error as? KeywordStoreError else { return XCTFail("\(error)") }
            XCTAssertEqual(id, "twice")
        }
        XCTAssertEqual(try store.feedback(after: 0, limit: 10).map(\.id), [first[0].id], "nothing of a refused batch is stored")
        XCTAssertEqual(try store.appendFeedback([annotatorA]), [FeedbackReceipt(id: first[0].id, duplicate: true)])

        let composed = FeedbackItem(name: "n", keyword: "k", action: .accept, clientID: "caf\u{E9}")
        let decomposed = FeedbackItem(name: "n", keyword: "k", action: .accept, clientID: "cafe\u{301}")
        let stored = try store.appendFeedback([decomposed])
        XCTAssertEqual(try make().appendFeedback([composed]), [FeedbackReceipt(id: stored[0].id, duplicate: true)])
        let record = try XCTUnwrap(store.feedback(after: first[0].id, limit: 10).first)
        XCTAssertEqual(Array(try XCTUnwrap(record.item.clientID).unicodeScalars), Array("caf\u{E9}".unicodeScalars))
    }

    /// An import cannot use up the record ids: it may give ids up to `maxImportedRecordID` (the largest is refused
    /// whole, nothing stored), and new records still get ids after the largest it gave.
    func recordIDsCannotOverflow() throws {
        let store = try make()
        for id in [FeedbackRules.maxRecordID, FeedbackRules.maxImportedRecordID + 1] {
            let beyond = FeedbackRecord(id: id, receivedAt: "2026-01-02T03:04:05.678Z",
                                        item: FeedbackItem(name: "a", keyword: "x", action: .accept))
            XCTAssertThrowsError(try store.importFeedback([beyond])) { error in
                guard case .failed(let message) = error as? KeywordStoreError else { return XCTFail("\(error)") }
                XCTAssertTrue(message.contains("cannot be imported"), message)
            }
        }
        XCTAssertEqual(try store.feedback(after: 0, limit: 10), [])
        let top = FeedbackRecord(id: FeedbackRules.maxImportedRecordID, receivedAt: "2026-01-02T03:04:05.678Z",
                                 item: FeedbackItem(name: "a", keyword: "x", action: .accept))
        XCTAssertEqual(try store.importFeedback([top]), 1)
        for round in 1...2 {
            let receipts = try make().appendFeedback([FeedbackItem(name: "b\(round)", keyword: "y", action: .accept)])
            XCTAssertEqual(receipts.map(\.id), [FeedbackRules.maxImportedRecordID + Int64(round)])
        }
        XCTAssertEqual(try store.feedback(after: 0, limit: 10).count, 3)
    }

    /// Concurrent feedback writers on separate instances: every acknowledged record is there, ids distinct.
    func concurrentFeedbackLosesNothing(writers: Int = 4, itemsEach: Int = 10) throws {
        let stores = try (0..<writers).map { _ in try make() }
        let ids = Failures()
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for item in 0..<itemsEach {
                do {
                    let receipts = try stores[writer].appendFeedback([FeedbackItem(name: "n\(writer)-\(item)", keyword: "k", action: .accept)])
                    ids.add(String(receipts[0].id))
                } catch {
                    failures.add("\(error)")
                }
            }
        }
        XCTAssertEqual(failures.all, [])
        XCTAssertEqual(Set(ids.all).count, writers * itemsEach)
        XCTAssertEqual(try make().feedback(after: 0, limit: 10_000).count, writers * itemsEach)
    }

    /// Import keeps ids and times, skips ids already present, and later appends get larger ids.
    func importKeepsIDs() throws {
        let store = try make()
        let records = [
            FeedbackRecord(id: 7, receivedAt: "2026-01-02T03:04:05.678Z", item: FeedbackItem(name: "a", keyword: "x", action: .accept)),
            FeedbackRecord(id: 9, receivedAt: "2026-01-02T03:04:06.000Z",
                           item: FeedbackItem(name: "b", keyword: "y", action: .reject, shown: ["y"], clientID: "z")),
        ]
        XCTAssertEqual(try store.importFeedback(records), 2)
        XCTAssertEqual(try store.importFeedback(records), 0)
        XCTAssertEqual(try store.feedback(after: 0, limit: 10), records)
        let next = try store.appendFeedback([FeedbackItem(name: "c", keyword: "w", action: .accept)])
        XCTAssertGreaterThan(next[0].id, 9)
    }

    /// Pages in id order even when imported ids stand out of order, and the id an export ends at: the
    /// `limit`-th after `after`, the last one without a limit, nil when there is none.
    func feedbackPagesAndLastID() throws {
        let store = try make()
        XCTAssertNil(try store.lastFeedbackID(after: 0, limit: nil))
        XCTAssertNil(try store.lastFeedbackID(after: 0, limit: 5))
        _ = try store.appendFeedback((1...30).map { FeedbackItem(name: "n\($0)", keyword: "k", action: .accept) })
        let imported = [40, 35].map {
            FeedbackRecord(id: Int64($0), receivedAt: "2026-01-02T03:04:05.678Z", item: FeedbackItem(name: "i\($0)", keyword: "k", action: .reject))
        }
        XCTAssertEqual(try store.importFeedback(imported), 2)
        XCTAssertEqual(try store.feedback(after: 28, limit: 3).map(\.id), [29, 30, 35])
        XCTAssertEqual(try store.feedback(after: 0, limit: 100).map(\.id), Array(1...30).map(Int64.init) + [35, 40])
        XCTAssertEqual(try store.lastFeedbackID(after: 0, limit: nil), 40)
        XCTAssertEqual(try store.lastFeedbackID(after: 0, limit: 1), 1)
        XCTAssertEqual(try store.lastFeedbackID(after: 10, limit: 5), 15)
        XCTAssertEqual(try store.lastFeedbackID(after: 28, limit: 3), 35)
        XCTAssertEqual(try store.lastFeedbackID(after: 28, limit: 100), 40)
        XCTAssertNil(try store.lastFeedbackID(after: 40, limit: nil))
        // Another instance (another process or replica) sees the same.
        XCTAssertEqual(try make().lastFeedbackID(after: 35, limit: 10), 40)
    }
}

/// Strings collected from many threads.
final class Failures: Sendable {
    private let items = Locked<[String]>([])
    func add(_ item: String) { items.withLock { $0.append(item) } }
    var all: [String] { items.withLock { $0 } }
}
