import StoreInterface
import XCTest

/// The client-id rule every store appends feedback by, on its own: what is written, what is a retry, what refuses
/// the batch.
final class FeedbackAppendTests: XCTestCase {
    private func item(_ keyword: String, client: String?) -> FeedbackItem {
        FeedbackItem(name: "カラーにんじん 3本", keyword: keyword, action: .accept, clientID: client)
    }

    func testRetriesGetTheFirstRecordAndOnlyNewItemsAreWritten() throws {
        let stored = FeedbackRecord(id: 7, receivedAt: "2026-01-31T12:00:00.000Z", item: item("にんじん", client: "a"))
        var written: [FeedbackItem] = []
        var next: Int64 = 10
        let receipts = try FeedbackAppend.receipts(
            for: [item("にんじん", client: "a"), item("たまねぎ", client: "b"), item("たまねぎ", client: "b"), item("豚肉", client: nil)],
            receivedAt: "2026-02-01T00:00:00.000Z",
            earlier: { (key) throws(KeywordStoreError) -> FeedbackRecord? in key == "a" ? stored : nil },
            write: { (item) throws(KeywordStoreError) -> Int64 in
                written.append(item)
                next += 1
                return next
            })
        XCTAssertEqual(receipts, [FeedbackReceipt(id: 7, duplicate: true), FeedbackReceipt(id: 11, duplicate: false),
                                  FeedbackReceipt(id: 11, duplicate: true), FeedbackReceipt(id: 12, duplicate: false)])
        XCTAssertEqual(written.map(\.keyword), ["たまねぎ", "豚肉"])
    }

    /// A client id is compared in its key form (NFC), and the item written carries that form.
    func testClientIDsAreComparedAndWrittenInKeyForm() throws {
        var written: [FeedbackItem] = []
        let receipts = try FeedbackAppend.receipts(
            for: [item("にんじん", client: "e\u{301}"), item("にんじん", client: "\u{e9}")], receivedAt: "2026-02-01T00:00:00.000Z",
            earlier: { (_) throws(KeywordStoreError) -> FeedbackRecord? in nil },
            write: { (item) throws(KeywordStoreError) -> Int64 in
                written.append(item)
                return 1
            })
        XCTAssertEqual(receipts, [FeedbackReceipt(id: 1, duplicate: false), FeedbackReceipt(id: 1, duplicate: true)])
        XCTAssertEqual(written.map(\.clientID), [FeedbackRules.clientKey("\u{e9}")])
    }

    /// The same client id with another decision, stored or earlier in the batch, refuses the batch.
    func testAnotherDecisionUnderTheSameClientIDRefusesTheBatch() {
        let stored = FeedbackRecord(id: 7, receivedAt: "2026-01-31T12:00:00.000Z", item: item("にんじん", client: "a"))
        for (batch, earlierID) in [([item("たまねぎ", client: "a")], Int64(7)),
                                   ([item("豚肉", client: "c"), item("牛肉", client: "c")], Int64(1))] {
            XCTAssertThrowsError(try FeedbackAppend.receipts(
                for: batch, receivedAt: "2026-02-01T00:00:00.000Z",
                earlier: { (key) throws(KeywordStoreError) -> FeedbackRecord? in key == "a" ? stored : nil },
                write: { (_) throws(KeywordStoreError) -> Int64 in 1 })) { error in
                guard case .clientIDConflict(_, let id)? = error as? KeywordStoreError else { return XCTFail("\(error)") }
                XCTAssertEqual(id, earlierID)
            }
        }
    }
}
