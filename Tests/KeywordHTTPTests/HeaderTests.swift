import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import XCTest

/// Headers caches and browsers rely on.
final class HeaderTests: XCTestCase {
    func testVaryOriginOnEveryResponseWhenCORSIsOn() {
        let api = makeAPI(cors: ["https://admin.example"])
        let origin = ("Origin", "https://admin.example")
        let cases: [HTTPRequest] = [
            makeRequest(.get, "/healthz"),
            makeRequest(.get, "/v1/suggest?name=x", headers: [origin]),
            makeRequest(.get, "/v1/suggest?name=x", headers: [("Origin", "https://other.example")]),
            makeRequest(.options, "/nowhere", headers: [origin, ("Access-Control-Request-Method", "GET")]),
            makeRequest(.options, "/v1/suggest", headers: [origin, ("Access-Control-Request-Method", "DELETE")]),
            makeRequest(.delete, "/v1/suggest", headers: [origin]),
        ]
        for request in cases {
            let response = api.respond(to: request)
            XCTAssertEqual(response.headers.values("Vary"), ["Origin"], "\(request.method) \(request.target) → \(response.status)")
        }
        XCTAssertNil(makeAPI().respond(to: makeRequest(.get, "/healthz")).headers["Vary"])
    }

    func testSuggestAnswersAreNotStoredByCaches() {
        let api = makeAPI()
        XCTAssertEqual(api.respond(to: makeRequest(.get, "/v1/suggest?name=x")).headers["Cache-Control"], "no-store")
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/suggest", body: #"{"name":"x"}"#)).headers["Cache-Control"], "no-store")
        XCTAssertEqual(api.respond(to: makeRequest(.get, "/v1/keywords")).headers["Cache-Control"], "no-store")
        XCTAssertEqual(api.respond(to: makeRequest(.get, "/")).headers["Cache-Control"], "no-cache")
    }

    func testHTTP10KeepAliveAnswerSaysSo() throws {
        let live = try LiveServer()
        defer { live.stop() }
        let client = try live.client()
        client.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let first = client.readResponse()
        XCTAssertEqual(first?.status, 200)
        XCTAssertEqual(first?.header("Connection"), "keep-alive")
        client.send("GET /healthz HTTP/1.0\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.header("Connection"), "close")
        let plain = try live.client()
        plain.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertNil(plain.readResponse()?.header("Connection"))
    }
}
