import APICore
import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import StrictJSON
import XCTest

/// Security checks that other test files do not already cover: keyword-change limits,
/// no request path reaching the file system, and the admin token check not depending on where tokens differ.
final class SecurityTests: XCTestCase {
    func testKeywordChangeLimitsHold() {
        let api = makeAPI()
        let tooMany = #"{"add": ["# + (0...10_000).map { "\"k\($0)\"" }.joined(separator: ",") + "]}"
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.post, "/v1/keywords", body: tooMany))), "too_many_keywords")
        let long = #"{"add": [""# + String(repeating: "葱", count: 101) + #""]}"#
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.post, "/v1/keywords", body: long))), "invalid_keyword")
        let atLimit = #"{"add": [""# + String(repeating: "葱", count: 100) + #""]}"#
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", body: atLimit)).status, .ok)
    }

    /// Only fixed routes exist: nothing maps a request path to a file, whatever the path holds.
    func testNoRequestPathReachesTheFileSystem() {
        let api = makeAPI()
        let paths = ["/Package.swift", "/../Package.swift", "/%2e%2e/Package.swift", "/..%2fPackage.swift", "//etc/passwd",
                     "/v1/../../etc/passwd", "/v1/keywords/../../../etc/passwd", "/models/default/keywords.txt",
                     "/keywords.overlay.json", "/index.html", "/./", "/%00", "/proc/self/environ"]
        for path in paths {
            let response = api.respond(to: makeRequest(.get, path))
            XCTAssertEqual(response.status.code, 404, path)
            XCTAssertEqual(errorCode(response), "not_found", path)
            XCTAssertFalse(response.bodyText.contains("root:"), path)
            XCTAssertFalse(response.bodyText.contains("swift-tools-version"), path)
        }
    }

    /// The token check: a difference in the first byte, the last byte or the length is caught. The comparison
    /// itself has no early exit (it ORs the XOR of every byte of the longer input; see
    /// `RequestDecoding.constantTimeEqual`); timing is not measured in a unit test.
    func testTokenComparisonVisitsEveryByte() {
        let token = Array(String(repeating: "t", count: 64).utf8)
        var firstDiffers = token, lastDiffers = token
        firstDiffers[0] = UInt8(ascii: "x")
        lastDiffers[63] = UInt8(ascii: "x")
        XCTAssertFalse(RequestDecoding.constantTimeEqual(firstDiffers, token))
        XCTAssertFalse(RequestDecoding.constantTimeEqual(lastDiffers, token))
        XCTAssertFalse(RequestDecoding.constantTimeEqual(Array(token.prefix(63)), token))
        XCTAssertTrue(RequestDecoding.constantTimeEqual(token, token))
        // Whitespace around the token and the scheme's case are tolerated; nothing else is.
        let api = makeAPI(token: String(decoding: token, as: UTF8.self))
        let body = #"{"add":["x"]}"#
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("Authorization", "bearer  \(String(decoding: token, as: UTF8.self)) ")], body: body)).status, .ok)
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("Authorization", "Bearer \(String(decoding: lastDiffers, as: UTF8.self))")], body: body)).status.code, 401)
    }
}
