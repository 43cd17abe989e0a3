import Foundation
import APICore
@testable import HTTPCore
@testable import KeywordHTTP
import SuggestionRuntime
import StoreInterface
import StrictJSON
import XCTest

/// API limits that must hold however the input is shaped.
final class LimitTests: XCTestCase {
    private func suggestBody(_ name: String) -> String {
        var json = JSONWriter()
        json.object { $0.field("name", string: name) }
        return String(decoding: json.bytes, as: UTF8.self)
    }

    func testNameLengthCountsCodePointsNotCharacters() {
        let api = makeAPI()
        // One grapheme cluster of 1,001 code points (a base letter and 1,000 combining acute accents).
        let stacked = "a" + String(repeating: "\u{0301}", count: 1000)
        XCTAssertEqual(stacked.count, 1)
        let response = api.respond(to: makeRequest(.post, "/v1/suggest", body: suggestBody(stacked)))
        XCTAssertEqual(response.status.code, 400)
        XCTAssertEqual(errorCode(response), "name_too_long")
        let query = api.respond(to: makeRequest(.get, "/v1/suggest?name=a" + String(repeating: "%CC%81", count: 1000)))
        XCTAssertEqual(errorCode(query), "name_too_long")
        // 1,000 code points of four UTF-8 bytes each are within the limit.
        let wide = String(repeating: "🥕", count: 1000)
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/suggest", body: suggestBody(wide))).status.code, 200)
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.post, "/v1/suggest", body: suggestBody(wide + "x")))),
                       "name_too_long")
    }

    func testKeywordLengthCountsCodePoints() {
        let api = makeAPI()
        let stacked = "え" + String(repeating: "\u{3099}", count: 200)
        let response = api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":["\#(stacked)"]}"#))
        XCTAssertEqual(response.status.code, 400)
        XCTAssertEqual(errorCode(response), "invalid_keyword")
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":["え\#u{3099}"]}"#)).status.code, 200)
    }

    private func batchBody(_ count: Int, k: Int, explain: Bool = false) -> String {
        let names = Array(repeating: "\"にんじん\"", count: count).joined(separator: ",")
        return #"{"names":[\#(names)],"k":\#(k),"explain":\#(explain)}"#
    }

    func testBatchWorkIsBoundedByNamesTimesK() {
        let api = makeAPI()
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: batchBody(1000, k: 10))).status.code, 200)
        let big = api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: batchBody(1000, k: 11)))
        XCTAssertEqual(big.status.code, 400)
        XCTAssertEqual(errorCode(big), "batch_too_large")
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: batchBody(200, k: 5, explain: true))).status.code, 200)
        let explained = api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: batchBody(201, k: 5, explain: true)))
        XCTAssertEqual(errorCode(explained), "batch_too_large")
    }

    func testBatchResponseSizeIsCapped() {
        var configuration = APIConfiguration()
        configuration.limits.maxBatchResponseBytes = 10_000
        let api = KeywordAPI(configuration: configuration, state: EngineSlot(engine: FakeEngine()), metrics: KeywordAPI.makeMetrics())
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: batchBody(10, k: 5))).status.code, 200)
        let response = api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: batchBody(500, k: 5)))
        XCTAssertEqual(response.status.code, 413)
        XCTAssertEqual(errorCode(response), "response_too_large")
    }

    func testKeywordWritesHaveTheirOwnLane() {
        let api = makeAPI()
        XCTAssertEqual(api.match(makeRequest(.post, "/v1/keywords", body: "{}")).lane, .keywordWrites)
        XCTAssertEqual(api.match(makeRequest(.post, "/v1/suggest/batch", body: "{}")).lane, .batches)
        // Feedback posts (up to a few MB of decisions each) have a lane of their own too: keyword changes never
        // queue behind them.
        XCTAssertEqual(api.match(makeRequest(.post, "/v1/feedback", body: "{}")).lane, .feedback)
        XCTAssertEqual(api.match(makeRequest(.post, "/v1/queue/decisions", body: "{}")).lane, .queueWrites)
    }
}

/// A suggest body longer than any valid one is refused before the event loop parses it.
final class SuggestBodyLimitTests: XCTestCase {
    func testOversizedSuggestBodyIs413OnItsHead() throws {
        let live = try LiveServer()
        defer { live.stop() }
        let client = try live.client()
        client.send("POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n")
        let response = client.readResponse()
        XCTAssertEqual(response?.status, 413)
        XCTAssertEqual(response?.errorCode, "body_too_large")
    }

    func testPaddedBodyIs413AndTheLargestValidNameIsNot() {
        let api = makeAPI()
        let padded = #"{"name":"にんじん"}"# + String(repeating: " ", count: 70_000)
        let response = api.respond(to: makeRequest(.post, "/v1/suggest", body: padded))
        XCTAssertEqual(response.status.code, 413)
        // 1000 astral code points written as JSON surrogate-pair escapes: 12,000 bytes of name.
        let escaped = #"{"name":""# + String(repeating: #"\ud83e\udd55"#, count: 1000) + #""}"#
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/suggest", body: escaped)).status.code, 200)
    }
}

/// An engine whose scores are not numbers (a damaged model that passed its checks).
final class NaNEngine: SuggestionEngine {
    let inner = FakeEngine()
    var modelVersion: String { "nan-1" }
    func suggest(_ name: String, k: Int, explain: Bool) -> SuggestionResult {
        var result = inner.suggest(name, k: k, explain: explain)
        if let first = result.suggestions.indices.first { result.suggestions[first].score = .nan }
        return result
    }
    func keywordList() -> KeywordListSnapshot { inner.keywordList() }
    func updateKeywords(_ change: KeywordChange) throws -> KeywordListSnapshot { try inner.updateKeywords(change) }
    func reloadKeywords() throws -> KeywordListSnapshot { try inner.reloadKeywords() }
}

final class NonFiniteScoreTests: XCTestCase {
    func testNaNScoresAre500NotNull() {
        let api = makeAPI(engine: NaNEngine())
        for request in [makeRequest(.post, "/v1/suggest", body: #"{"name":"にんじん"}"#), makeRequest(.get, "/v1/suggest?name=x"),
                        makeRequest(.post, "/v1/suggest/batch", body: #"{"names":["a","b"]}"#)] {
            let response = api.respond(to: request)
            XCTAssertEqual(response.status.code, 500, request.target)
            XCTAssertEqual(errorCode(response), "internal_error")
            XCTAssertFalse(response.bodyText.contains("null"))
        }
    }
}
