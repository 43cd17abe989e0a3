import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import StrictJSON
import XCTest

/// The bad-input matrix on a raw socket against a live server: each case gets its documented
/// status and a JSON error (or, for the lone-LF client, a normal answer), and the server keeps answering.
/// tools/hardening/bad_input.py runs the same matrix against a release binary.
final class BadInputMatrixTests: XCTestCase {
    private struct Case {
        var name: String
        var bytes: [UInt8]
        var status: Int
        /// The `error.code` expected, or nil for a success.
        var code: String?
    }

    private static func post(_ path: String, _ body: [UInt8], contentType: String = "application/json") -> [UInt8] {
        Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
    }

    private static func post(_ path: String, _ body: String) -> [UInt8] { post(path, Array(body.utf8)) }

    private static func get(_ target: String, headers: String = "Host: t\r\n") -> [UInt8] {
        Array("GET \(target) HTTP/1.1\r\n\(headers)\r\n".utf8)
    }

    private static let cases: [Case] = [
        Case(name: "bad JSON", bytes: post("/v1/suggest", #"{"name": "x""#), status: 400, code: "malformed_json"),
        Case(name: "JSON not an object", bytes: post("/v1/suggest", #"["x"]"#), status: 400, code: "malformed_json"),
        Case(name: "name is a number", bytes: post("/v1/suggest", #"{"name": 5}"#), status: 400, code: "invalid_name"),
        Case(name: "k is a string", bytes: post("/v1/suggest", #"{"name": "x", "k": "5"}"#), status: 400, code: "invalid_k"),
        Case(name: "k is 2.5", bytes: post("/v1/suggest", #"{"name": "x", "k": 2.5}"#), status: 400, code: "invalid_k"),
        Case(name: "k is 0", bytes: post("/v1/suggest", #"{"name": "x", "k": 0}"#), status: 400, code: "invalid_k"),
        Case(name: "k is 51", bytes: post("/v1/suggest", #"{"name": "x", "k": 51}"#), status: 400, code: "invalid_k"),
        Case(name: "k is 1e300", bytes: post("/v1/suggest", #"{"name": "x", "k": 1e300}"#), status: 400, code: "invalid_k"),
        Case(name: "explain is a string", bytes: post("/v1/suggest", #"{"name": "x", "explain": "yes"}"#), status: 400, code: "invalid_explain"),
        Case(name: "names is a string", bytes: post("/v1/suggest/batch", #"{"names": "x"}"#), status: 400, code: "invalid_names"),
        Case(name: "add is a number", bytes: post("/v1/keywords", #"{"add": 1}"#), status: 400, code: "invalid_add"),
        Case(name: "invalid UTF-8 body", bytes: post("/v1/suggest", Array(#"{"name": ""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)),
             status: 400, code: "invalid_utf8"),
        Case(name: "overlong UTF-8 body", bytes: post("/v1/suggest", Array(#"{"name": ""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8)),
             status: 400, code: "invalid_utf8"),
        Case(name: "invalid UTF-8 query", bytes: get("/v1/suggest?name=%FF%FE"), status: 400, code: "invalid_utf8"),
        Case(name: "escaped NUL in name", bytes: post("/v1/suggest", #"{"name": "a\u0000b"}"#), status: 400, code: "invalid_name"),
        Case(name: "raw NUL in JSON string", bytes: post("/v1/suggest", Array(#"{"name": "a"#.utf8) + [0] + Array(#"b"}"#.utf8)),
             status: 400, code: "malformed_json"),
        Case(name: "NUL in query", bytes: get("/v1/suggest?name=a%00b"), status: 400, code: "invalid_name"),
        Case(name: "NUL in a header value", bytes: Array("GET /healthz HTTP/1.1\r\nHost: t\r\nX-A: a".utf8) + [0] + Array("b\r\n\r\n".utf8),
             status: 400, code: "malformed_request"),
        Case(name: "10,000-character name", bytes: post("/v1/suggest", #"{"name": "\#(String(repeating: "あ", count: 10_000))"}"#),
             status: 400, code: "name_too_long"),
        Case(name: "empty name", bytes: post("/v1/suggest", #"{"name": ""}"#), status: 400, code: "empty_name"),
        Case(name: "blank name (U+3000)", bytes: post("/v1/suggest", #"{"name": " \u3000 "}"#), status: 400, code: "empty_name"),
        Case(name: "missing name", bytes: post("/v1/suggest", #"{"k": 3}"#), status: 400, code: "missing_name"),
        Case(name: "unknown field", bytes: post("/v1/suggest", #"{"name": "x", "explian": true}"#), status: 400, code: "unknown_field"),
        Case(name: "unknown field in batch", bytes: post("/v1/suggest/batch", #"{"names": ["x"], "n": 1}"#), status: 400, code: "unknown_field"),
        Case(name: "duplicate Host", bytes: get("/healthz", headers: "Host: a\r\nHost: b\r\n"), status: 400, code: "malformed_request"),
        Case(name: "conflicting Content-Length", bytes: Array("POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 12\r\nContent-Length: 13\r\n\r\n{\"name\":\"x\"}".utf8),
             status: 400, code: "invalid_content_length"),
        Case(name: "Content-Length and chunked", bytes: Array("POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n".utf8),
             status: 400, code: "conflicting_framing"),
        Case(name: "bad percent-encoding", bytes: get("/v1/suggest?name=%zz"), status: 400, code: "bad_percent_encoding"),
        Case(name: "truncated percent-encoding", bytes: get("/v1/suggest?name=a%E"), status: 400, code: "bad_percent_encoding"),
        Case(name: "huge chunk size", bytes: Array("POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffffffff\r\n".utf8),
             status: 413, code: "body_too_large"),
        Case(name: "negative Content-Length", bytes: Array("POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n".utf8),
             status: 400, code: "invalid_content_length"),
        Case(name: "huge Content-Length", bytes: Array("POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 99999999999999999999999\r\n\r\n".utf8),
             status: 413, code: "body_too_large"),
        Case(name: "form body to batch", bytes: post("/v1/suggest/batch", Array("names=x".utf8), contentType: "application/x-www-form-urlencoded"),
             status: 415, code: "unsupported_media_type"),
        Case(name: "POST without length", bytes: Array("POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\r\n".utf8),
             status: 411, code: "length_required"),
        Case(name: "101 headers", bytes: get("/healthz", headers: "Host: t\r\n" + (0..<100).map { "X-\($0): v\r\n" }.joined()),
             status: 431, code: "too_many_headers"),
        Case(name: "33 KiB of headers", bytes: get("/healthz", headers: "Host: t\r\nX-Big: \(String(repeating: "a", count: 33 * 1024))\r\n"),
             status: 431, code: "headers_too_large"),
        Case(name: "17 KiB URI", bytes: get("/v1/suggest?name=" + String(repeating: "a", count: 17 * 1024)), status: 414, code: "uri_too_long"),
        Case(name: "binary garbage", bytes: [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03, 0x0D, 0x0A, 0x0D, 0x0A],
             status: 400, code: "malformed_request"),
        Case(name: "path traversal", bytes: get("/../../etc/passwd"), status: 404, code: "not_found"),
        Case(name: "encoded path traversal", bytes: get("/%2e%2e/%2e%2e/etc/passwd"), status: 404, code: "not_found"),
        Case(name: "lone-LF client", bytes: Array("GET /healthz HTTP/1.1\nHost: t\n\n".utf8), status: 200, code: nil),
        Case(name: "lone-LF POST", bytes: Array("POST /v1/suggest HTTP/1.1\nHost: t\nContent-Type: application/json\nContent-Length: 12\n\n{\"name\":\"x\"}".utf8),
             status: 200, code: nil),
    ]

    func testEveryBadInputGetsItsStatusAndAJSONError() throws {
        let live = try LiveServer()
        defer { live.stop() }
        for item in Self.cases {
            let client = try live.client()
            client.send(item.bytes)
            guard let response = client.readResponse() else {
                XCTFail("\(item.name): no response")
                continue
            }
            XCTAssertEqual(response.status, item.status, "\(item.name): \(response.body)")
            XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8", item.name)
            if let code = item.code {
                XCTAssertEqual(response.errorCode, code, "\(item.name): \(response.body)")
            }
            // The server is still up and answering on a fresh connection.
            let probe = try live.client()
            probe.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(probe.readResponse()?.status, 200, "after \(item.name)")
        }
    }
}
