import Foundation
import FileStore
@testable import HTTPCore
@testable import KeywordHTTP
import XCTest

/// Keywords that cannot be seen, or that are another keyword in a compatibility form, through every API surface;
/// and the keyword change's preconditions and bounds.
final class InvisibleKeywordTests: XCTestCase {
    /// Each JSON string (escaped as a client would send it) is refused with 400 `invalid_keyword` and a message
    /// naming the field and the reason.
    private let invisible: [(json: String, reason: String)] = [
        (#""\u200d\u200c""#, "invisible format character U+200D"),  // ZWJ + ZWNJ only
        (#""\ufeff""#, "invisible format character U+FEFF"),  // BOM
        (#""\u200e""#, "invisible format character U+200E"),  // LRM
        (#""\u0301\u0302""#, "has no visible character"),  // combining marks only
        (#""\u202eにんじん""#, "invisible format character U+202E"),  // RLO
        (#""にんじん\udb40\udc41\udb40\udc7f""#, "invisible format character U+E0041"),  // tag characters
        (#""\u200b""#, "invisible format character U+200B"),  // zero-width space, not white space
        (#""\uffff""#, "noncharacter U+FFFF"),
        (#""\udbff\udfff""#, "noncharacter U+10FFFF"),
        (#""\ue000豚""#, "private-use character U+E000"),
        (#""\u3164""#, "invisible character U+1160"),  // Hangul filler (a letter that draws nothing), NFKC U+1160
        (#""\u2800""#, "invisible character U+2800"),  // braille pattern blank: a symbol that draws nothing
        (#""\u2800にんじん""#, "invisible character U+2800"),
    ]

    func testInvisibleKeywordsAreRefusedOnTheKeywordList() {
        let engine = FakeEngine()
        let api = makeAPI(engine: engine)
        for (json, reason) in invisible {
            for field in ["add", "remove"] {
                let response = api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"\#(field)": ["ok", \#(json)]}"#))
                XCTAssertEqual(response.status.code, 400, json)
                XCTAssertEqual(errorCode(response), "invalid_keyword", json)
                XCTAssertTrue(response.bodyText.contains("'\(field)[1]' ") && response.bodyText.contains(reason),
                              "\(json): \(response.bodyText)")
            }
        }
        XCTAssertEqual(engine.changes.withLock { $0.count }, 0, "nothing refused reaches the store")
    }

    func testInvisibleKeywordsAreRefusedInFeedback() throws {
        let directory = NSTemporaryDirectory() + "invisible-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
        let api = makeAPI(store: store)
        for (json, reason) in invisible {
            for body in [#"{"name": "人参", "keyword": \#(json), "action": "accept"}"#,
                         #"{"name": "人参", "keyword": "にんじん", "action": "accept", "shown": [\#(json)]}"#] {
                let response = api.respond(to: makeRequest(.post, "/v1/feedback", body: body))
                XCTAssertEqual(response.status.code, 400, body)
                XCTAssertEqual(errorCode(response), "invalid_keyword", body)
                XCTAssertTrue(response.bodyText.contains(reason), "\(body): \(response.bodyText)")
            }
        }
        XCTAssertEqual(try store.feedback(after: 0, limit: 10).count, 0)
        // The same trimming and folding as the keyword list: the stored keyword is the list's spelling.
        let folded = api.respond(to: makeRequest(.post, "/v1/feedback",
                                                 body: #"{"name": "餃子の皮", "keyword": "\u3000ｷﾞｮｳｻﾞ皮 ", "action": "accept", "shown": ["ギョウザ皮"]}"#))
        XCTAssertEqual(folded.status.code, 201, folded.bodyText)
        XCTAssertEqual(try store.feedback(after: 0, limit: 10).map(\.item.keyword), ["ギョウザ皮"])
    }

    func testCompatibilityFormsAreOneKeyword() {
        let engine = FakeEngine(keywords: ["にんじん"])
        let api = makeAPI(engine: engine)
        let added = api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add": ["ｷﾞｮｳｻﾞ皮", "ギョウザ皮", "ＡＢＣ"]}"#))
        XCTAssertEqual(added.status.code, 200, added.bodyText)
        XCTAssertEqual(jsonObject(added)["keywords"] as? [String], ["にんじん", "ギョウザ皮", "ABC"])
        let again = api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add": ["ｷﾞｮｳｻﾞ皮"]}"#))
        XCTAssertEqual(jsonObject(again)["count"] as? Int, 3)
        let removed = api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"remove": ["ｷﾞｮｳｻﾞ皮"]}"#))
        XCTAssertEqual(jsonObject(removed)["keywords"] as? [String], ["にんじん", "ABC"])
    }

    func testRemovalsOfAbsentKeywordsAreNotRecorded() {
        let engine = FakeEngine(keywords: ["にんじん", "豚肉"])
        let api = makeAPI(engine: engine)
        let response = api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"remove": ["存在しない", "豚肉"], "add": ["牛肉"]}"#))
        XCTAssertEqual(response.status.code, 200, response.bodyText)
        let none = api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"remove": ["存在しない", "もうない"]}"#))
        XCTAssertEqual(none.status.code, 200)
        // Added and removed in one change: the removal wins, and an absent keyword is not recorded either way.
        _ = api.respond(to: makeRequest(.post, "/v1/keywords", body: #"{"add": ["鶏肉"], "remove": ["鶏肉"]}"#))
        XCTAssertEqual(engine.changes.withLock { $0.map(\.remove) }, [["豚肉"]])
        XCTAssertEqual(engine.changes.withLock { $0.map(\.add) }, [["牛肉"]])
    }

    func testWeakAndStaleIfMatch() {
        let engine = FakeEngine(keywords: ["にんじん"])
        let api = makeAPI(engine: engine)
        let weak = api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("If-Match", #"W/"v1""#)], body: #"{"add": ["a"]}"#))
        XCTAssertEqual(weak.status.code, 400)
        XCTAssertEqual(errorCode(weak), "invalid_if_match")
        XCTAssertTrue(weak.bodyText.contains("weak"), weak.bodyText)
        // An empty change names no keyword, but its precondition still holds or fails.
        let stale = api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("If-Match", #""v0""#)], body: #"{"add": []}"#))
        XCTAssertEqual(stale.status.code, 412, stale.bodyText)
        XCTAssertEqual(errorCode(stale), "version_mismatch")
        XCTAssertEqual(stale.headers["ETag"], #""v1""#)
        let current = api.respond(to: makeRequest(.post, "/v1/keywords", headers: [("If-Match", #""v1""#)], body: #"{"remove": ["ない"]}"#))
        XCTAssertEqual(current.status.code, 200)
        XCTAssertEqual(engine.changes.withLock { $0.count }, 0)
    }
}
