import EventLog
import FileStore
import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import Locking
import Platform
import QueueAPI
import SuggestionRuntime
import StoreInterface
import TeamQueue
import XCTest

/// An engine whose answer for a name containing "auto" is auto-accepted; otherwise the FakeEngine's ranking
/// with confidences that fall with rank.
final class AutoAcceptEngine: SuggestionEngine {
    let fake = FakeEngine()
    var modelVersion: String { "queue-test-1" }

    func suggest(_ name: String, k: Int, explain: Bool) -> SuggestionResult {
        var result = fake.suggest(name, k: k, explain: explain)
        let top = name.contains("sure") ? 0.9 : 0.4
        for index in result.suggestions.indices { result.suggestions[index].confidence = top / Double(index + 1) }
        // A name marked "flavour" reads as one whose first keyword is not the head of the name.
        result.firstIsHead = !name.contains("flavour")
        result.autoAccept = name.contains("auto") && result.firstIsHead
        return result
    }

    func keywordList() -> KeywordListSnapshot { fake.keywordList() }
    func updateKeywords(_ change: KeywordChange) throws -> KeywordListSnapshot { try fake.updateKeywords(change) }
    func reloadKeywords() throws -> KeywordListSnapshot { try fake.reloadKeywords() }
}

/// The queue routes called without sockets, on a real file store in a temporary directory, with a stepped clock.
final class QueueAPITests: XCTestCase {
    private var directory = ""
    private var store: FileKeywordStore!
    private let clock = SteppedClock()

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "queue-api-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The API on a queue that auto-accepts by the engine's answer (the calibration rule), so these tests set
    /// what is auto-accepted by name; `QueueKeywordsAPITests` covers the evidence rule.
    private func api(token: String? = nil, policy: QueuePolicy = QueuePolicy(overlapShare: 0, auditShare: 0)) -> KeywordAPI {
        let api = makeAPI(engine: AutoAcceptEngine(), token: token, store: store)
        let queue = FileQueueStore(overlayPath: store.overlayPath, feedbackStore: store, policy: policy)
        let clock = self.clock
        api.state.setQueue(AnnotationQueue(store: queue, clock: { clock.now() },
                                           autoAccept: AutoAcceptConfiguration(mode: .calibration)))
        return api
    }

    private func post(_ api: KeywordAPI, _ path: String, _ body: String, token: String? = nil) -> HTTPResponse {
        let headers = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        return api.respond(to: makeRequest(.post, path, headers: headers, body: body))
    }

