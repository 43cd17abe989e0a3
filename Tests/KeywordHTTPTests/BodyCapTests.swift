import APICore
import FileStore
import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import QueueAPI
import XCTest

/// Worst-case JSON: bodies the schema allows, written as long as JSON can write them (every code point a `\u`
/// escape, astral ones as surrogate pairs, keys escaped, white space between every two tokens).
enum MaximalJSON {
    static let gap = String(repeating: " ", count: BodyCaps.whitespaceBytes)
    static let astral = #"\uD83E\uDD55"#  // U+1F955 (a carrot), 12 bytes
    static let space = #"\u3000"#          // ideographic space, Unicode White_Space

    static func escaped(_ text: String) -> String {
        text.unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined()
    }

    /// A string of `codePoints` astral escapes inside `padding` escaped white space (half before, half after).
    static func string(_ codePoints: Int, padding: Int = 0) -> String {
        let before = String(repeating: space, count: padding / 2)
        let after = String(repeating: space, count: padding - padding / 2)
        return "\"" + before + String(repeating: astral, count: codePoints) + after + "\""
    }

    static func object(_ members: [(String, String)]) -> String {
        gap + "{" + members.map { gap + "\"" + escaped($0.0) + "\"" + gap + ":" + gap + $0.1 + gap }.joined(separator: ",")
            + "}" + gap
    }

    static func array(_ items: [String]) -> String {
        gap + "[" + items.map { gap + $0 + gap }.joined(separator: ",") + "]" + gap
    }

    /// `value` written in exactly `BodyCaps.numberBytes` bytes (trailing zeros of a fraction).
    static func number(_ value: Int) -> String {
        let text = "\(value)."
        return text + String(repeating: "0", count: BodyCaps.numberBytes - text.count)
    }

    static func batch(_ limits: APILimits, k: Int) -> String {
        let name = string(limits.maxNameCharacters, padding: limits.maxPaddingCharacters)
        return object([("names", array(Array(repeating: name, count: limits.maxBatchNames))),
                       ("k", number(k)), ("explain", "false")])
    }

    static func feedbackItem(_ limits: APILimits) -> String {
        let keyword = string(limits.maxKeywordCharacters, padding: limits.maxPaddingCharacters)
        let label = string(FeedbackDecoding.maxLabelCharacters)
        return object([("id", label), ("name", string(limits.maxNameCharacters, padding: limits.maxPaddingCharacters)),
                       ("keyword", keyword), ("action", "\"" + escaped("correct") + "\""),
                       ("shown", array(Array(repeating: keyword, count: limits.maxK))), ("model", label), ("annotator", label)])
    }
}

/// Each route's byte cap is no tighter than its schema: a maximal schema-valid body is served, a larger
/// declared one is refused on the head.
final class BodyCapTests: XCTestCase {
    private let limits = APILimits()
    private var caps: BodyCaps { BodyCaps(limits) }

    func testEveryCapHoldsTheLargestBodyItsSchemaAllows() {
        XCTAssertGreaterThanOrEqual(caps.suggest, caps.suggestBound)
        let suggest = MaximalJSON.object([("name", MaximalJSON.string(limits.maxNameCharacters, padding: limits.maxPaddingCharacters)),
                                          ("k", MaximalJSON.number(50)), ("explain", "false")])
        XCTAssertLessThanOrEqual(suggest.utf8.count, caps.suggestBound)
        let batch = MaximalJSON.batch(limits, k: 10)
        XCTAssertLessThanOrEqual(batch.utf8.count, caps.batch)
        // The cap is the bound itself, not a guess: the maximal body is within 1% of it.
        XCTAssertGreaterThan(batch.utf8.count, caps.batch * 99 / 100)
        let keyword = MaximalJSON.string(limits.maxKeywordCharacters, padding: limits.maxPaddingCharacters)
        let list = MaximalJSON.array(Array(repeating: keyword, count: limits.maxKeywordChanges))
        let keywords = MaximalJSON.object([("add", list), ("remove", list),
                                           ("actor", MaximalJSON.string(FeedbackDecoding.maxLabelCharacters))])
        XCTAssertLessThanOrEqual(keywords.utf8.count, caps.keywords)
        XCTAssertGreaterThan(keywords.utf8.count, caps.keywords * 99 / 100)
        let item = MaximalJSON.feedbackItem(limits)
        let feedback = MaximalJSON.object([("items", MaximalJSON.array(Array(repeating: item, count: limits.maxFeedbackItems)))])
        XCTAssertLessThanOrEqual(feedback.utf8.count, caps.feedback)
        XCTAssertGreaterThan(feedback.utf8.count, caps.feedback * 99 / 100)
        // The URI limit holds the longest GET /v1/suggest the schema allows: every code point percent-encoded.
        let longestQuery = "/v1/suggest?name=".count + 12 * limits.maxNameCharacters + 9 * limits.maxPaddingCharacters
            + "&k=50&explain=".count + 3 * 5
        XCTAssertLessThanOrEqual(longestQuery, HTTPLimits().maxURIBytes)
        // serve raises the HTTP ceiling to the largest route cap, and the default budget holds it.
        let api = makeAPI()
        let queue = QueueBodyCaps(limits)
        let largest = [caps.suggest, caps.batch, caps.keywords, caps.feedback, queue.items, queue.lease, queue.decisions,
                       queue.undo].max() ?? 0
        XCTAssertEqual(api.largestBodyCap, largest)
        XCTAssertEqual(api.serverConfiguration(ServerConfiguration()).limits.maxBodyBytes, largest)
        XCTAssertGreaterThanOrEqual(ServerConfiguration().bodyBudgetBytes, largest)
    }

