import APICore
import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import StoreInterface
import StrictJSON
import SuggestionRuntime
import XCTest

/// Handlers and the router, called without any socket.
final class RouterTests: XCTestCase {
    func testHealthz() {
        let response = makeAPI().respond(to: makeRequest(.get, "/healthz"))
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(response.bodyText, #"{"status":"ok"}"#)
        XCTAssertEqual(response.headers["Content-Type"], "application/json; charset=utf-8")
    }

    func testReadyzIs503WhileLoadingThen200() {
        let api = makeAPI(engine: nil)
        let loading = api.respond(to: makeRequest(.get, "/readyz"))
        XCTAssertEqual(loading.status.code, 503)
        XCTAssertEqual(errorCode(loading), "not_ready")
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/suggest", body: #"{"name":"x"}"#)).status.code, 503)
        api.state.setReady(FakeEngine())
        let ready = api.respond(to: makeRequest(.get, "/readyz"))
        XCTAssertEqual(ready.status, .ok)
        XCTAssertEqual(jsonObject(ready)["model"] as? String, "fake-1")
    }

    func testFailedLoadIs503ModelUnavailable() {
        let api = makeAPI(engine: nil)
        api.state.setFailed("boom /secret/path")
        let response = api.respond(to: makeRequest(.get, "/readyz"))
        XCTAssertEqual(response.status.code, 503)
        XCTAssertEqual(errorCode(response), "model_unavailable")
        XCTAssertFalse(response.bodyText.contains("secret"))
    }

    func testSuggestPost() throws {
        let response = makeAPI().respond(to: makeRequest(.post, "/v1/suggest", body: #"{"name":"  淡路島産 にんじん 3本 ", "k": 3}"#))
        XCTAssertEqual(response.status, .ok)
        let object = jsonObject(response)
        XCTAssertEqual(object["name"] as? String, "淡路島産 にんじん 3本")
        XCTAssertEqual(object["model"] as? String, "fake-1")
        let suggestions = try XCTUnwrap(object["suggestions"] as? [[String: Any]])
        XCTAssertEqual(suggestions.count, 3)
        XCTAssertEqual(suggestions.first?["keyword"] as? String, "にんじん")
        XCTAssertNotNil(suggestions.first?["score"] as? Double)
        XCTAssertNil(suggestions.first?["weights"])
        XCTAssertNil(object["tokens"])
    }

    /// Fields an endpoint does not define are a 400 naming the field (a misspelt "explain" is not ignored).
    func testUnknownFieldsAre400() {
        let api = makeAPI()
        for (path, body) in [("/v1/suggest", #"{"name": "x", "explian": true}"#), ("/v1/suggest/batch", #"{"names": ["x"], "name": "y"}"#),
                             ("/v1/keywords", #"{"add": ["x"], "delete": ["y"]}"#)] {
            let response = api.respond(to: makeRequest(.post, path, body: body))
            XCTAssertEqual(response.status, .badRequest, path)
            XCTAssertEqual(errorCode(response), "unknown_field", path)
        }
    }

    func testSuggestDefaultsToFive() throws {
        let response = makeAPI().respond(to: makeRequest(.post, "/v1/suggest", body: #"{"name":"トマト"}"#))
        XCTAssertEqual((jsonObject(response)["suggestions"] as? [Any])?.count, 5)
    }

    func testSuggestExplain() throws {
        let response = makeAPI().respond(to: makeRequest(.post, "/v1/suggest", body: #"{"name":"トマト","explain":true}"#))
        let object = jsonObject(response)
        XCTAssertEqual(object["tokens"] as? [String], ["トマト"])
        let first = try XCTUnwrap((object["suggestions"] as? [[String: Any]])?.first)
        let weights = try XCTUnwrap(first["weights"] as? [[String: Any]])
        XCTAssertEqual(weights.first?["token"] as? String, "トマト")
    }

    func testSuggestGetWithPercentEncodedQuery() throws {
        let response = makeAPI().respond(to: makeRequest(.get, "/v1/suggest?name=%E3%81%AB%E3%82%93%E3%81%98%E3%82%93+3%E6%9C%AC&k=2"))
        XCTAssertEqual(response.status, .ok, response.bodyText)
        let object = jsonObject(response)
        XCTAssertEqual(object["name"] as? String, "にんじん 3本")
        XCTAssertEqual((object["suggestions"] as? [Any])?.count, 2)
    }

    func testSuggestBadInputs() {
        let api = makeAPI()
        let cases: [(String, String)] = [
            ("{", "malformed_json"), ("[]", "malformed_json"), (#"{}"#, "missing_name"), (#"{"name":""}"#, "empty_name"),
            (#"{"name":"   "}"#, "empty_name"), (#"{"name":5}"#, "invalid_name"), (#"{"name":"a\u0000b"}"#, "invalid_name"),
            (#"{"name":"x","k":0}"#, "invalid_k"), (#"{"name":"x","k":51}"#, "invalid_k"), (#"{"name":"x","k":2.5}"#, "invalid_k"),
            (#"{"name":"x","k":"5"}"#, "invalid_k"), (#"{"name":"x","explain":"yes"}"#, "invalid_explain"),
            ("{\"name\":\"" + String(repeating: "あ", count: 10_000) + "\"}", "name_too_long"),
        ]
        for (body, code) in cases {
            let response = api.respond(to: makeRequest(.post, "/v1/suggest", body: body))
            XCTAssertEqual(response.status.code, 400, body)
            XCTAssertEqual(errorCode(response), code, body)
        }
        XCTAssertNotNil(makeAPI().respond(to: makeRequest(.post, "/v1/suggest", body: "{\"name\":\"" + String(repeating: "あ", count: 1000) + "\"}")).status == .ok ? 1 : nil)
    }

    func testInvalidUTF8BodyAndQuery() {
        var request = makeRequest(.post, "/v1/suggest", body: "")
        request.body = Array(#"{"name":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        let response = makeAPI().respond(to: request)
        XCTAssertEqual(response.status.code, 400)
        XCTAssertEqual(errorCode(response), "invalid_utf8")
        XCTAssertEqual(errorCode(makeAPI().respond(to: makeRequest(.get, "/v1/suggest?name=%FF%FE"))), "invalid_utf8")
        XCTAssertEqual(errorCode(makeAPI().respond(to: makeRequest(.get, "/v1/suggest?name=%E3%8"))), "bad_percent_encoding")
        XCTAssertEqual(errorCode(makeAPI().respond(to: makeRequest(.get, "/v1/suggest?name=%zz"))), "bad_percent_encoding")
        XCTAssertEqual(errorCode(makeAPI().respond(to: makeRequest(.get, "/v1/suggest?k=3"))), "missing_name")
    }

    func testNonJSONBodyIs415() {
        let api = makeAPI()
        let plain = api.respond(to: makeRequest(.post, "/v1/suggest", headers: [("Content-Type", "text/plain")], body: "{}"))
        XCTAssertEqual(plain.status.code, 415)
        let missing = api.respond(to: makeRequest(.post, "/v1/suggest", body: #"{"name":"x"}"#, json: false))
        XCTAssertEqual(missing.status.code, 415)
        let latin1 = api.respond(to: makeRequest(.post, "/v1/suggest", headers: [("Content-Type", "application/json; charset=latin1")], body: #"{"name":"x"}"#))
        XCTAssertEqual(latin1.status.code, 415)
        let withCharset = api.respond(to: makeRequest(.post, "/v1/suggest", headers: [("Content-Type", "Application/JSON; charset=UTF-8")], body: #"{"name":"x"}"#))
        XCTAssertEqual(withCharset.status, .ok)
    }

    /// A 415 says which header to send: both accepted types for /v1/suggest, JSON alone elsewhere.
    func test415NamesTheHeaderToSend() throws {
        let api = makeAPI()
        let suggest = api.respond(to: makeRequest(.post, "/v1/suggest", body: "name=x", json: false))
        XCTAssertEqual(suggest.status.code, 415)
        let message = try XCTUnwrap((jsonObject(suggest)["error"] as? [String: Any])?["message"] as? String)
        XCTAssertEqual(message, "send the body with the header 'Content-Type: application/json' or 'Content-Type: application/x-www-form-urlencoded'")
        let batch = api.respond(to: makeRequest(.post, "/v1/suggest/batch", headers: [("Content-Type", "text/plain")], body: "x"))
        let batchMessage = try XCTUnwrap((jsonObject(batch)["error"] as? [String: Any])?["message"] as? String)
        XCTAssertEqual(batchMessage, "send the body with the header 'Content-Type: application/json', not 'text/plain'")
    }

    /// `curl -d 'name=…&k=3'` sends a form body: it is a suggestion request like the JSON one.
    func testFormEncodedSuggest() throws {
        let api = makeAPI()
        let form = [("Content-Type", "application/x-www-form-urlencoded")]
        let response = api.respond(to: makeRequest(.post, "/v1/suggest", headers: form, body: "name=%E3%83%88%E3%83%9E%E3%83%88+%E7%AE%B1&k=2&explain=true"))
        XCTAssertEqual(response.status, .ok)
        let object = jsonObject(response)
        XCTAssertEqual(object["name"] as? String, "トマト 箱")
        XCTAssertEqual((object["suggestions"] as? [[String: Any]])?.count, 2)
        XCTAssertNotNil(object["tokens"])
        let raw = api.respond(to: makeRequest(.post, "/v1/suggest", headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")], body: "name=トマト"))
        XCTAssertEqual(raw.status, .ok, "curl sends UTF-8 unescaped")
        for (body, code) in [("k=3", "missing_name"), ("name=x&k=0", "invalid_k"), ("name=x&explain=maybe", "invalid_explain"),
                             ("name=x&kk=3", "unknown_field"), ("name=%FF", "invalid_utf8"), ("name=%zz", "bad_percent_encoding"),
                             ("name=+++", "empty_name")] {
            XCTAssertEqual(errorCode(api.respond(to: makeRequest(.post, "/v1/suggest", headers: form, body: body))), code, body)
        }
        var invalid = makeRequest(.post, "/v1/suggest", headers: form)
        invalid.body = [0x6E, 0x61, 0x6D, 0x65, 0x3D, 0xFF]
        XCTAssertEqual(errorCode(api.respond(to: invalid)), "invalid_utf8")
    }

    /// `explain: null` and `k: null` mean the defaults (the document says so); `names: null` is not a list.
    func testNullFields() {
        let api = makeAPI()
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/suggest", body: #"{"name":"x","explain":null,"k":null}"#)).status, .ok)
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: #"{"names":null}"#))), "invalid_names")
    }

    func testBatch() throws {
        let response = makeAPI().respond(to: makeRequest(.post, "/v1/suggest/batch", body: #"{"names":["トマト","豚肉 小間切れ"],"k":2}"#))
        XCTAssertEqual(response.status, .ok)
        let results = try XCTUnwrap(jsonObject(response)["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["name"] as? String }, ["トマト", "豚肉 小間切れ"])
        XCTAssertEqual(results.map { ($0["suggestions"] as? [Any])?.count }, [2, 2])
    }

    func testBatchLimits() {
        let api = makeAPI()
        let tooMany = "{\"names\":[" + Array(repeating: "\"a\"", count: 1001).joined(separator: ",") + "]}"
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: tooMany))), "batch_too_large")
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: #"{"names":["a",""]}"#))), "empty_name")
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: #"{"names":"a"}"#))), "invalid_names")
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: #"{}"#))), "missing_names")
        XCTAssertTrue(api.match(makeRequest(.post, "/v1/suggest/batch")).isBlocking)
        XCTAssertFalse(api.match(makeRequest(.post, "/v1/suggest")).isBlocking)
    }

    func testKeywordsListAndUpdate() throws {
        let api = makeAPI()
        let list = jsonObject(api.respond(to: makeRequest(.get, "/v1/keywords")))
        XCTAssertEqual(list["count"] as? Int, 7)
        XCTAssertEqual(list["version"] as? String, "v7")
        let updated = api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":[" ごぼう "],"remove":["豚肉"]}"#))
        XCTAssertEqual(updated.status, .ok, updated.bodyText)
        let keywords = try XCTUnwrap(jsonObject(updated)["keywords"] as? [String])
        XCTAssertTrue(keywords.contains("ごぼう"))
        XCTAssertFalse(keywords.contains("豚肉"))
        let unchanged = api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":[],"remove":null}"#))
        XCTAssertEqual(unchanged.status, .ok, "an empty change is a no-op")
        XCTAssertEqual(jsonObject(unchanged)["keywords"] as? [String], keywords)
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":[""]}"#))), "invalid_keyword")
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":"x"}"#))), "invalid_add")
    }

    func testKeywordUpdateFailureIs500WithoutInternals() {
        let response = makeAPI(engine: FakeEngine(failUpdates: true)).respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add":["x"]}"#))
        XCTAssertEqual(response.status.code, 500)
        XCTAssertEqual(errorCode(response), "keyword_update_failed")
        XCTAssertFalse(response.bodyText.contains("Failure"))
    }

    func testAdminTokenIsRequiredForWrites() {
        let api = makeAPI(token: "s3cret")
        let body = #"{"add":["x"]}"#
        let none = api.respond(to: makeRequest(.post, "/v1/keywords", body: body))
        XCTAssertEqual(none.status.code, 401)
        XCTAssertEqual(none.headers["WWW-Authenticate"], "Bearer")
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("Authorization", "Bearer s3cre")], body: body)).status.code, 401)
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("Authorization", "Bearer s3cret!")], body: body)).status.code, 401)
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("Authorization", "Basic s3cret")], body: body)).status.code, 401)
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("Authorization", "Bearer s3cret")], body: body)).status, .ok)
        // Reads stay open.
        XCTAssertEqual(api.respond(to: makeRequest(.get, "/v1/keywords")).status, .ok)
    }

    func testConstantTimeEqual() {
        XCTAssertTrue(RequestDecoding.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        XCTAssertFalse(RequestDecoding.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        XCTAssertFalse(RequestDecoding.constantTimeEqual(Array("abc".utf8), Array("abc\0".utf8)))
        XCTAssertFalse(RequestDecoding.constantTimeEqual([], Array("a".utf8)))
    }

    func testNotFoundAndMethodNotAllowed() {
        let api = makeAPI()
        let missing = api.respond(to: makeRequest(.get, "/nope"))
        XCTAssertEqual(missing.status.code, 404)
        XCTAssertEqual(errorCode(missing), "not_found")
        let wrong = api.respond(to: makeRequest(.delete, "/v1/suggest"))
        XCTAssertEqual(wrong.status.code, 405)
        XCTAssertEqual(wrong.headers["Allow"], "GET, POST, HEAD, OPTIONS")
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/healthz", body: "{}")).headers["Allow"], "GET, HEAD, OPTIONS")
        // No path reaches the file system: traversal attempts are just unknown routes.
        XCTAssertEqual(api.respond(to: makeRequest(.get, "/../../etc/passwd")).status.code, 404)
    }

    func testHeadIsRoutedLikeGet() {
        let api = makeAPI()
        XCTAssertEqual(api.respond(to: makeRequest(.head, "/healthz")).status, .ok)
    }

    func testCORSPreflightAndHeaders() {
        let api = makeAPI(cors: ["https://admin.example"])
        let preflight = api.respond(to: makeRequest(.options, "/v1/suggest", headers: [
            ("Origin", "https://admin.example"), ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type")]))
        XCTAssertEqual(preflight.status.code, 204)
        XCTAssertEqual(preflight.headers["Access-Control-Allow-Origin"], "https://admin.example")
        XCTAssertEqual(preflight.headers["Access-Control-Allow-Methods"], "GET, POST, HEAD, OPTIONS")
        XCTAssertEqual(preflight.headers["Access-Control-Allow-Headers"], "Content-Type, Authorization, X-Request-Id")
        XCTAssertEqual(preflight.headers["Vary"], "Origin")
        let simple = api.respond(to: makeRequest(.get, "/healthz", headers: [("Origin", "https://admin.example")]))
        XCTAssertEqual(simple.headers["Access-Control-Allow-Origin"], "https://admin.example")
        let other = api.respond(to: makeRequest(.options, "/v1/suggest", headers: [
            ("Origin", "https://evil.example"), ("Access-Control-Request-Method", "POST")]))
        XCTAssertEqual(other.status.code, 403)
        XCTAssertNil(other.headers["Access-Control-Allow-Origin"])
        XCTAssertNil(api.respond(to: makeRequest(.get, "/healthz", headers: [("Origin", "https://evil.example")])).headers["Access-Control-Allow-Origin"])
        // Without configured origins there are no CORS headers at all.
        XCTAssertNil(makeAPI().respond(to: makeRequest(.get, "/healthz", headers: [("Origin", "https://admin.example")])).headers["Access-Control-Allow-Origin"])
        XCTAssertEqual(makeAPI().respond(to: makeRequest(.options, "/v1/keywords")).headers["Allow"], "GET, POST, HEAD, OPTIONS")
    }

    func testCORSEnvironmentParsing() {
        XCTAssertEqual(CORSPolicy.parse(environment: "https://a.example, https://b.example"), ["https://a.example", "https://b.example"])
    }

    func testMetricsText() {
        let metrics = KeywordAPI.makeMetrics(shards: 2)
        metrics.record(shard: 1, route: "/v1/suggest", method: "POST", status: 200, seconds: 0.0003)
        let response = makeAPI(metrics: metrics).respond(to: makeRequest(.get, "/metrics"))
        XCTAssertEqual(response.headers["Content-Type"], "text/plain; version=0.0.4; charset=utf-8")
        let text = response.bodyText
        XCTAssertTrue(text.contains(#"kwsuggest_http_requests_total{route="/v1/suggest",method="POST",status="200"} 1"#), text)
        XCTAssertTrue(text.contains(#"kwsuggest_http_request_duration_seconds_bucket{le="0.0005"} 1"#), text)
        XCTAssertTrue(text.contains("kwsuggest_http_requests_in_flight 0"), text)
        XCTAssertTrue(text.contains(#"kwsuggest_model_info{version="fake-1"} 1"#), text)
        XCTAssertTrue(text.contains("kwsuggest_model_ready 1"), text)
    }

    /// Every code declared anywhere in the sources (`static let … = ErrorCode("…")`) is in the catalogue the
    /// document lists, and nothing else is: a code declared but left out of `apiCodes` fails here.
    func testTheCatalogueHoldsEveryDeclaredCode() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let pattern = try NSRegularExpression(pattern: #"static let \w+ = ErrorCode\("([a-z0-9_]+)"\)"#)
        var declared: [String] = []
        let walker = try XCTUnwrap(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let file as URL in walker where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { declared.append(String(text[range])) }
            }
        }
        XCTAssertGreaterThan(declared.count, 20, "the scan found too few declarations")
        XCTAssertEqual(Set(declared).count, declared.count, "a code is declared twice")
        XCTAssertEqual(declared.sorted(), ErrorCode.all.map(\.rawValue).sorted())
    }

    func testOpenAPIErrorCodesAreTheCatalogue() throws {
        let response = makeAPI().respond(to: makeRequest(.get, "/openapi.json"))
        let object = jsonObject(response)
        let schemas = try XCTUnwrap((object["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let error = try XCTUnwrap(schemas["Error"] as? [String: Any])
        let inner = try XCTUnwrap(((error["properties"] as? [String: Any])?["error"] as? [String: Any])?["properties"] as? [String: Any])
        let codes = try XCTUnwrap((inner["code"] as? [String: Any])?["enum"] as? [String])
        XCTAssertEqual(codes, ErrorCode.all.map(\.rawValue).sorted())
        XCTAssertEqual(Set(codes).count, codes.count, "a code is listed twice")
        XCTAssertTrue(codes.contains("not_found") && codes.contains("uri_too_long"))
    }

    func testOpenAPIIsVersion31() throws {
        let object = jsonObject(makeAPI().respond(to: makeRequest(.get, "/openapi.json")))
        XCTAssertEqual(object["openapi"] as? String, "3.1.0")
    }

    /// The document's paths and operations are exactly the router's routes and methods, in both directions.
    func testOpenAPIPathsAreTheRoutersRoutes() throws {
        let api = makeAPI()
        let object = jsonObject(api.respond(to: makeRequest(.get, "/openapi.json")))
        let paths = try XCTUnwrap(object["paths"] as? [String: [String: Any]])
        let methods = Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"])
        let documented = paths.mapValues { Set($0.keys.filter(methods.contains).map { $0.uppercased() }) }
        XCTAssertEqual(documented, api.routeTable)
    }

    /// The document states the limits the server was configured with, not the defaults.
    func testOpenAPIStatesTheConfiguredLimits() throws {
        var configuration = APIConfiguration()
        configuration.limits.maxK = 20
        configuration.limits.maxBatchNames = 300
        configuration.limits.maxFeedbackItems = 40
        let api = KeywordAPI(configuration: configuration, state: EngineSlot(engine: FakeEngine()), metrics: KeywordAPI.makeMetrics())
        let text = api.respond(to: makeRequest(.get, "/openapi.json")).bodyText
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let schemas = try XCTUnwrap((object["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        let batch = try XCTUnwrap(schemas["BatchRequest"]?["properties"] as? [String: [String: Any]])
        XCTAssertEqual(batch["names"]?["maxItems"] as? Int, 300)
        XCTAssertEqual(batch["k"]?["maximum"] as? Int, 20)
        XCTAssertTrue(text.contains("up to 300 names"))
        XCTAssertTrue(text.contains("of up to 40 (stored all or none)"))
        XCTAssertFalse(text.contains("\"maximum\": 50"))
    }

    func testAdminPageIsHTMLWithTheForm() {
        let response = makeAPI().respond(to: makeRequest(.get, "/"))
        XCTAssertEqual(response.headers["Content-Type"], "text/html; charset=utf-8")
        XCTAssertTrue(response.bodyText.contains(#"id="name""#))
        XCTAssertTrue(response.bodyText.contains(#"id="keyword""#))
        XCTAssertTrue(response.bodyText.contains(#"<script type="module" src="/workbench.js"></script>"#))
    }

    func testWorkbenchFilesRunOnlyTheirOwnCodeAndCannotBeFramed() {
        let api = makeAPI()
        for (path, type) in [("/", "text/html"), ("/workbench.js", "text/javascript"), ("/queue.js", "text/javascript"),
                                  ("/common.js", "text/javascript"), ("/workbench.css", "text/css")] {
            let response = api.respond(to: makeRequest(.get, path))
            XCTAssertEqual(response.status, .ok, path)
            XCTAssertEqual(response.headers["Content-Type"], "\(type); charset=utf-8", path)
            let policy = response.headers["Content-Security-Policy"] ?? ""
            XCTAssertTrue(policy.contains("script-src 'self';"), policy)
            XCTAssertTrue(policy.contains("frame-ancestors 'none'"), policy)
            XCTAssertFalse(policy.contains("unsafe-inline"), policy)
            XCTAssertEqual(response.headers["X-Frame-Options"], "DENY", path)
            XCTAssertEqual(response.headers["X-Content-Type-Options"], "nosniff", path)
        }
        let script = api.respond(to: makeRequest(.get, "/workbench.js")).bodyText
        XCTAssertTrue(script.contains("post(\"/v1/suggest\""))
        XCTAssertTrue(script.contains("from \"/common.js\""))
        XCTAssertTrue(api.respond(to: makeRequest(.get, "/common.js")).bodyText.contains("await fetch(path, options)"))
    }

    func testErrorsAreAlwaysTheOneJSONShape() throws {
        let response = ErrorBody.response(.badRequest, code: ErrorCode("x_y"), message: "say \"hi\"")
        let error = try XCTUnwrap(jsonObject(response)["error"] as? [String: Any])
        XCTAssertEqual(error["code"] as? String, "x_y")
        XCTAssertEqual(error["message"] as? String, "say \"hi\"")
    }
}

/// An engine with nothing to suggest for any name, for the reason it was made with.
private final class ReasonEngine: SuggestionEngine {
    let modelVersion = "reason-1"
    let reason: NoSuggestionReason
    init(_ reason: NoSuggestionReason) { self.reason = reason }
    func suggest(_ name: String, k: Int, explain: Bool) -> SuggestionResult {
        SuggestionResult(name: name, suggestions: [], reason: reason)
    }
    func keywordList() -> KeywordListSnapshot { KeywordListSnapshot(keywords: ["k"], version: "v1") }
    func updateKeywords(_ change: KeywordChange) throws -> KeywordListSnapshot { keywordList() }
    func reloadKeywords() throws -> KeywordListSnapshot { keywordList() }
}

extension RouterTests {
    /// The document lists exactly the engine's reasons for an empty answer.
    func testOpenAPIReasonsAreTheEnginesReasons() throws {
        let object = jsonObject(makeAPI().respond(to: makeRequest(.get, "/openapi.json")))
        let schemas = try XCTUnwrap((object["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let reasons = try XCTUnwrap((schemas["NoSuggestionReason"] as? [String: Any])?["enum"] as? [String])
        XCTAssertEqual(reasons, NoSuggestionReason.allCases.map(\.rawValue))
    }

    /// Every reason reaches the single and the batch answer.
    func testEveryReasonReachesBothAnswers() throws {
        for reason in NoSuggestionReason.allCases {
            let api = makeAPI(engine: ReasonEngine(reason))
            let single = jsonObject(api.respond(to: makeRequest(.post, "/v1/suggest", body: #"{"name": "大阪産"}"#)))
            XCTAssertEqual(single["reason"] as? String, reason.rawValue)
            XCTAssertEqual((single["suggestions"] as? [Any])?.count, 0)
            let batch = jsonObject(api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: #"{"names": ["大阪産"]}"#)))
            let results = try XCTUnwrap(batch["results"] as? [[String: Any]])
            XCTAssertEqual(results.first?["reason"] as? String, reason.rawValue)
        }
    }
}
