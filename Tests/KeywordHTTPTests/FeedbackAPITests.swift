import FileStore
import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import SuggestionRuntime
import StoreInterface
import XCTest

/// POST /v1/feedback, GET /v1/feedback/export, ETag / If-Match and the store in /readyz and /metrics,
/// called without sockets on a real file store in a temporary directory.
final class FeedbackAPITests: XCTestCase {
    private var directory = ""
    private var store: FileKeywordStore!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "feedback-api-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func api(token: String? = nil) -> KeywordAPI { makeAPI(token: token, store: store) }

    private func post(_ api: KeywordAPI, _ body: String, headers: [(String, String)] = []) -> HTTPResponse {
        api.respond(to: makeRequest(.post, "/v1/feedback", headers: headers, body: body))
    }

    func testOneItemIsStoredWith201AndAnID() throws {
        let response = post(api(), #"{"name": "国産豚バラ肉 500g", "keyword": "豚バラ肉", "action": "accept", "shown": ["豚バラ肉", "豚肉"], "model": "m1", "annotator": "aiko"}"#)
        XCTAssertEqual(response.status.code, 201, response.bodyText)
        XCTAssertEqual(response.bodyText, #"{"id":1,"duplicate":false}"#)
        let records = try store.feedback(after: 0, limit: 10)
        XCTAssertEqual(records.map(\.item), [FeedbackItem(name: "国産豚バラ肉 500g", keyword: "豚バラ肉", action: .accept,
                                                          shown: ["豚バラ肉", "豚肉"], model: "m1", annotator: "aiko")])
    }

    func testItemsAreStoredAllOrNoneAndClientIDsAreIdempotent() throws {
        let api = self.api()
        let body = #"{"items": [{"id": "q-1", "name": "a", "keyword": "x", "action": "accept"}, {"id": "q-2", "name": "b", "keyword": "y", "action": "reject"}]}"#
        let first = post(api, body)
        XCTAssertEqual(first.status.code, 201, first.bodyText)
        XCTAssertEqual(first.bodyText, #"{"ids":[1,2],"stored":2,"duplicates":0}"#)
        let retry = post(api, body)
        XCTAssertEqual(retry.bodyText, #"{"ids":[1,2],"stored":0,"duplicates":2}"#)
        let single = post(api, #"{"id": "q-1", "name": "a", "keyword": "x", "action": "accept"}"#)
        XCTAssertEqual(single.bodyText, #"{"id":1,"duplicate":true}"#)

        let bad = post(api, #"{"items": [{"name": "c", "keyword": "z", "action": "accept"}, {"name": "d", "keyword": "z", "action": "like"}]}"#)
        XCTAssertEqual(bad.status.code, 400)
        XCTAssertEqual(errorCode(bad), "invalid_action")
        XCTAssertTrue(bad.bodyText.contains("items[1].action"), bad.bodyText)
        XCTAssertEqual(try store.feedback(after: 0, limit: 10).count, 2, "nothing of a refused batch is stored")
    }

    func testBadInputGetsClear400s() {
        let api = self.api()
        let cases: [(String, String, String)] = [
            (#"{"keyword": "x", "action": "accept"}"#, "missing_name", "'name'"),
            (#"{"name": "a", "action": "accept"}"#, "invalid_keyword", "'keyword' is required"),
            (#"{"name": "a", "keyword": "  ", "action": "accept"}"#, "invalid_keyword", "empty"),
            (#"{"name": "a", "keyword": "x"}"#, "invalid_action", "'action' is required"),
            (#"{"name": "a", "keyword": "x", "action": "accept", "shown": "x"}"#, "invalid_shown", "array"),
            (#"{"name": "a", "keyword": "x", "action": "accept", "annotator": 3}"#, "invalid_annotator", "string"),
            (#"{"name": "a", "keyword": "x", "action": "accept", "id": ""}"#, "invalid_id", "1 to 200"),
            (#"{"name": "a", "keyword": "x", "action": "accept", "actor": "me"}"#, "unknown_field", "'actor'"),
            (#"{"items": []}"#, "empty_items", "at least one"),
            (#"{"items": {}}"#, "invalid_items", "array"),
            (#"{"items": [3]}"#, "invalid_item", "'items[0]'"),
            (#"{"items": [], "name": "a"}"#, "unknown_field", "'name'"),
            (#"["x"]"#, "malformed_json", "object"),
        ]
        for (body, code, fragment) in cases {
            let response = post(api, body)
            XCTAssertEqual(response.status.code, 400, body)
            XCTAssertEqual(errorCode(response), code, body)
            XCTAssertTrue(response.bodyText.contains(fragment), "\(body) → \(response.bodyText)")
        }
        let item = #"{"name": "a", "keyword": "x", "action": "accept"}"#
        let tooMany = post(api, "{\"items\": [" + Array(repeating: item, count: 1001).joined(separator: ",") + "]}")
        XCTAssertEqual(errorCode(tooMany), "too_many_items")
        let thousand = post(api, "{\"items\": [" + Array(repeating: item, count: 1000).joined(separator: ",") + "]}")
        XCTAssertEqual(thousand.status.code, 201)
    }

    func testTokenIsNeededForFeedbackAndExportWhenSet() {
        let api = self.api(token: "s3cret")
        let body = #"{"name": "a", "keyword": "x", "action": "accept"}"#
        XCTAssertEqual(post(api, body).status.code, 401)
        XCTAssertEqual(api.respond(to: makeRequest(.get, "/v1/feedback/export")).status.code, 401)
        XCTAssertEqual(post(api, body, headers: [("Authorization", "Bearer s3cret")]).status.code, 201)
        XCTAssertEqual(api.respond(to: makeRequest(.get, "/v1/feedback/export", headers: [("Authorization", "Bearer s3cret")])).status.code, 200)
    }

    func testExportStreamsTrainingLinesOrRawRecords() throws {
        let api = self.api()
        _ = post(api, #"{"items": [{"name": "にんじん 3本", "keyword": "にんじん", "action": "accept", "annotator": "aiko"}, {"name": "豚バラ", "keyword": "牛肉", "action": "reject"}, {"name": "豚バラ", "keyword": "豚バラ肉", "action": "correct"}]}"#)
        let training = api.respond(to: makeRequest(.get, "/v1/feedback/export"))
        XCTAssertEqual(training.status.code, 200)
        XCTAssertEqual(training.headers["Content-Type"], "application/x-ndjson; charset=utf-8")
        XCTAssertEqual(training.headers["Feedback-Last-Id"], "3")
        XCTAssertEqual(training.bodyText, """
            {"name":"にんじん 3本","keywords":["にんじん"],"source":"feedback"}
            {"name":"豚バラ","keywords":["豚バラ肉"],"source":"feedback"}

            """)
        let raw = api.respond(to: makeRequest(.get, "/v1/feedback/export?since=1&format=raw"))
        let lines = raw.bodyText.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2)
        let first = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(first["id"] as? Int, 2)
        XCTAssertEqual(first["action"] as? String, "reject")
        XCTAssertNotNil(first["received_at"] as? String)
        let empty = api.respond(to: makeRequest(.get, "/v1/feedback/export?since=3"))
        XCTAssertEqual(empty.bodyText, "")
        XCTAssertEqual(empty.headers["Feedback-Last-Id"], "3")
        for (query, code) in [("since=-1", "invalid_since"), ("since=x", "invalid_since"), ("format=csv", "invalid_format"),
                              ("limit=0", "invalid_limit"), ("limit=9007199254740993", "invalid_limit"), ("max=3", "unknown_field"),
                              ("since=9007199254740993", "invalid_since"), ("since=9007199254740993.0", "invalid_since")] {
            XCTAssertEqual(errorCode(api.respond(to: makeRequest(.get, "/v1/feedback/export?" + query))), code, query)
        }
        // A page of one record, continued from Feedback-Last-Id; since=1.0 is the integer 1.
        let page = api.respond(to: makeRequest(.get, "/v1/feedback/export?format=raw&limit=1"))
        XCTAssertEqual(page.bodyText.split(separator: "\n").count, 1)
        XCTAssertEqual(page.headers["Feedback-Last-Id"], "1")
        let next = api.respond(to: makeRequest(.get, "/v1/feedback/export?format=raw&limit=1&since=1.0"))
        XCTAssertEqual(next.headers["Feedback-Last-Id"], "2")
    }

    func testMetricsCountAcceptedAtRankPerModel() {
        let api = self.api()
        _ = post(api, #"{"items": [{"name": "a", "keyword": "x", "action": "accept", "shown": ["x", "y"], "model": "fake-1"}, {"name": "b", "keyword": "y", "action": "accept", "shown": ["x", "y"], "model": "fake-1"}, {"name": "c", "keyword": "z", "action": "correct", "shown": ["x", "y"]}, {"name": "d", "keyword": "x", "action": "reject", "shown": ["x"]}, {"id": "r", "name": "e", "keyword": "x", "action": "accept", "shown": ["x"], "model": "fake-1"}, {"name": "f", "keyword": "x", "action": "accept", "shown": ["x"], "model": "m-never-served"}]}"#)
        _ = post(api, #"{"id": "r", "name": "e", "keyword": "x", "action": "accept", "shown": ["x"], "model": "fake-1"}"#)
        let text = api.respond(to: makeRequest(.get, "/metrics")).bodyText
        XCTAssertTrue(text.contains(#"kwsuggest_feedback_accepted_total{model="fake-1",rank="1"} 2"#), text)
        XCTAssertTrue(text.contains(#"kwsuggest_feedback_accepted_total{model="fake-1",rank="2"} 1"#), text)
        XCTAssertTrue(text.contains(#"kwsuggest_feedback_accepted_total{model="fake-1",rank="none"} 1"#), text)
        XCTAssertTrue(text.contains(#"kwsuggest_feedback_accepted_total{model="other",rank="1"} 1"#), text)
        XCTAssertFalse(text.contains("m-never-served"), text)
        XCTAssertTrue(text.contains(#"kwsuggest_feedback_total{action="reject"} 1"#), text)
        XCTAssertTrue(text.contains(#"kwsuggest_store_up{kind="file"} 1"#), text)
    }

    /// The model label is client data: 10,000 distinct strings add one `other` series, not 10,000.
    func testMetricsStaySmallAfterManyDistinctFeedbackModels() {
        let api = self.api()
        for batch in 0..<10 {
            let items = (0..<1000).map { index in
                #"{"name": "n", "keyword": "x", "action": "accept", "shown": ["x"], "model": "client-model-\#(batch)-\#(index)"}"#
            }
            let response = post(api, #"{"items": ["# + items.joined(separator: ",") + "]}")
            XCTAssertEqual(response.status.code, 201, response.bodyText)
        }
        let text = api.respond(to: makeRequest(.get, "/metrics")).bodyText
        XCTAssertLessThanOrEqual(text.utf8.count, 150_000)
        XCTAssertTrue(text.contains(#"kwsuggest_feedback_accepted_total{model="other",rank="1"} 10000"#), text)
        XCTAssertFalse(text.contains("client-model-"))
    }

    func testReadyzNamesTheStore() {
        let body = api().respond(to: makeRequest(.get, "/readyz")).bodyText
        XCTAssertEqual(body, #"{"status":"ready","model":"fake-1","store":"ok","store_kind":"file"}"#)
    }

    /// A reachable store that refuses writes is not "ok": /readyz names the last failed write until one succeeds.
    func testReadyzReportsTheLastWriteFailure() throws {
        let api = makeAPI(engine: FakeEngine(failUpdates: true), store: store)
        let feedbackPath = directory + "/keywords.overlay.feedback.jsonl"
        try FileManager.default.createDirectory(atPath: feedbackPath, withIntermediateDirectories: false)
        XCTAssertEqual(post(api, #"{"name": "a", "keyword": "x", "action": "accept"}"#).status.code, 500)
        var ready = jsonObject(api.respond(to: makeRequest(.get, "/readyz")))
        XCTAssertEqual(ready["store"] as? String, "write_failed")
        XCTAssertEqual(ready["last_write_error"] as? String, "feedback could not be saved (log event feedback_failed)")
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add": ["b"]}"#)).status.code, 500)
        ready = jsonObject(api.respond(to: makeRequest(.get, "/readyz")))
        XCTAssertEqual(ready["last_write_error"] as? String, "a keyword change could not be saved (log event keyword_update_failed)")
        try FileManager.default.removeItem(atPath: feedbackPath)
        XCTAssertEqual(post(api, #"{"name": "a", "keyword": "x", "action": "accept"}"#).status.code, 201)
        ready = jsonObject(api.respond(to: makeRequest(.get, "/readyz")))
        XCTAssertEqual(ready["store"] as? String, "ok")
        XCTAssertNil(ready["last_write_error"])
    }

    func testKeywordsCarryAnETagAndIfMatchRefusesAStaleVersion() {
        let api = self.api()
        let list = api.respond(to: makeRequest(.get, "/v1/keywords"))
        XCTAssertEqual(list.headers["ETag"], "\"v7\"")
        let ok = api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("If-Match", "\"v7\"")], body: #"{"add": ["ごぼう"]}"#))
        XCTAssertEqual(ok.status.code, 200, ok.bodyText)
        XCTAssertEqual(ok.headers["ETag"], "\"v8\"")
        let stale = api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("If-Match", "\"v7\"")], body: #"{"add": ["れんこん"]}"#))
        XCTAssertEqual(stale.status.code, 412)
        XCTAssertEqual(errorCode(stale), "version_mismatch")
        XCTAssertEqual(stale.headers["ETag"], "\"v8\"")
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("If-Match", "*")], body: #"{"add": ["れんこん"]}"#)).status.code, 200)
        let bad = api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("If-Match", "\"a\", \"b\"")], body: #"{"add": ["x"]}"#))
        XCTAssertEqual(errorCode(bad), "invalid_if_match")
    }

    func testStoreUnavailableIs503() {
        let api = makeAPI(engine: UnavailableEngine(), store: store)
        let response = api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add": ["x"]}"#))
        XCTAssertEqual(response.status.code, 503)
        XCTAssertEqual(errorCode(response), "store_unavailable")
        XCTAssertEqual(response.headers["Retry-After"], "1")
    }
}

/// An engine whose store is down: suggestions work, changes throw `unavailable`.
final class UnavailableEngine: SuggestionEngine {
    let modelVersion = "down-1"
    func suggest(_ name: String, k: Int, explain: Bool) -> SuggestionResult { SuggestionResult(name: name, suggestions: []) }
    func keywordList() -> KeywordListSnapshot { KeywordListSnapshot(keywords: [], version: "v0") }
    func updateKeywords(_ change: KeywordChange) throws -> KeywordListSnapshot { throw KeywordStoreError.unavailable("down") }
    func reloadKeywords() throws -> KeywordListSnapshot { throw KeywordStoreError.unavailable("down") }
}