    func testMaximalBatchIsServedAndOneByteMoreIsRefused() throws {
        let api = makeAPI()
        let body = MaximalJSON.batch(limits, k: 10)
        let response = api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: body))
        XCTAssertEqual(response.status.code, 200, String(response.bodyText.prefix(300)))
        let results = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["results"] as? [Any])
        XCTAssertEqual(results.count, limits.maxBatchNames)
        let over = body + String(repeating: " ", count: caps.batch - body.utf8.count + 1)
        let refused = api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: over))
        XCTAssertEqual(refused.status.code, 413)
    }

    func testMaximalFeedbackItemAndSuggestBodyAreServed() throws {
        let directory = NSTemporaryDirectory() + "body-caps-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let api = makeAPI(store: FileKeywordStore(overlayPath: directory + "/keywords.overlay.json"))
        let item = MaximalJSON.feedbackItem(limits)
        let stored = api.respond(to: makeRequest(.post, "/v1/feedback", body: item))
        XCTAssertEqual(stored.status.code, 201, stored.bodyText)
        let items = MaximalJSON.object([("items", MaximalJSON.array(Array(repeating: item, count: 20)))])
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/feedback", body: items)).status.code, 201)
        let suggest = MaximalJSON.object([("name", MaximalJSON.string(limits.maxNameCharacters, padding: limits.maxPaddingCharacters)),
                                          ("k", MaximalJSON.number(50)), ("explain", "true")])
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/suggest", body: suggest)).status.code, 200)
        let form = "name=" + String(repeating: "%E3%80%80", count: 50) + String(repeating: "%F0%9F%A5%95", count: 1000)
            + String(repeating: "%E3%80%80", count: 50) + "&k=50&explain=true"
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/suggest", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                   body: form)).status.code, 200)
    }

    func testStringsLongerThanTheirMaxLengthAre400() {
        let api = makeAPI()
        let padded = String(repeating: " ", count: 60) + String(repeating: "あ", count: 1000) + String(repeating: " ", count: 41)
        let response = api.respond(to: makeRequest(.post, "/v1/suggest", body: #"{"name": ""# + padded + #""}"#))
        XCTAssertEqual(response.status.code, 400)
        XCTAssertEqual(errorCode(response), "name_too_long")
        let fits = String(padded.dropLast())
        XCTAssertEqual(api.respond(to: makeRequest(.post, "/v1/suggest", body: #"{"name": ""# + fits + #""}"#)).status.code, 200)
        let keyword = String(repeating: " ", count: 101) + String(repeating: "あ", count: 100)
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add": [""# + keyword + #""]}"#))),
                       "invalid_keyword")
        let prefix = String(repeating: "a", count: 201)
        XCTAssertEqual(errorCode(api.respond(to: makeRequest(.get, "/v1/keywords?prefix=" + prefix))), "invalid_page")
    }

    func testNamesTimesKIsRefusedWithItsCode() {
        let api = makeAPI()
        func batch(_ count: Int, k: Int?, explain: Bool) -> HTTPResponse {
            let names = Array(repeating: "\"にんじん\"", count: count).joined(separator: ",")
            let kField = k.map { ", \"k\": \($0)" } ?? ""
            return api.respond(to: makeRequest(.post, "/v1/suggest/batch", body: "{\"names\": [\(names)]\(kField), \"explain\": \(explain)}"))
        }
        XCTAssertEqual(batch(200, k: 50, explain: false).status.code, 200)
        XCTAssertEqual(errorCode(batch(201, k: 50, explain: false)), "batch_too_large")
        XCTAssertEqual(batch(200, k: nil, explain: true).status.code, 200)
        XCTAssertEqual(errorCode(batch(201, k: nil, explain: true)), "batch_too_large")
        XCTAssertEqual(batch(20, k: 50, explain: true).status.code, 200)
        XCTAssertEqual(errorCode(batch(21, k: 50, explain: true)), "batch_too_large")
    }

    /// Over loopback: a maximal batch is answered 200; a declared length one byte over the cap is answered 413
    /// on the head, instead of `100 Continue`.
    func testLiveMaximalBatchAndDeclaredOverflow() throws {
        let live = try LiveServer()
        defer { live.stop() }
        let body = Array(MaximalJSON.batch(limits, k: 10).utf8)
        let client = try live.client()
        // Decoding and answering a maximal batch takes seconds in a debug build on a loaded machine; this test is
        // about the caps, not the time.
        client.receiveTimeout(seconds: 60)
        client.send("POST /v1/suggest/batch HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n")
        client.send(body)
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 200, String(response.body.prefix(300)))

        let refused = try live.client()
        refused.send("POST /v1/suggest/batch HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                     + "Content-Length: \(caps.batch + 1)\r\nExpect: 100-continue\r\n\r\n")
        let answer = try XCTUnwrap(refused.readResponse())
        XCTAssertEqual(answer.status, 413)
        XCTAssertEqual(answer.errorCode, "body_too_large")
        XCTAssertTrue(answer.body.contains(String(caps.batch)), answer.body)
    }
}
