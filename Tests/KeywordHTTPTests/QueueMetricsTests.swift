import FileStore
import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import QueueAPI
import StoreInterface
import TeamQueue
import XCTest

/// A queue store whose figures wait until the test lets them go: a file store's lock held by another process, or
/// a database that does not answer, as /metrics sees it.
private final class StalledFigures: QueueStore, @unchecked Sendable {
    let inner: any QueueStore
    let gate = DispatchSemaphore(value: 0)
    init(_ inner: any QueueStore) { self.inner = inner }
    var policy: QueuePolicy { inner.policy }
    func enqueue(_ submissions: [QueueSubmission], at now: QueueTime) throws(QueueError) -> EnqueueSummary { try inner.enqueue(submissions, at: now) }
    func lease(_ request: LeaseRequest, at now: QueueTime) throws(QueueError) -> QueueLease { try inner.lease(request, at: now) }
    func decide(_ request: DecisionRequest, at now: QueueTime) throws(QueueError) -> [QueueDecision] { try inner.decide(request, at: now) }
    func undo(annotator: String, at now: QueueTime) throws(QueueError) -> QueueDecision { try inner.undo(annotator: annotator, at: now) }
    func stats(at now: QueueTime) throws(QueueError) -> QueueStats {
        gate.wait()
        return try inner.stats(at: now)
    }
    func labels(after cursor: LabelCursor?, limit: Int) throws(QueueError) -> [QueueLabel] { try inner.labels(after: cursor, limit: limit) }
    func flagged(after cursor: LabelCursor?, limit: Int) throws(QueueError) -> [QueueFlag] { try inner.flagged(after: cursor, limit: limit) }
    func withdrawnFeedback() throws(QueueError) -> Set<Int64> { try inner.withdrawnFeedback() }
    func evidence(model: String?) throws(QueueError) -> [QueueEvidence] { try inner.evidence(model: model) }
    func keywordCounts() throws(QueueError) -> [String: QueueKeywordCounts] { try inner.keywordCounts() }
}

/// /metrics reads the queue's figures off the event loop: a scrape never waits on the store.
final class QueueMetricsTests: XCTestCase {
    func testAScrapeNeverWaitsOnTheQueueStore() throws {
        let directory = NSTemporaryDirectory() + "queue-metrics-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
        let stalled = StalledFigures(FileQueueStore(overlayPath: store.overlayPath, feedbackStore: store,
                                                    policy: QueuePolicy(overlapShare: 0, auditShare: 0)))
        let api = makeAPI(engine: AutoAcceptEngine(), store: store)
        api.state.setQueue(AnnotationQueue(store: stalled))
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/queue/items", body: #"{"items": [{"id": "a", "name": "にんじん"}]}"#)).status.code, 200)

        // Four scrapes while the store's figures are stalled all answer, as does /healthz, without the figures.
        let answered = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for _ in 0..<4 {
                let metrics = api.respond(to: makeRequest(.get, "/metrics"))
                XCTAssertEqual(metrics.status.code, 200)
                XCTAssertFalse(metrics.bodyText.contains("kwsuggest_queue_items{"), "no figures were read yet")
                XCTAssertTrue(metrics.bodyText.contains("kwsuggest_queue_enqueued_total{outcome=\"queued\"} 1"))
            }
            XCTAssertEqual(api.respond(to: makeRequest(.get, "/healthz")).status.code, 200)
            answered.signal()
        }
        XCTAssertEqual(answered.wait(timeout: .now() + 30), .success, "a scrape waited on the stalled store")

        // Once the store answers, the figures it read are served, with their age.
        stalled.gate.signal()
        api.handlers.queue.figures.settle()
        stalled.gate.signal()  // for the read the next scrape starts, if the figures are stale by then
        let metrics = api.respond(to: makeRequest(.get, "/metrics")).bodyText
        XCTAssertTrue(metrics.contains("kwsuggest_queue_items{state=\"queued\"} 1"), metrics)
        XCTAssertTrue(metrics.contains("kwsuggest_queue_figures_age_seconds "), metrics)
    }
}
