import FileStore
import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import StoreInterface
import XCTest

/// Ids the API hands to the store: a client id reused for another decision is 409, and the request id a keyword
/// change is logged with is the one the response carries.
final class FeedbackIDTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "feedback-ids-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Annotator B reusing annotator A's id gets 409 id_conflict naming the id and A's record, nothing of B's
    /// batch is stored, and A's retry is still a duplicate.
    func testSameIDWithAnotherDecisionIs409() throws {
        let store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
        let api = makeAPI(store: store)
        func post(_ body: String) -> HTTPResponse { api.respond(to: makeRequest(.post, "/v1/feedback", body: body)) }
        let a = #"{"id": "1", "name": "カラーにんじん 3本", "keyword": "にんじん", "action": "accept", "annotator": "A"}"#
        XCTAssertEqual(post(a).bodyText, #"{"id":1,"duplicate":false}"#)
        let b = post(#"{"items": [{"name": "玉ねぎ", "keyword": "玉ねぎ", "action": "accept"}, {"id": "1", "name": "メークイン 1kg", "keyword": "じゃがいも", "action": "correct", "annotator": "B"}]}"#)
        XCTAssertEqual(b.status.code, 409, b.bodyText)
        XCTAssertEqual(errorCode(b), "id_conflict")
        XCTAssertTrue(b.bodyText.contains("'1' was already used for a different decision (record 1)"), b.bodyText)
        XCTAssertEqual(try store.feedback(after: 0, limit: 10).count, 1)
        XCTAssertEqual(post(a).bodyText, #"{"id":1,"duplicate":true}"#)
        // The same id in the other Unicode form is the same id.
        let composed = #"{"id": "caf\u00e9", "name": "n", "keyword": "k", "action": "accept"}"#
        let decomposed = #"{"id": "cafe\u0301", "name": "n", "keyword": "k", "action": "accept"}"#
        XCTAssertEqual(post(composed).bodyText, #"{"id":2,"duplicate":false}"#)
        XCTAssertEqual(post(decomposed).bodyText, #"{"id":2,"duplicate":true}"#)
    }

    /// The change reaches the store with the response's `X-Request-Id`: the client's when it is valid, the
    /// server's own otherwise (never the raw header).
    func testKeywordChangeCarriesTheResponseRequestID() throws {
        let engine = FakeEngine()
        let api = makeAPI(engine: engine)
        let server = try HTTPServer(configuration: api.serverConfiguration(makeConfiguration()), responder: api)
        try server.start()
        defer { server.shutdown(); server.wait() }
        let client = try RawClient(port: server.port)
        for (sent, keyword) in [("req-7", "ごぼう"), ("bad id <script>", "れんこん")] {
            let body = #"{"add": ["\#(keyword)"]}"#
            client.send("POST /v1/keywords HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nX-Request-Id: \(sent)\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let response = try XCTUnwrap(client.readResponse())
            XCTAssertEqual(response.status, 200)
            let answered = try XCTUnwrap(response.header("X-Request-Id"))
            if sent == "req-7" { XCTAssertEqual(answered, "req-7") } else { XCTAssertNotEqual(answered, sent) }
            XCTAssertEqual(engine.changes.withLock { $0.last?.requestID }, answered)
        }
    }
}
