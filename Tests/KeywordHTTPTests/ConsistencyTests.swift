import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import XCTest

/// GET and POST follow one rule set: unknown names, integral numbers and repeated names.
final class ConsistencyTests: XCTestCase {
    private func get(_ query: String) -> HTTPResponse {
        makeAPI().respond(to: makeRequest(.get, "/v1/suggest?" + query))
    }

    private func post(_ body: String) -> HTTPResponse {
        makeAPI().respond(to: makeRequest(.post, "/v1/suggest", body: body))
    }

    func testUnknownNamesAre400InBothExceptUnderscoreParameters() {
        XCTAssertEqual(errorCode(get("name=x&expalin=1")), "unknown_field")
        XCTAssertEqual(errorCode(post(#"{"name":"x","expalin":true}"#)), "unknown_field")
        XCTAssertEqual(get("name=x&_=1712345").status.code, 200)
        XCTAssertEqual(get("name=x&_cache=abc&_=1").status.code, 200)
    }

    func testIntegralNumbersAreIntegersInBoth() {
        XCTAssertEqual(get("name=x&k=5.0").status.code, 200)
        XCTAssertEqual(post(#"{"name":"x","k":5.0}"#).status.code, 200)
        XCTAssertEqual((jsonObject(get("name=x&k=2.0"))["suggestions"] as? [Any])?.count, 2)
        XCTAssertEqual(errorCode(get("name=x&k=2.5")), "invalid_k")
        XCTAssertEqual(errorCode(post(#"{"name":"x","k":2.5}"#)), "invalid_k")
        XCTAssertEqual(errorCode(get("name=x&k=inf")), "invalid_k")
        XCTAssertEqual(errorCode(get("name=x&k=0x5")), "invalid_k")
        XCTAssertEqual(get("name=x&k=5e0").status.code, 200)
    }

    func testRepeatedNamesAre400InBoth() {
        XCTAssertEqual(errorCode(get("name=x&k=3&k=4")), "duplicate_field")
        XCTAssertEqual(errorCode(get("name=x&name=y")), "duplicate_field")
        XCTAssertEqual(errorCode(post(#"{"name":"x","k":3,"k":4}"#)), "duplicate_field")
        XCTAssertEqual(errorCode(makeAPI().respond(to: makeRequest(.post, "/v1/suggest/batch",
                                                                   body: #"{"names":["x"],"names":["y"]}"#))),
                       "duplicate_field")
    }
}
