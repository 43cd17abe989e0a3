import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import XCTest

/// Requests refused on their head: credentials are checked before `100 Continue` and before the body.
final class AdmissionTests: XCTestCase {
    func testUnauthorisedWriteGets401InsteadOf100Continue() throws {
        let live = try LiveServer(token: "secret")
        defer { live.stop() }
        // Every route that needs the token: keyword changes, feedback, and its export.
        for (method, path) in [("POST", "/v1/keywords"), ("POST", "/v1/feedback"), ("GET", "/v1/feedback/export")] {
            let client = try live.client()
            client.send("\(method) \(path) HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 20\r\nExpect: 100-continue\r\n\r\n")
            let response = client.readResponse()
            XCTAssertEqual(response?.status, 401, path)
            XCTAssertEqual(response?.errorCode, "unauthorized", path)
            XCTAssertEqual(response?.header("Connection"), "close", path)
            XCTAssertTrue(client.isClosed(), path)
        }
    }

    func testAuthorisedWriteStillGets100Continue() throws {
        let live = try LiveServer(token: "secret")
        defer { live.stop() }
        let client = try live.client()
        let body = #"{"add":["ごぼう"]}"#
        client.send("POST /v1/keywords HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nAuthorization: Bearer secret\r\nContent-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n")
        var interim = [UInt8](repeating: 0, count: 25)
        XCTAssertEqual(recv(client.fd, &interim, 25, Int32(MSG_WAITALL)), 25)
        XCTAssertEqual(String(decoding: interim, as: UTF8.self), "HTTP/1.1 100 Continue\r\n\r\n")
        client.send(body)
        XCTAssertEqual(client.readResponse()?.status, 200)
    }

    func testWholeUnauthorisedRequestIsRefusedAndTheConnectionKept() throws {
        let live = try LiveServer(token: "secret")
        defer { live.stop() }
        let client = try live.client()
        let body = #"{"add":["ごぼう"]}"#
        client.send("POST /v1/keywords HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.status, 401)
        XCTAssertEqual(client.readResponse()?.status, 200)
    }
}
