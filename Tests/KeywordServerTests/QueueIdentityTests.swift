import FileStore
import Foundation
@testable import HTTPCore
@testable import KeywordServer
import QueueAPI
import StoreInterface
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

    private func api(policy: QueuePolicy = QueuePolicy(overlapShare: 0, auditShare: 0)) -> KeywordAPI {
        let api = makeAPI(engine: AutoAcceptEngine(), store: store)
        let queue = FileQueueStore(overlayPath: store.overlayPath, feedbackStore: store, policy: policy)
        let clock = self.clock
        api.state.setQueue(AnnotationQueue(store: queue, clock: { clock.now() }))
        return api
    }

    private func post(_ api: KeywordAPI, _ path: String, _ body: String) -> HTTPResponse {
        api.respond(to: makeRequest(.post, path, body: body))
    }

    private func lease(_ api: KeywordAPI, _ annotator: String, n: Int = 10) throws -> (id: String, items: [String]) {
        let response = post(api, "/v1/queue/lease", #"{"annotator": "\#(annotator)", "n": \#(n), "order": "oldest"}"#)
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
}
