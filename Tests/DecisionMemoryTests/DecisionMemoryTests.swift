import DecisionMemory
import FileStore
import Foundation
import StoreInterface
import TeamQueue
import XCTest

final class DecisionMemoryTests: XCTestCase {
    /// Keys names by their words less pack sizes (a word starting with a digit), as a model's name key would.
    static let keyer: DecisionMemory.Keyer = { name in
        name.split(separator: " ").filter { !($0.first?.isNumber ?? true) }.joined()
    }

    func record(_ id: Int64, _ name: String, _ keyword: String, _ action: FeedbackAction = .correct,
                by annotator: String? = "alice") -> FeedbackRecord {
        FeedbackRecord(id: id, receivedAt: "", item: FeedbackItem(name: name, keyword: keyword, action: action,
                                                                  annotator: annotator))
    }

    func testADecisionAnswersEveryNameWithItsKey() throws {
        let memory = DecisionMemory(keyer: Self.keyer, identity: "test")
        memory.ingest([record(1, "おーいお茶 2L", "緑茶")])
        let recall = try XCTUnwrap(memory.recall("おーいお茶 525ml"))
        XCTAssertEqual(recall.name, "おーいお茶 2L")
        XCTAssertEqual(recall.keywords.map(\.keyword), ["緑茶"])
        XCTAssertEqual(recall.keywords.first?.annotators, ["alice"])
        XCTAssertNil(memory.recall("ほうじ茶 2L"))
        XCTAssertEqual(memory.count, 1)
        XCTAssertEqual(memory.lastRecordID, 1)
    }

    func testConfidenceFollowsAgreement() throws {
        let memory = DecisionMemory(keyer: Self.keyer, identity: "test")
        memory.ingest([record(1, "a 1", "x", by: "alice")])
        XCTAssertEqual(try XCTUnwrap(memory.recall("a")?.keywords.first?.confidence), 0.95, accuracy: 1e-12)
        memory.ingest([record(2, "a 2", "x", .accept, by: "bob")])
        XCTAssertEqual(try XCTUnwrap(memory.recall("a")?.keywords.first?.confidence), 361.0 / 362.0, accuracy: 1e-12)
        memory.ingest([record(3, "a", "y", by: "carol")])
        let recall = try XCTUnwrap(memory.recall("a"))
        XCTAssertTrue(recall.disagreement)
        XCTAssertEqual(recall.keywords.map(\.keyword), ["x", "y"])
        XCTAssertEqual(recall.keywords[0].confidence, 0.95, accuracy: 1e-12)
        XCTAssertEqual(recall.keywords[1].confidence, 0.05, accuracy: 1e-12)
    }

    func testRecordsCountOnceAndWithdrawnOnesLeave() throws {
        let memory = DecisionMemory(keyer: Self.keyer, identity: "test")
        let first = record(1, "a", "x", by: "alice"), second = record(2, "a", "y", by: "alice")
        memory.ingest([first, second])
        memory.ingest([second, first])
        XCTAssertEqual(memory.recall("a")?.keywords.map(\.keyword), ["y"])
        memory.withdraw([2])
        XCTAssertEqual(memory.recall("a")?.keywords.map(\.keyword), ["x"])
        // A withdrawn record read again (a follower behind the local write) stays out.
        memory.ingest([second])
        XCTAssertEqual(memory.recall("a")?.keywords.map(\.keyword), ["x"])
        memory.withdraw([1, 2])
        XCTAssertNil(memory.recall("a"))
        XCTAssertEqual(memory.count, 0)
        // Withdrawn before it was read: never enters.
        memory.withdraw([3])
        memory.ingest([record(3, "b", "z")])
        XCTAssertNil(memory.recall("b"))
    }

    func testARejectOfTheDecidedKeywordForgetsIt() {
        let memory = DecisionMemory(keyer: Self.keyer, identity: "test")
        memory.ingest([record(1, "a", "x", by: "alice"), record(2, "a 3", "x", .reject, by: "bob")])
        XCTAssertNil(memory.recall("a"))
    }

    func testNamesWithNoKeyAreNotRemembered() {
        let memory = DecisionMemory(keyer: Self.keyer, identity: "test")
        memory.ingest([record(5, "1kg 2", "x")])
        XCTAssertNil(memory.recall("1kg 2"))
        XCTAssertEqual(memory.count, 0)
        XCTAssertEqual(memory.lastRecordID, 5)
    }

    func testAnotherNormalisationKeysEveryDecisionAgain() {
        let memory = DecisionMemory(keyer: Self.keyer, identity: "words")
        memory.ingest([record(1, "Green Tea 2L", "緑茶")])
        XCTAssertNil(memory.recall("greentea"))
        memory.adopt(keyer: { Self.keyer($0).lowercased() }, identity: "lower")
        XCTAssertEqual(memory.recall("GREEN TEA")?.keywords.map(\.keyword), ["緑茶"])
        // The same identity keeps the keys as they are.
        memory.adopt(keyer: { _ in "" }, identity: "lower")
        XCTAssertEqual(memory.recall("green tea")?.keywords.map(\.keyword), ["緑茶"])
    }

    func testCatchUpReadsTheStoreAPageAtATimeAndFollowsUndos() throws {
        let directory = NSTemporaryDirectory() + "memory-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
        let count = 1_500
        let items = (0 ..< count).map { FeedbackItem(name: "name\($0) 1kg", keyword: "k\($0 % 7)", action: .correct, annotator: "alice") }
        for start in stride(from: 0, to: count, by: 1_000) {
            _ = try store.appendFeedback(Array(items[start ..< min(count, start + 1_000)]))
        }
        let memory = DecisionMemory(keyer: Self.keyer, identity: "test")
        XCTAssertEqual(try memory.catchUp(store: store, queue: nil, pageRecords: 1_000), count)
        XCTAssertEqual(memory.count, count)
        XCTAssertEqual(memory.recall("name1234")?.keywords.map(\.keyword), ["k\(1234 % 7)"])
        XCTAssertEqual(try memory.catchUp(store: store, queue: nil, pageRecords: 1_000), 0)
        _ = try store.appendFeedback([FeedbackItem(name: "name1234", keyword: "k0", action: .correct, annotator: "alice")])
        XCTAssertEqual(try memory.catchUp(store: store, queue: nil, pageRecords: 1_000), 1)
        XCTAssertEqual(memory.recall("name1234 500g")?.keywords.map(\.keyword), ["k0"])

        // A queue decision's feedback enters the memory, and leaves it when the decision is undone.
        let queue = FileQueueStore(overlayPath: store.overlayPath, feedbackStore: store, policy: QueuePolicy(overlapShare: 0, auditShare: 0))
        _ = try queue.enqueue([QueueSubmission(id: "p1", name: "ほうじ茶 2L", suggestions: [], autoAccept: false, model: "m")], at: 1_000)
        let lease = try queue.lease(LeaseRequest(annotator: "bob", count: 1), at: 2_000)
        _ = try queue.decide(DecisionRequest(lease: lease.id, annotator: "bob", ids: ["p1"], kind: .label, keywords: ["ほうじ茶"]),
                             at: 3_000)
        try memory.catchUp(store: store, queue: queue)
        XCTAssertEqual(memory.recall("ほうじ茶")?.keywords.map(\.keyword), ["ほうじ茶"])
        _ = try queue.undo(annotator: "bob", at: 4_000)
        try memory.catchUp(store: store, queue: queue)
        XCTAssertNil(memory.recall("ほうじ茶"))
    }
}
