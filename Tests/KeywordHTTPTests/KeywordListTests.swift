import APICore
import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import XCTest

/// The served keyword list: a total cap, and pages for large lists.
final class KeywordListTests: XCTestCase {
    private func makeLimitedAPI(_ keywords: [String], maxKeywords: Int) -> KeywordAPI {
        KeywordAPI(configuration: APIConfiguration(), state: EngineSlot(engine: FakeEngine(keywords: keywords, maxKeywords: maxKeywords)),
                          metrics: KeywordAPI.makeMetrics())
    }

    func testTheListHasACapWithAClearError() {
        let api = makeLimitedAPI(["a", "b", "c"], maxKeywords: 4)
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":["d"]}"#)).status.code, 200)
        let full = api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":["e"]}"#))
        XCTAssertEqual(full.status.code, 400)
        XCTAssertEqual(errorCode(full), "keyword_list_full")
        // Swapping one for another, or re-adding one present, stays within the cap.
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":["e"],"remove":["a"]}"#)).status.code, 200)
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":["b"]}"#)).status.code, 200)
        XCTAssertEqual(APILimits().maxKeywords, 50_000)
    }

    /// `actor` names who made a change and reaches the store with it; it follows the annotator's rules.
    func testAChangeCarriesItsActor() {
        let engine = FakeEngine(keywords: ["a"])
        let api = KeywordAPI(configuration: APIConfiguration(), state: EngineSlot(engine: engine), metrics: KeywordAPI.makeMetrics())
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":["b"],"actor":"佐藤"}"#)).status.code, 200)
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":["c"],"actor":null}"#)).status.code, 200)
        XCTAssertEqual(engine.changes.withLock { $0.map(\.actor) }, ["佐藤", nil])
        for bad in [#""""#, #""a\u0007b""#, "\"" + String(repeating: "x", count: 201) + "\"", "7"] {
            let response = api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":["d"],"actor":"# + bad + "}"))
            XCTAssertEqual(errorCode(response), "invalid_actor", bad)
        }
        XCTAssertEqual(engine.changes.withLock { $0.count }, 2)
    }

    /// Without parameters the answer is the first page of `defaultKeywordPage`, never the whole list; `count`
    /// stays the whole list's size, and paging by `offset` visits every keyword once.
    func testTheListIsPagedByDefault() throws {
        let keywords = (0..<2_500).map { "キーワード\($0)" }
        let api = makeLimitedAPI(keywords, maxKeywords: 50_000)
        XCTAssertEqual(APILimits().defaultKeywordPage, 1000)
        let first = jsonObject(api.respond(to: makeRequest(.get, "/v1/keywords")))
        XCTAssertEqual((first["keywords"] as? [String])?.count, 1000)
        XCTAssertEqual(first["count"] as? Int, 2_500)
        XCTAssertEqual(first["matched"] as? Int, 2_500)
        var seen: [String] = []
        var offset = 0
        while offset < 2_500 {
            let page = jsonObject(api.respond(to: makeRequest(.get, "/v1/keywords?offset=\(offset)")))
            XCTAssertEqual(page["count"] as? Int, 2_500)
            seen += page["keywords"] as? [String] ?? []
            offset += 1000
        }
        XCTAssertEqual(seen, keywords)
        // The largest page there is.
        let largest = jsonObject(api.respond(to: makeRequest(.get, "/v1/keywords?limit=10000")))
        XCTAssertEqual((largest["keywords"] as? [String])?.count, 2_500)
    }

    func testPagesWithOffsetLimitAndPrefix() throws {
        let keywords = (0..<30).map { String(format: "k%02d", $0) } + ["にんじん", "にんにく", "トマト"]
        let api = makeLimitedAPI(keywords, maxKeywords: 100)
        let first = jsonObject(api.respond(to: makeRequest(.get, "/v1/keywords")))
        XCTAssertEqual((first["keywords"] as? [String])?.count, 33)
        XCTAssertEqual(first["matched"] as? Int, 33)
        XCTAssertEqual(first["offset"] as? Int, 0)
        XCTAssertEqual(first["limit"] as? Int, 1000)
        let page = jsonObject(api.respond(to: makeRequest(.get, "/v1/keywords?offset=10&limit=5")))
        XCTAssertEqual(page["keywords"] as? [String], ["k10", "k11", "k12", "k13", "k14"])
        XCTAssertEqual(page["count"] as? Int, 33)
        XCTAssertEqual(page["matched"] as? Int, 33)
        let prefixed = jsonObject(api.respond(to: makeRequest(.get, "/v1/keywords?prefix=%E3%81%AB")))
        XCTAssertEqual(prefixed["keywords"] as? [String], ["にんじん", "にんにく"])
        XCTAssertEqual(prefixed["matched"] as? Int, 2)
        XCTAssertEqual(prefixed["limit"] as? Int, 1000)
        let beyond = jsonObject(api.respond(to: makeRequest(.get, "/v1/keywords?offset=100")))
        XCTAssertEqual(beyond["keywords"] as? [String], [])
        for bad in ["limit=0", "limit=10001", "offset=-1", "limit=2.5", "limit=x", "page=2", "limit=1&limit=2"] {
            let response = api.respond(to: makeRequest(.get, "/v1/keywords?" + bad))
            XCTAssertEqual(response.status.code, 400, bad)
        }
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.get, "/v1/keywords?page=2"))), "unknown_field")
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.get, "/v1/keywords?limit=0"))), "invalid_page")
    }
}
