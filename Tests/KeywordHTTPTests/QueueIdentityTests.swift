import FileStore
import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
import APICore
import QueueAPI
import StoreInterface
import TeamQueue
import XCTest

/// Who a queue request acts for and which ids its feedback takes, through the API on a real file store: the
/// queue's feedback ids are a namespace clients cannot write, and a label never answers 500 for an id.
final class QueueIdentityTests: XCTestCase {
    private var directory = ""
    private var store: FileKeywordStore!
    private let clock = SteppedClock()

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "queue-identity-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func api(policy: QueuePolicy = QueuePolicy(overlapShare: 0, auditShare: 0), token: String? = nil,
                     annotators: AnnotatorTokens = AnnotatorTokens()) -> KeywordAPI {
        let api = makeAPI(engine: AutoAcceptEngine(), token: token, annotators: annotators, store: store)
        let queue = FileQueueStore(overlayPath: store.overlayPath, feedbackStore: store, policy: policy)
        let clock = self.clock
        api.state.setQueue(AnnotationQueue(store: queue, clock: { clock.now() }))
        return api
    }

    private func post(_ api: KeywordAPI, _ path: String, _ body: String, token: String? = nil) -> HTTPResponse {
        let headers = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        return api.respond(to: makeRequest(.post, path, headers: headers, body: body))
    }

    private func lease(_ api: KeywordAPI, _ annotator: String, n: Int = 10, token: String? = nil) throws -> (id: String, items: [String]) {
        let response = post(api, "/v1/queue/lease", #"{"annotator": "\#(annotator)", "n": \#(n), "order": "oldest"}"#, token: token)
        XCTAssertEqual(response.status.code, 200, response.bodyText)
        let object = jsonObject(response)
        let items = (object["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        return (try XCTUnwrap(object["lease"] as? String), items)
    }

    /// A client cannot pre-post a label's id: `queue:` ids are refused with 400, and carol's label then succeeds.
    /// Items and annotators whose ids join to the same text label apart.
    func testQueueFeedbackIDsAreANamespaceClientsCannotWrite() throws {
        let api = self.api()
        let squat = post(api, "/v1/feedback", #"{"id": "queue:p9:carol:0:にんじん", "name": "にんじん", "keyword": "にんじん", "action": "accept"}"#)
        XCTAssertEqual(squat.status.code, 400, squat.bodyText)
        XCTAssertEqual(errorCode(squat), "invalid_id")
        XCTAssertTrue(squat.bodyText.contains("'id' may not start with 'queue:'"), squat.bodyText)
        let batch = post(api, "/v1/feedback", #"{"items": [{"name": "n", "keyword": "k", "action": "accept"}, {"id": "queue:x", "name": "n", "keyword": "k", "action": "accept"}]}"#)
        XCTAssertEqual(batch.status.code, 400, batch.bodyText)
        XCTAssertTrue(batch.bodyText.contains("'items[1].id' may not start with 'queue:'"), batch.bodyText)
        XCTAssertEqual(try store.feedback(after: 0, limit: 10).count, 0)

        for (id, name) in [("p9", "にんじん"), ("x:y", "にんじん 2"), ("x", "にんじん 3")] {
            _ = post(api, "/v1/queue/items", #"{"items": [{"id": "\#(id)", "name": "\#(name)"}]}"#)
            clock.advance(1)
        }
        let carol = try lease(api, "carol", n: 1)
        XCTAssertEqual(carol.items, ["p9"])
        let labelled = post(api, "/v1/queue/decisions", #"{"lease": "\#(carol.id)", "annotator": "carol", "id": "p9", "keywords": ["にんじん"]}"#)
        XCTAssertEqual(labelled.status.code, 200, labelled.bodyText)
        let z = try lease(api, "z", n: 1)
        XCTAssertEqual(z.items, ["x:y"])
        XCTAssertEqual(post(api, "/v1/queue/decisions", #"{"lease": "\#(z.id)", "annotator": "z", "id": "x:y", "keywords": ["にんじん"]}"#).status.code, 200)
        let yz = try lease(api, "y:z", n: 1)
        XCTAssertEqual(yz.items, ["x"])
        let second = post(api, "/v1/queue/decisions", #"{"lease": "\#(yz.id)", "annotator": "y:z", "id": "x", "keywords": ["にんじん"]}"#)
        XCTAssertEqual(second.status.code, 200, second.bodyText)
        XCTAssertEqual(Set(try store.feedback(after: 0, limit: 10).compactMap(\.item.clientID)).count, 3)
    }

    /// An imported record that holds a label's id with another decision makes the label 409 id_conflict, not 500,
    /// and nothing of the bulk decision is stored.
    func testAnImportedIDMakesALabel409AllOrNone() throws {
        let api = self.api()
        _ = post(api, "/v1/queue/items", #"{"items": [{"id": "a", "name": "にんじん"}, {"id": "b", "name": "にんじん 2"}]}"#)
        let held = try lease(api, "carol")
        XCTAssertEqual(held.items, ["a", "b"])
        let id = FeedbackRules.queueClientID(item: "b", annotator: "carol", attempt: 0, keyword: "にんじん")
        _ = try store.importFeedback([FeedbackRecord(id: 77, receivedAt: "2026-01-31T12:00:00.000Z",
                                                     item: FeedbackItem(name: "other", keyword: "にんじん", action: .accept, clientID: id))])
        let refused = post(api, "/v1/queue/decisions", #"{"lease": "\#(held.id)", "annotator": "carol", "ids": ["a", "b"], "keywords": ["にんじん"]}"#)
        XCTAssertEqual(refused.status.code, 409, refused.bodyText)
        XCTAssertEqual(errorCode(refused), "id_conflict")
        XCTAssertEqual(try store.feedback(after: 0, limit: 10).map(\.id), [77])
        let stats = jsonObject(api.respond(to: makeRequest(.get, "/v1/queue/stats")))
        XCTAssertEqual(stats["items"] as? [String: Int], ["queued": 0, "leased": 2, "labelled": 0, "flagged": 0])
    }

    /// Names and ids follow the keyword character rules: folded and trimmed, so " bob" and ｂｏｂ are bob (a skip's
    /// cool-down holds for all three), and refused with an invisible or separator character, or nothing visible.
    func testAnnotatorNamesAndIDsFollowTheKeywordRules() throws {
        let api = self.api()
        for (json, reason) in [(#""b\u200bob""#, "U+200B"), (#""\u202ebob""#, "U+202E"), (#""bo\u2028b""#, "U+2028"),
                               (#""   ""#, "is empty"), (#""\u2800""#, "U+2800")] {
            let lease = post(api, "/v1/queue/lease", #"{"annotator": \#(json)}"#)
            XCTAssertEqual(lease.status.code, 400, json)
            XCTAssertEqual(errorCode(lease), "invalid_annotator", json)
            XCTAssertTrue(lease.bodyText.contains(reason), "\(json): \(lease.bodyText)")
            let item = post(api, "/v1/queue/items", #"{"items": [{"id": \#(json), "name": "にんじん"}]}"#)
            XCTAssertEqual(errorCode(item), "invalid_id", json)
        }
        XCTAssertEqual(post(api, "/v1/queue/items", #"{"items": [{"id": "ｓｋｕ 1", "name": "にんじん"}, {"id": " sku 1 ", "name": "にんじん"}]}"#).bodyText,
                       #"{"queued":1,"auto_accepted":0,"from_memory":0,"duplicates":1}"#)
        let bob = try lease(api, " bob")
        XCTAssertEqual(bob.items, ["sku 1"], "spaces inside an id stay, the ones around it go")
        XCTAssertEqual(post(api, "/v1/queue/decisions", #"{"lease": "\#(bob.id)", "annotator": "ｂｏｂ", "id": "sku 1", "action": "skip"}"#).status.code, 200)
        XCTAssertEqual(try lease(api, "\u{3000}ｂｏｂ").items, [], "the skip's cool-down holds for every spelling of the name")
        XCTAssertEqual(try lease(api, "alice").items, ["sku 1"])
    }

    /// With annotators configured, each token acts only as its annotator: a body naming another is 403, no token is
    /// 401, undo reverts only your own decisions, and the admin token keeps every right.
    func testAnAnnotatorTokenActsAsThatAnnotatorOnly() throws {
        var annotators = AnnotatorTokens()
        annotators.add("alice", token: "alice-secret")
        annotators.add("bob", token: "bob-secret")
        let api = self.api(token: "admin-secret", annotators: annotators)
        XCTAssertEqual(post(api, "/v1/queue/items", #"{"items": [{"id": "a", "name": "にんじん"}, {"id": "b", "name": "にんじん 2"}]}"#,
                            token: "alice-secret").status.code, 200)
        let anonymous = post(api, "/v1/queue/lease", #"{"annotator": "alice"}"#)
        XCTAssertEqual(anonymous.status.code, 401, anonymous.bodyText)
        XCTAssertEqual(post(api, "/v1/queue/lease", #"{"annotator": "alice"}"#, token: "guess").status.code, 401)
        let impostor = post(api, "/v1/queue/lease", #"{"annotator": "alice"}"#, token: "bob-secret")
        XCTAssertEqual(impostor.status.code, 403, impostor.bodyText)
        XCTAssertEqual(errorCode(impostor), "wrong_annotator")
        let alice = try lease(api, "ａｌｉｃｅ", n: 1, token: "alice-secret")
        XCTAssertEqual(alice.items, ["a"])
        let label = #"{"lease": "\#(alice.id)", "annotator": "alice", "id": "a", "keywords": ["にんじん"]}"#
        XCTAssertEqual(post(api, "/v1/queue/decisions", label, token: "bob-secret").status.code, 403)
        XCTAssertEqual(post(api, "/v1/queue/decisions", label, token: "alice-secret").status.code, 200)
        // Bob cannot undo alice's decision or learn her lease; his own undo has nothing to revert.
        let stolen = post(api, "/v1/queue/undo", #"{"annotator": "alice"}"#, token: "bob-secret")
        XCTAssertEqual(stolen.status.code, 403, stolen.bodyText)
        XCTAssertFalse(stolen.bodyText.contains(alice.id))
        XCTAssertEqual(errorCode(post(api, "/v1/queue/undo", #"{"annotator": "bob"}"#, token: "bob-secret")), "nothing_to_undo")
        // The admin token acts for anyone; an annotator's token is no good for the keyword list.
        let undone = post(api, "/v1/queue/undo", #"{"annotator": "alice"}"#, token: "admin-secret")
        XCTAssertEqual(undone.status.code, 200, undone.bodyText)
        XCTAssertEqual(jsonObject(undone)["lease"] as? String, alice.id)
        XCTAssertEqual(post(api, "/v1/keywords", #"{"add": ["x"]}"#, token: "alice-secret").status.code, 401)
        XCTAssertEqual(api.respond(to: makeRequest(.get, "/v1/queue/stats", headers: [("Authorization", "Bearer bob-secret")])).status.code, 200)
    }

    /// One annotator holds at most the lease cap over all their leases; earlier leases are kept.
    func testTheLeaseCapBoundsOneAnnotator() throws {
        let api = self.api(policy: QueuePolicy(overlapShare: 0, auditShare: 0, leaseCap: 5))
        let items = (0..<12).map { #"{"id": "i\#($0)", "name": "にんじん \#($0)"}"# }.joined(separator: ", ")
        _ = post(api, "/v1/queue/items", #"{"items": [\#(items)]}"#)
        let first = try lease(api, "mallory", n: 3)
        XCTAssertEqual(first.items.count, 3)
        XCTAssertEqual(try lease(api, "mallory", n: 10).items.count, 2, "only what fits under the cap")
        XCTAssertEqual(try lease(api, "mallory", n: 10).items.count, 0)
        XCTAssertEqual(try lease(api, "ｍａｌｌｏｒｙ", n: 10).items.count, 0, "another spelling is the same annotator")
        XCTAssertEqual(try lease(api, "ann", n: 100).items.count, 5, "others get their own share")
        let decided = post(api, "/v1/queue/decisions", #"{"lease": "\#(first.id)", "annotator": "mallory", "id": "\#(first.items[0])", "keywords": ["にんじん"]}"#)
        XCTAssertEqual(decided.status.code, 200, "the earlier lease is kept: \(decided.bodyText)")
        XCTAssertEqual(try lease(api, "mallory", n: 10).items.count, 1)
    }

    /// The annotators file: `name<TAB>sha256 hex`, names by the queue's key rules, every broken line named.
    func testTheAnnotatorsFileIsParsedStrictly() throws {
        let digest = String(repeating: "ab", count: 32)
        let tokens = try AnnotatorTokens.parse("# team\n\nａｌｉｃｅ\t\(digest.uppercased())\n", path: "team.tsv")
        XCTAssertEqual(tokens.names, [digest: "alice"])
        for (text, reason) in [("alice \(digest)", "team.tsv:1: expected"), ("alice\t\(digest.dropLast())", "team.tsv:1: the digest"),
                               ("ok\t\(digest)\nb\u{200B}\t\(String(repeating: "cd", count: 32))", "team.tsv:2: 'name' contains"),
                               ("a\t\(digest)\nb\t\(digest)", "team.tsv:2: this digest"),
                               ("a\t\(digest)\nａ\t\(String(repeating: "cd", count: 32))", "team.tsv:2: annotator 'a' is listed twice")] {
            XCTAssertThrowsError(try AnnotatorTokens.parse(text, path: "team.tsv")) { error in
                XCTAssertTrue("\(error)".hasPrefix(reason), "\(error)")
            }
        }
    }
}
