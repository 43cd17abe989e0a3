import DecisionMemory
import FileStore
import Foundation
import QueueAPI
import StoreInterface
import TeamQueue
import XCTest

final class QueueMemoryTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "queue-memory-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func decision(_ id: Int64, _ name: String, _ keyword: String, by annotator: String) -> FeedbackRecord {
        FeedbackRecord(id: id, receivedAt: "", item: FeedbackItem(name: name, keyword: keyword, action: .correct, annotator: annotator))
    }

    func testADecidedNameIsLabelledByTheMemoryAndADisputedOneIsQueued() throws {
        let memory = DecisionMemory()
        let engine = try RememberingEngineTests.makeEngine(directory: directory, memory: memory)
        memory.ingest([decision(1, "w1 w9 1kg", "w3", by: "alice"), decision(2, "w2 w9", "w3", by: "alice"),
                       decision(3, "w2 w9 2kg", "w5", by: "bob"),
                       FeedbackRecord(id: 4, receivedAt: "", item: FeedbackItem(name: "w1 w9", keyword: "w3", action: .accept))])
        let store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
        let queueStore = FileQueueStore(overlayPath: store.overlayPath, feedbackStore: store,
                                        policy: QueuePolicy(overlapShare: 0, auditShare: 1))
        let queue = AnnotationQueue(store: queueStore, clock: { 1_000 })
        let summary = try queue.enqueue([QueueProduct(id: "p1", name: "w1 w9 500g"), QueueProduct(id: "p2", name: "w2 w9"),
                                         QueueProduct(id: "p3", name: "w1 w8")], engine: engine)
        XCTAssertEqual(summary, EnqueueSummary(queued: 2, autoAccepted: 0, fromMemory: 1, duplicates: 0))
        let labels = try queueStore.labels(after: nil, limit: 10)
        XCTAssertEqual(labels.count, 1)
        let label = try XCTUnwrap(labels.first)
        XCTAssertEqual(label.id, "p1")
        XCTAssertEqual(label.decidedBy, .memory)
        XCTAssertEqual(label.keywords, ["w3"])
        XCTAssertEqual(label.annotators, ["alice"])
        XCTAssertNil(label.annotator)
        XCTAssertEqual(String(decoding: label.exportLine(), as: UTF8.self),
                       #"{"id":"p1","name":"w1 w9 500g","keywords":["w3"],"decided_by":"memory","annotator":null,"model":"test-1","at":"1970-01-01T00:00:01.000Z","annotators":["alice"]}"# + "\n")
        // The disputed name waits for people, with both remembered keywords shown first.
        let lease = try queue.lease(LeaseRequest(annotator: "carol", count: 10))
        let disputed = try XCTUnwrap(lease.items.first { $0.id == "p2" })
        XCTAssertEqual(Set(disputed.suggestions.prefix(2).map(\.keyword)), ["w3", "w5"])
        XCTAssertNil(disputed.memoryLabel)
    }

    func testAMemoryLabelSurvivesTheStoresLineAndIsChecked() throws {
        var item = QueueItem(QueueSubmission(id: "p1", name: "おーいお茶 2L", suggestions: [QueueSuggestion(keyword: "お茶", confidence: 0.4)],
                                             autoAccept: true, model: "m1",
                                             memory: QueueMemoryLabel(keywords: ["緑茶"], annotators: ["alice", "bob"])),
                             at: 5, policy: QueuePolicy(overlapShare: 1, auditShare: 1))
        XCTAssertNil(item.modelKeyword, "the memory's label comes before the model's")
        XCTAssertFalse(item.overlap)
        XCTAssertFalse(item.audit)
        XCTAssertEqual(item.state, .labelled)
        XCTAssertEqual(try QueueLine.item(fromDocument: QueueLine.itemDocument(item)), item)
        item.memoryLabel = QueueMemoryLabel(keywords: [], annotators: ["alice"])
        XCTAssertThrowsError(try QueueLine.item(fromDocument: QueueLine.itemDocument(item)))
    }
}
