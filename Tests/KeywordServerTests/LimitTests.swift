import Foundation
import KeywordService
@testable import HTTPCore
@testable import KeywordServer
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
}
