import APICore
import FileStore
import Foundation
import HTTPCore
@testable import KeywordHTTP
import StrictJSON
import XCTest

/// Each route's JSON value cap is no tighter than its schema: the schema-valid body with the most values parses,
/// and a body of many tiny values is refused with 400 `too_many_values` at the first value beyond the cap.
final class ValueCapTests: XCTestCase {
    private let limits = APILimits()
    private var caps: ValueCaps { ValueCaps(limits) }

    /// Every value of a document, the document included.
    private func count(_ value: JSONValue) -> Int {
        switch value {
        case .array(let items): return 1 + items.reduce(0) { $0 + count($1) }
        case .object(let fields): return 1 + fields.values.reduce(0) { $0 + count($1) }
        default: return 1
        }
    }

    private func count(_ body: String) throws -> Int { count(try JSONParser.parse(Array(body.utf8))) }

    private func list(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }

    private func post(_ api: KeywordAPI, _ path: String, _ body: String) -> HTTPResponse {
        api.respond(to: makeRequest(.post, path, body: body))
    }

    func testTheBodyWithTheMostValuesEachSchemaAllowsIsServed() throws {
        let directory = NSTemporaryDirectory() + "value-caps-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let api = makeAPI(store: FileKeywordStore(overlayPath: directory + "/keywords.overlay.json"))

        let suggest = #"{"name": "にんじん", "k": 5, "explain": true}"#
        XCTAssertEqual(JSONSize.values(try count(suggest)), caps.suggest)
        XCTAssertEqual(post(api, "/v1/suggest", suggest).status.code, 200)

        let batch = #"{"names": "# + list(Array(repeating: #""にんじん""#, count: limits.maxBatchNames)) + #", "k": 10, "explain": false}"#
        XCTAssertEqual(JSONSize.values(try count(batch)), caps.batch)
        XCTAssertEqual(post(api, "/v1/suggest/batch", batch).status.code, 200)

        // Both lists at their maxItems: past the parser, refused by the rule on add + remove, with its own code.
        let add = list((0..<limits.maxKeywordChanges).map { "\"a\($0)\"" })
        let remove = list((0..<limits.maxKeywordChanges).map { "\"r\($0)\"" })
        let keywords = #"{"add": "# + add + #", "remove": "# + remove + #", "actor": "me"}"#
        XCTAssertEqual(JSONSize.values(try count(keywords)), caps.keywords)
        XCTAssertEqual(errorCode(post(api, "/v1/keywords", keywords)), "too_many_keywords")

        let shown = list(Array(repeating: #""にんじん""#, count: limits.maxK))
        let items = (0..<limits.maxFeedbackItems).map {
            #"{"id": "c\#($0)", "name": "人参 3本", "keyword": "にんじん", "action": "accept", "shown": \#(shown), "model": "m", "annotator": "a"}"#
        }
        let feedback = #"{"items": "# + list(items) + "}"
        XCTAssertEqual(JSONSize.values(try count(feedback)), caps.feedback)
        let stored = post(api, "/v1/feedback", feedback)
        XCTAssertEqual(stored.status.code, 201, String(stored.bodyText.prefix(300)))
        XCTAssertEqual(post(api, "/v1/feedback", items[0]).status.code, 201)
    }

    /// `{"field": [1,1,…]}` holds 2 + n values: at the cap it reaches the handler (which refuses the numbers
    /// with the field's code), one more is `too_many_values`.
    /// fuzz/FuzzTarget.swift states the default batch cap as a number; it must follow the limits.
    func testTheFuzzTargetsBatchCapIsTheDefault() {
        XCTAssertEqual(ValueCaps(APILimits()).batch, 2_024)
    }

    func testOneValueOverTheCapIsTooManyValues() {
        let api = makeAPI()
        for (path, field, cap) in [("/v1/suggest", "name", caps.suggest), ("/v1/suggest/batch", "names", caps.batch),
                                   ("/v1/keywords", "add", caps.keywords), ("/v1/feedback", "items", caps.feedback)] {
            func body(_ values: Int) -> String { "{\"\(field)\": [" + Array(repeating: "1", count: values - 2).joined(separator: ",") + "]}" }
            let atCap = post(api, path, body(cap))
            XCTAssertEqual(atCap.status.code, 400, path)
            XCTAssertNotEqual(errorCode(atCap), "too_many_values", path)
            let over = post(api, path, body(cap + 1))
            XCTAssertEqual(over.status.code, 400, path)
            XCTAssertEqual(errorCode(over), "too_many_values", path)
            XCTAssertTrue(over.bodyText.contains("more than \(cap) JSON values"), over.bodyText)
        }
    }

    /// A batch body as large as its byte cap, all tiny objects: refused where the cap is passed, a few
    /// kilobytes in, instead of building a tree of millions of values.
    func testAByteCapOfTinyValuesIsRefusedWhereTheValueCapIsPassed() throws {
        let api = makeAPI()
        let size = BodyCaps(limits).batch
        var body = #"{"names": ["#
        body.reserveCapacity(size)
        let item = #"{"a":1},"#
        body += String(repeating: item, count: (size - body.utf8.count - 10) / item.utf8.count)
        body += #"{"a":1}]}"#
        XCTAssertGreaterThan(body.utf8.count, size - 20)
        let response = post(api, "/v1/suggest/batch", body)
        XCTAssertEqual(response.status.code, 400)
        XCTAssertEqual(errorCode(response), "too_many_values")
        let message = (jsonObject(response)["error"] as? [String: Any])?["message"] as? String ?? ""
        let offset = try XCTUnwrap(message.split(separator: " ").last.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: ")"))) })
        XCTAssertLessThan(offset, caps.batch * item.utf8.count / 2 + 100, message)
    }
}
