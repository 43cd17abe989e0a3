import APICore
import FileStore
import Foundation
import HTTPCore
@testable import KeywordHTTP
import QueueAPI
import SuggestionRuntime
import StoreInterface
import TeamQueue
import XCTest

/// What one feedback export may cost: a bounded piece per pull whatever the records' size, a cap on exports
/// streaming at once, and the bulk lane rather than the suggest lane or an event loop.
final class ExportBoundsTests: XCTestCase {
    private var directory = ""
    private var store: FileKeywordStore!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "export-bounds-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func export(_ api: KeywordAPI, _ target: String = "/v1/feedback/export?format=raw") -> HTTPResponse {
        let request = makeRequest(.get, target)
        return api.match(request).handler(request)
    }

    /// The largest records the API takes (a 1,000-character name, 50 shown keywords of 100 characters) come out in
    /// pieces of about 256 KiB, not a whole page at a time.
    func testPiecesStayNearTheirSizeWhateverTheRecords() throws {
        let limits = APILimits()
        let name = String(repeating: "𩸽", count: limits.maxNameCharacters)
        let shown = (0..<limits.maxK).map { "\($0)" + String(repeating: "鰤", count: limits.maxKeywordCharacters - 2) }
        let total = 300
        for start in stride(from: 0, to: total, by: 100) {
            _ = try store.appendFeedback((start..<start + 100).map { _ in
                FeedbackItem(name: name, keyword: "にんじん", action: .accept, shown: shown)
            })
        }
        let api = makeAPI(store: store)
        let stream = try XCTUnwrap(export(api).stream)
        var lines = 0
        var largest = 0
        while case .bytes(let piece) = stream.next() {
            largest = max(largest, piece.count)
            lines += piece.filter { $0 == 0x0A }.count
        }
        XCTAssertEqual(lines, total)
        XCTAssertLessThanOrEqual(largest, FeedbackExport.pieceBytes + 64 * 1024, "one pull rendered \(largest) bytes")
    }

    /// Beyond `maxConcurrentExports` streaming at once: 503 server_busy with Retry-After; a finished or dropped
    /// export gives its place back.
    func testConcurrentExportsAreCapped() throws {
        _ = try store.appendFeedback((1...3).map { FeedbackItem(name: "名前 \($0)", keyword: "にんじん", action: .accept) })
        var configuration = APIConfiguration()
        configuration.limits.maxConcurrentExports = 2
        let api = KeywordAPI(configuration: configuration, state: EngineSlot(engine: FakeEngine(), store: store),
                             metrics: KeywordAPI.makeMetrics())
        let second = export(api)
        XCTAssertNotNil(second.stream)
        do {
            let first = export(api)
            XCTAssertNotNil(first.stream)
            let refused = export(api)
            XCTAssertEqual(refused.status.code, 503)
            XCTAssertEqual(errorCode(refused), "server_busy")
            XCTAssertEqual(refused.headers["Retry-After"], "1")
        }
        // The first one's client left: the connection dropped its stream, and its place is free again.
        XCTAssertNotNil(export(api).stream)
        // One streamed to its end gives its place back as well.
        XCTAssertEqual(api.respond(to: makeRequest(.get, "/v1/feedback/export")).status, .ok)
        XCTAssertEqual(api.handlers.exportSlots.inUse, 1)
    }

    /// The labels and flagged exports are capped as the feedback export is (503 server_busy with Retry-After), and
    /// their pages come in (time, id) order across page boundaries.
    func testQueueExportsAreCappedAndPaged() throws {
        var configuration = APIConfiguration()
        configuration.limits.maxConcurrentExports = 2
        let api = KeywordAPI(configuration: configuration, state: EngineSlot(engine: FakeEngine(), store: store),
                             metrics: KeywordAPI.makeMetrics())
        let queue = FileQueueStore(overlayPath: store.overlayPath, feedbackStore: store, policy: QueuePolicy(overlapShare: 0, auditShare: 0))
        api.state.setQueue(AnnotationQueue(store: queue, clock: { 1_790_000_000_000 }))
        let count = 2 * 1000 + 7  // three pages of the export's 1,000
        _ = try queue.enqueue((0..<count).map {
            QueueSubmission(id: "p\($0)", name: "にんじん \($0)", suggestions: [QueueSuggestion(keyword: "にんじん", confidence: 0.9)],
                            autoAccept: true, model: "m")
        }, at: 1_790_000_000_000)
        let body = api.respond(to: makeRequest(.get, "/v1/labels/export")).bodyText
        let ids = body.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.compactMap { $0["id"] as? String }
        XCTAssertEqual(ids, (0..<count).map { "p\($0)" }.sorted())
        for target in ["/v1/labels/export", "/v1/queue/flagged"] {
            let held = [export(api, target), export(api, target)]
            XCTAssertTrue(held.allSatisfy { $0.stream != nil })
            let refused = export(api, target)
            XCTAssertEqual(refused.status.code, 503, target)
            XCTAssertEqual(errorCode(refused), "server_busy")
            XCTAssertEqual(refused.headers["Retry-After"], "1")
        }
        XCTAssertNotNil(export(api, "/v1/labels/export").stream, "dropped exports give their places back")
    }

    /// Export pages (feedback and labels) and keyword pages are read on the bulk lane: never an event loop, never
    /// the suggest lane.
    func testLargeAnswersRunOnTheBulkLane() {
        let api = makeAPI(store: store)
        for target in ["/v1/feedback/export", "/v1/keywords", "/v1/labels/export"] {
            let route = api.match(makeRequest(.get, target))
            XCTAssertTrue(route.isBlocking, target)
            XCTAssertEqual(route.lane, .bulkReads, target)
        }
        XCTAssertEqual(api.match(makeRequest(.post, "/v1/suggest/batch", body: "{}")).lane, .batches)
        // Enqueueing up to 1,000 items suggests each: batch work, kept off the keyword writes' lane.
        XCTAssertEqual(api.match(makeRequest(.post, "/v1/queue/items", body: "{}")).lane, .batches)
    }
}