    private func ids(_ lease: HTTPResponse) -> [String] {
        (jsonObject(lease)["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    func testItemsAreQueuedOrAutoAcceptedAndDuplicatesChangeNothing() throws {
        let api = self.api()
        let body = #"{"items": [{"id": "SKU-1", "name": "カラーにんじん"}, {"id": "SKU-2", "name": "auto たまねぎ"}, {"id": "SKU-3", "name": "sure 豚肉"}]}"#
        let first = post(api, "/v1/queue/items", body)
        XCTAssertEqual(first.status.code, 200, first.bodyText)
        XCTAssertEqual(first.bodyText, #"{"queued":2,"auto_accepted":1,"from_memory":0,"duplicates":0}"#)
        XCTAssertEqual(post(api, "/v1/queue/items", body).bodyText, #"{"queued":0,"auto_accepted":0,"from_memory":0,"duplicates":3}"#)
        let renamed = post(api, "/v1/queue/items", #"{"items": [{"id": "SKU-1", "name": "にんじん 3本"}]}"#)
        XCTAssertEqual(renamed.bodyText, #"{"queued":1,"auto_accepted":0,"from_memory":0,"duplicates":0}"#)

        let lease = post(api, "/v1/queue/lease", #"{"annotator": "aiko", "n": 10}"#)
        XCTAssertEqual(lease.status.code, 200, lease.bodyText)
        let object = jsonObject(lease)
        XCTAssertEqual(ids(lease), ["SKU-1", "SKU-3"], "uncertain first")
        XCTAssertEqual(object["expires_at"] as? String, UTCTime.format(milliseconds: clock.now() + 600_000))
        let items = object["items"] as? [[String: Any]] ?? []
        XCTAssertEqual(items.first?["name"] as? String, "にんじん 3本")
        let suggestions = items.first?["suggestions"] as? [[String: Any]] ?? []
        XCTAssertEqual(suggestions.count, 5)
        XCTAssertEqual(suggestions.first?["keyword"] as? String, "にんじん")
        XCTAssertEqual(suggestions.first?["confidence"] as? Double, 0.4)
        XCTAssertEqual(ids(post(api, "/v1/queue/lease", #"{"annotator": "ben"}"#)), [], "nothing left for another annotator")
    }

    func testLabelBulkSkipFlagUndoAndTheExports() throws {
        let api = self.api()
        _ = post(api, "/v1/queue/items", #"{"items": [{"id": "a", "name": "にんじん"}, {"id": "b", "name": "にんじん 2"}, {"id": "c", "name": "豚肉"}, {"id": "d", "name": "auto 牛肉"}]}"#)
        let review = post(api, "/v1/queue/lease", #"{"annotator": "aiko", "keyword": "にんじん", "order": "oldest"}"#)
        XCTAssertEqual(ids(review), ["a", "b"])
        let lease = try XCTUnwrap(jsonObject(review)["lease"] as? String)
        clock.advance(3000)
        let bulk = post(api, "/v1/queue/decisions", #"{"lease": "\#(lease)", "annotator": "aiko", "ids": ["a", "b"], "keywords": ["にんじん", "人参ジュース"]}"#)
        XCTAssertEqual(bulk.status.code, 200, bulk.bodyText)
        XCTAssertEqual(bulk.bodyText, #"{"decided":2,"feedback":[1,2,3,4]}"#)
        let records = try store.feedback(after: 0, limit: 10)
        XCTAssertEqual(records.map(\.item.action), [.accept, .correct, .accept, .correct])
        XCTAssertEqual(records.first?.item.model, "queue-test-1")

        let again = post(api, "/v1/queue/decisions", #"{"lease": "\#(lease)", "annotator": "aiko", "id": "a", "keywords": ["x"]}"#)
        XCTAssertEqual(again.status.code, 409)
        XCTAssertEqual(errorCode(again), "item_closed")
        let other = post(api, "/v1/queue/lease", #"{"annotator": "aiko"}"#)
        let otherLease = try XCTUnwrap(jsonObject(other)["lease"] as? String)
        XCTAssertEqual(ids(other), ["c"])
        XCTAssertEqual(errorCode(post(api, "/v1/queue/decisions", #"{"lease": "\#(lease)", "annotator": "aiko", "id": "c", "action": "skip"}"#)),
                       "not_leased")
        XCTAssertEqual(errorCode(post(api, "/v1/queue/decisions", #"{"lease": "\#(otherLease)", "annotator": "aiko", "id": "zz", "action": "skip"}"#)),
                       "unknown_item")
        clock.advance(1000)
        XCTAssertEqual(post(api, "/v1/queue/decisions", #"{"lease": "\#(otherLease)", "annotator": "aiko", "id": "c", "action": "flag"}"#).status.code, 200)

        var stats = jsonObject(api.respond(to: makeRequest(.get, "/v1/queue/stats")))
        XCTAssertEqual(stats["items"] as? [String: Int], ["queued": 0, "leased": 0, "labelled": 3, "flagged": 1])
        XCTAssertEqual((stats["annotators"] as? [String: [String: Any]])?["aiko"]?["decisions"] as? Int, 3)
        XCTAssertEqual((stats["annotators"] as? [String: [String: Any]])?["aiko"]?["median_seconds"] as? Double, 1)
        XCTAssertEqual((stats["auto_accept"] as? [String: Any])?["count"] as? Int, 1)
        XCTAssertTrue((stats["auto_accept"] as? [String: Any])?["audit_precision"] is NSNull)
        // The flagged list: the item, who flagged it, when, and the suggestions shown; `since` as the labels'.
        let flagged = api.respond(to: makeRequest(.get, "/v1/queue/flagged"))
        XCTAssertEqual(flagged.status.code, 200)
        XCTAssertEqual(flagged.headers["Content-Type"], "application/x-ndjson; charset=utf-8")
        let flagLines = flagged.bodyText.split(separator: "\n")
        XCTAssertEqual(flagLines.count, 1, flagged.bodyText)
        let flag = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(flagLines[0].utf8)) as? [String: Any])
        XCTAssertEqual(flag["id"] as? String, "c")
        XCTAssertEqual(flag["flagged_by"] as? String, "aiko")
        XCTAssertNotNil(flag["at"] as? String)
        XCTAssertFalse(((flag["suggestions"] as? [[String: Any]]) ?? []).isEmpty, flagged.bodyText)
        XCTAssertEqual(api.respond(to: makeRequest(.get, "/v1/queue/flagged?since=2999-01-01T00:00:00Z")).bodyText, "")
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.get, "/v1/queue/flagged?since=yesterday"))), "invalid_since")

        // Undo the flag, then b's label: b's feedback leaves the training export, and b is back in the first lease.
        XCTAssertEqual(post(api, "/v1/queue/undo", #"{"annotator": "aiko"}"#).bodyText, #"{"id":"c","lease":"\#(otherLease)"}"#)
        XCTAssertEqual(post(api, "/v1/queue/undo", #"{"annotator": "aiko"}"#).bodyText, #"{"id":"b","lease":"\#(lease)"}"#)
        let training = api.respond(to: makeRequest(.get, "/v1/feedback/export")).bodyText.split(separator: "\n")
        XCTAssertEqual(training.count, 2, "b's two records are withdrawn")
        XCTAssertEqual(api.respond(to: makeRequest(.get, "/v1/feedback/export?format=raw")).bodyText.split(separator: "\n").count, 4)
        stats = jsonObject(api.respond(to: makeRequest(.get, "/v1/queue/stats")))
        XCTAssertEqual(stats["items"] as? [String: Int], ["queued": 0, "leased": 2, "labelled": 2, "flagged": 0])
        XCTAssertEqual(api.respond(to: makeRequest(.get, "/v1/queue/flagged")).bodyText, "", "an undone flag leaves the list")

        let labels = api.respond(to: makeRequest(.get, "/v1/labels/export"))
        XCTAssertEqual(labels.status.code, 200, labels.bodyText)
        XCTAssertEqual(labels.headers["Content-Type"], "application/x-ndjson; charset=utf-8")
        let lines = labels.bodyText.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(lines.compactMap { $0?["id"] as? String }, ["d", "a"])
        XCTAssertEqual(lines.first??["decided_by"] as? String, "model")
        XCTAssertTrue(lines.first??["annotator"] is NSNull)
        XCTAssertEqual(lines.last??["keywords"] as? [String], ["にんじん", "人参ジュース"])
        XCTAssertEqual(lines.last??["annotator"] as? String, "aiko")
        let since = UTCTime.format(milliseconds: clock.now() - 2000)
        XCTAssertEqual(api.respond(to: makeRequest(.get, "/v1/labels/export?since=\(since)")).bodyText.split(separator: "\n").count, 1)
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.get, "/v1/labels/export?since=yesterday"))), "invalid_since")

        // The first scrape starts reading the figures off the event loop; a later one shows them.
        _ = api.respond(to: makeRequest(.get, "/metrics"))
        api.handlers.queue.figures.settle()
        let metrics = api.respond(to: makeRequest(.get, "/metrics")).bodyText
        XCTAssertTrue(metrics.contains("kwsuggest_queue_items{state=\"labelled\"} 2"), metrics)
        XCTAssertTrue(metrics.contains("kwsuggest_queue_decisions_total{kind=\"label\"} 2"), metrics)
        XCTAssertTrue(metrics.contains("kwsuggest_queue_undo_total 2"), metrics)
        XCTAssertFalse(metrics.contains("aiko"), "annotator names are not labels")
    }

    /// A queue log that cannot be read is a JSON error on every route, the streamed exports included (their
    /// first page is read before the answer starts).
    func testADamagedLogIsAJSONErrorOnTheExports() throws {
        let api = api()
        XCTAssertEqual(post(api, "/v1/queue/items", #"{"items":[{"id":"a","name":"auto 人参"}]}"#).status.code, 200)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: store.overlayPath.replacingOccurrences(of: ".json", with: ".queue.jsonl")))
        handle.seekToEndOfFile()
        handle.write(Data("{\"item\":{\"id\":\"b\"}}\n{\"commit\":true}\n".utf8))
        handle.closeFile()
        let fresh = self.api()
        for path in ["/v1/labels/export", "/v1/queue/flagged", "/v1/queue/stats"] {
            let answer = fresh.respond(to: makeRequest(.get, path))
            XCTAssertEqual(answer.status.code, 500, path)
            XCTAssertEqual(errorCode(answer), "queue_failed", path)
        }
    }

    /// An event logged while a request is handled carries that request's id, as its response and access-log line do.
    func testTheEventOfADamagedLogCarriesTheRequestID() throws {
        let api = api()
        XCTAssertEqual(post(api, "/v1/queue/items", #"{"items":[{"id":"a","name":"auto 人参"}]}"#).status.code, 200)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: store.overlayPath.replacingOccurrences(of: ".json", with: ".queue.jsonl")))
        handle.seekToEndOfFile()
        handle.write(Data("{\"item\":{\"id\":\"b\"}}\n{\"commit\":true}\n".utf8))
        handle.closeFile()
        let fresh = self.api()
        var request = makeRequest(.get, "/v1/labels/export")
        request.requestID = "export-7"
        let events = Locked<[LogEvent]>([])
        let answer = EventLog.$sink.withValue({ event in events.withLock { $0.append(event) } }) {
            fresh.respond(to: request)
        }
        XCTAssertEqual(errorCode(answer), "queue_failed")
        let failed = events.withLock { $0 }.filter { $0.name == "queue_failed" }
        XCTAssertEqual(failed.count, 1)
        XCTAssertEqual(failed.first?.fields.first { $0.0 == "request_id" }?.1, "export-7")
        // Outside a request, an event has no request id.
        let outside = Locked<[LogEvent]>([])
        EventLog.$sink.withValue({ event in outside.withLock { $0.append(event) } }) {
            EventLog.record(.info, "idle")
        }
        XCTAssertEqual(outside.withLock { $0 }.first?.fields.contains { $0.0 == "request_id" }, false)
    }

    func testBadInputGetsClear400sAndTheTokenIsNeeded() {
        let api = self.api(token: "s3cret")
        let cases: [(String, String, String)] = [
            ("/v1/queue/items", #"{"items": []}"#, "empty_items"),
            ("/v1/queue/items", #"{"items": [{"id": "a"}]}"#, "missing_name"),
            ("/v1/queue/items", #"{"items": [{"id": "", "name": "x"}]}"#, "invalid_id"),
            ("/v1/queue/items", #"{"items": [{"id": "a", "name": "x", "sku": 1}]}"#, "unknown_field"),
            ("/v1/queue/items", #"{"items": [{"id": "a\u0007", "name": "x"}]}"#, "invalid_id"),
            ("/v1/queue/lease", #"{"n": 5}"#, "invalid_annotator"),
            ("/v1/queue/lease", #"{"annotator": "a", "n": 101}"#, "invalid_n"),
            ("/v1/queue/lease", #"{"annotator": "a", "order": "random"}"#, "invalid_order"),
            ("/v1/queue/decisions", #"{"annotator": "a", "id": "x", "keywords": ["k"]}"#, "invalid_lease"),
            ("/v1/queue/decisions", #"{"lease": "l", "annotator": "a", "id": "x", "ids": ["y"], "keywords": ["k"]}"#, "invalid_ids"),
            ("/v1/queue/decisions", #"{"lease": "l", "annotator": "a", "ids": ["x", "y"], "action": "skip"}"#, "invalid_ids"),
            ("/v1/queue/decisions", #"{"lease": "l", "annotator": "a", "id": "x"}"#, "invalid_keywords"),
            ("/v1/queue/decisions", #"{"lease": "l", "annotator": "a", "id": "x", "keywords": []}"#, "invalid_keywords"),
            ("/v1/queue/decisions", #"{"lease": "l", "annotator": "a", "id": "x", "action": "label"}"#, "invalid_action"),
            ("/v1/queue/undo", #"{}"#, "invalid_annotator"),
        ]
        for (path, body, code) in cases {
            let response = post(api, path, body, token: "s3cret")
            XCTAssertEqual(response.status.code, 400, "\(path) \(body): \(response.bodyText)")
            XCTAssertEqual(errorCode(response), code, "\(path) \(body)")
        }
        // Lengths count the form stores keep: 150 × U+0958 is 300 code points in NFC.
        let long = String(repeating: "\u{0958}", count: 150)
        XCTAssertEqual(errorCode(post(api, "/v1/queue/items", #"{"items": [{"id": "\#(long)", "name": "x"}]}"#, token: "s3cret")),
                       "invalid_id")
        XCTAssertEqual(errorCode(post(api, "/v1/queue/lease", #"{"annotator": "\#(long)"}"#, token: "s3cret")),
                       "invalid_annotator")
        XCTAssertEqual(errorCode(post(api, "/v1/queue/undo", #"{"annotator": "a"}"#, token: "s3cret")), "nothing_to_undo")
        for (method, path) in [(HTTPMethod.post, "/v1/queue/items"), (.post, "/v1/queue/lease"), (.post, "/v1/queue/decisions"),
                               (.post, "/v1/queue/undo"), (.get, "/v1/queue/stats"), (.get, "/v1/labels/export")] {
            XCTAssertEqual(api.respond(to: makeRequest(method, path, body: method == .post ? "{}" : nil)).status.code, 401, path)
        }
    }
}

/// A clock that moves only when told.
final class SteppedClock: Sendable {
    private let time = Locked<QueueTime>(1_790_000_000_000)
    func now() -> QueueTime { time.withLock { $0 } }
    func advance(_ millis: QueueTime) { time.withLock { $0 += millis } }
}
