import FileStore
import Foundation
@testable import HTTPCore
@testable import KeywordHTTP
@testable import QueueAPI
import SuggestionRuntime
import StoreInterface
import TeamQueue
import XCTest

/// The evidence rule through the routes: people's labels become evidence, the rule refreshed from the store lets
/// the model label a keyword whose labels held and stops one whose labels did not; `GET /v1/queue/keywords` and
/// /metrics show it.
final class QueueKeywordsAPITests: XCTestCase {
    private var directory = ""
    private var store: FileKeywordStore!
    private let clock = SteppedClock()

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "queue-keywords-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A small rule (no prior, 6 decisions are enough) so a test reaches every state with a few labels.
    private func api() -> (KeywordAPI, AnnotationQueue) {
        let api = makeAPI(engine: AutoAcceptEngine(), store: store)
        let queue = FileQueueStore(overlayPath: store.overlayPath, feedbackStore: store,
                                   policy: QueuePolicy(overlapShare: 0, auditShare: 0))
        let clock = self.clock
        let annotation = AnnotationQueue(store: queue, clock: { clock.now() }, autoAccept: AutoAcceptConfiguration(
            mode: .evidence, settings: AutoAcceptSettings(target: 0.8, priorWeight: 0, minimumEvidence: 6),
            categories: ["にんじん": "野菜", "たまねぎ": "野菜"]))
        api.state.setQueue(annotation)
        return (api, annotation)
    }

    private func post(_ api: KeywordAPI, _ path: String, _ body: String) -> HTTPResponse {
        api.respond(to: makeRequest(.post, path, body: body))
    }

    private func items(_ prefix: String, _ names: [String]) -> String {
        let items = names.enumerated().map { #"{"id": "\#(prefix)-\#($0.offset)", "name": "\#($0.element)"}"# }
        return #"{"items": ["# + items.joined(separator: ", ") + "]}"
    }

    func testLabelsTeachTheRuleAndTheKeywordsListShowsIt() throws {
        let (api, queue) = self.api()
        let names = (0..<6).map { "sure にんじん \($0)" } + (0..<3).map { "sure たまねぎ \($0)" }
        XCTAssertEqual(post(api, "/v1/queue/items", items("a", names)).bodyText,
                       #"{"queued":9,"auto_accepted":0,"from_memory":0,"duplicates":0}"#, "no evidence yet: everything is queued")
        let lease = jsonObject(post(api, "/v1/queue/lease", #"{"annotator": "aiko", "n": 20}"#))
        let leaseID = lease["lease"] as? String ?? ""
        for item in lease["items"] as? [[String: Any]] ?? [] {
            let name = item["name"] as? String ?? ""
            let keyword = name.contains("にんじん") ? "にんじん" : "キャベツ"
            let answer = post(api, "/v1/queue/decisions",
                              #"{"lease": "\#(leaseID)", "annotator": "aiko", "id": "\#(item["id"] as? String ?? "")", "keywords": ["\#(keyword)"]}"#)
            XCTAssertEqual(answer.status.code, 200, answer.bodyText)
        }
        let engine = try XCTUnwrap(api.state.engine)
        try queue.refreshTrust(engine: engine, feedbackStore: store)
        XCTAssertEqual(post(api, "/v1/queue/items", items("b", ["sure auto にんじん 9", "sure auto たまねぎ 9"])).bodyText,
                       #"{"queued":1,"auto_accepted":1,"from_memory":0,"duplicates":0}"#)

        XCTAssertEqual(post(api, "/v1/queue/items", items("c", ["sure にんじん 10"])).bodyText,
                       #"{"queued":1,"auto_accepted":0,"from_memory":0,"duplicates":0}"#,
                       "the evidence never accepts below the calibration threshold")

        let page = api.respond(to: makeRequest(.get, "/v1/queue/keywords"))
        XCTAssertEqual(page.status.code, 200, page.bodyText)
        let body = jsonObject(page)
        XCTAssertEqual(body["count"] as? Int, 2)
        let rows = body["keywords"] as? [[String: Any]] ?? []
        XCTAssertEqual(rows.map { $0["keyword"] as? String }, ["たまねぎ", "にんじん"], "most queued first")
        XCTAssertEqual(Set(rows.first?.keys.map { $0 } ?? []),
                       ["keyword", "category", "queued", "auto_accepted", "audited", "audit_precision", "labelled",
                        "top1_precision", "auto_accept"])
        XCTAssertEqual(rows.first?["queued"] as? Int, 1)
        XCTAssertEqual(rows.first?["labelled"] as? Int, 3)
        XCTAssertEqual(rows.first?["top1_precision"] as? Double, 0)
        XCTAssertEqual(rows.first?["auto_accept"] as? String, "off")
        XCTAssertEqual(rows.last?["auto_accepted"] as? Int, 1)
        XCTAssertEqual(rows.last?["labelled"] as? Int, 6)
        XCTAssertEqual(rows.last?["top1_precision"] as? Double, 1)
        XCTAssertEqual(rows.last?["category"] as? String, "野菜")
        XCTAssertEqual(rows.last?["auto_accept"] as? String, "on")
        XCTAssertTrue(rows.last?["audit_precision"] is NSNull)

        let second = jsonObject(api.respond(to: makeRequest(.get, "/v1/queue/keywords?limit=1&offset=1")))
        XCTAssertEqual((second["keywords"] as? [[String: Any]])?.map { $0["keyword"] as? String }, ["にんじん"])
        XCTAssertEqual(second["count"] as? Int, 2)
        for bad in ["limit=0", "limit=1001", "offset=-1", "limit=x", "order=queued"] {
            XCTAssertEqual(api.respond(to: makeRequest(.get, "/v1/queue/keywords?" + bad)).status.code, 400, bad)
        }
        let metrics = api.respond(to: makeRequest(.get, "/metrics")).bodyText
        XCTAssertTrue(metrics.contains(#"kwsuggest_queue_keywords{auto_accept="on"} 1"#), metrics)
        XCTAssertTrue(metrics.contains(#"kwsuggest_queue_keywords{auto_accept="off"} 1"#), metrics)
        XCTAssertTrue(metrics.contains(#"kwsuggest_queue_keywords{auto_accept="learning"} 0"#), metrics)
    }

    /// Decisions posted to the feedback route that name what was shown are evidence as queue labels are: six
    /// accepts of the model's first suggestion turn にんじん on, three corrections of たまねぎ turn it off. Records
    /// of another version, without `shown`, or accepting another keyword count for nothing.
    func testFeedbackThatNamesWhatWasShownIsEvidence() throws {
        let (api, queue) = self.api()
        let engine = try XCTUnwrap(api.state.engine)
        func shown(_ name: String) -> [String] { engine.suggest(name, k: 3, explain: false).suggestions.map(\.keyword) }
        var decisions = (0..<6).map { FeedbackItem(name: "sure にんじん \($0)", keyword: "にんじん", action: .accept,
                                               shown: shown("sure にんじん \($0)"), model: engine.modelVersion) }
        decisions += (0..<3).map { FeedbackItem(name: "sure たまねぎ \($0)", keyword: "キャベツ", action: .correct,
                                            shown: shown("sure たまねぎ \($0)"), model: engine.modelVersion) }
        decisions += (0..<6).map { FeedbackItem(name: "sure たまねぎ x\($0)", keyword: "たまねぎ", action: .accept,
                                            shown: shown("sure たまねぎ x\($0)"), model: "another-version") }
        decisions += (0..<6).map { FeedbackItem(name: "sure たまねぎ y\($0)", keyword: "たまねぎ", action: .accept, model: engine.modelVersion) }
        XCTAssertEqual(decisions.first?.shown.first, "にんじん")
        _ = try store.appendFeedback(decisions)

        try queue.refreshTrust(engine: engine, feedbackStore: nil)
        XCTAssertEqual(post(api, "/v1/queue/items", items("a", ["sure auto にんじん 9", "sure auto たまねぎ 9"])).bodyText,
                       #"{"queued":2,"auto_accepted":0,"from_memory":0,"duplicates":0}"#, "without the feedback: no evidence")
        try queue.refreshTrust(engine: engine, feedbackStore: store)
        XCTAssertEqual(post(api, "/v1/queue/items", items("b", ["sure auto にんじん 9", "sure auto たまねぎ 9"])).bodyText,
                       #"{"queued":1,"auto_accepted":1,"from_memory":0,"duplicates":0}"#)
        let rows = jsonObject(api.respond(to: makeRequest(.get, "/v1/queue/keywords")))["keywords"] as? [[String: Any]] ?? []
        XCTAssertEqual(rows.first { $0["keyword"] as? String == "たまねぎ" }?["auto_accept"] as? String, "off")
        XCTAssertEqual(rows.first { $0["keyword"] as? String == "にんじん" }?["auto_accept"] as? String, "on")
    }

    /// One annotator's repeated decisions on one product count once; queue labels' records, accepts of another
    /// keyword and records of another version count for nothing.
    func testFeedbackEvidenceCountsEachAnnotatorOncePerProduct() throws {
        let engine = AutoAcceptEngine()
        let name = "sure にんじん 1"
        let shown = engine.suggest(name, k: 3, explain: false).suggestions.map(\.keyword)
        let first = try XCTUnwrap(shown.first)
        var decisions = (0..<10).map { _ in
            FeedbackItem(name: name, keyword: first, action: .accept, shown: shown, model: engine.modelVersion, annotator: "aiko")
        }
        decisions.append(FeedbackItem(name: name, keyword: first, action: .reject, shown: shown, model: engine.modelVersion,
                                      annotator: "aiko"))
        decisions.append(FeedbackItem(name: name, keyword: first, action: .accept, shown: shown, model: engine.modelVersion,
                                      annotator: "ben"))
        decisions.append(FeedbackItem(name: "sure にんじん 2", keyword: shown.last ?? "", action: .accept, shown: shown,
                                      model: engine.modelVersion, annotator: "aiko"))
        decisions.append(FeedbackItem(name: "sure にんじん 3", keyword: first, action: .accept, shown: shown,
                                      model: "another-version", annotator: "aiko"))
        _ = try store.appendFeedback(decisions)
        _ = try store.importFeedback([FeedbackRecord(id: 1_000, receivedAt: "2026-01-01T00:00:00.000Z", item: FeedbackItem(
            name: "sure にんじん 4", keyword: first, action: .accept, shown: shown, model: engine.modelVersion, annotator: "aiko",
            clientID: FeedbackRules.queueClientID(item: "p1", annotator: "aiko", attempt: 0, keyword: first)))])
        let evidence = FeedbackEvidence()
        try evidence.catchUp(store: store, engine: engine, category: { _ in nil })
        let read = evidence.evidence(model: engine.modelVersion)
        XCTAssertEqual(read.map(\.correct), [false, true], "aiko's latest (a reject) and ben's accept")
        XCTAssertEqual(read.map(\.keyword), [first, first])
        XCTAssertEqual(evidence.evidence(model: "another-version"), [])
    }
}

extension QueueKeywordsAPITests {
    /// Whether the first suggestion was the head of the name goes from the engine's answer to the item and to the
    /// evidence of its label, in the store; so it does for a feedback record. The rule learns nothing from them.
    func testLabelsOnItemsWhoseFirstKeywordIsNotTheHeadTeachNothing() throws {
        let queue = FileQueueStore(overlayPath: store.overlayPath, feedbackStore: store,
                                   policy: QueuePolicy(overlapShare: 0, auditShare: 0))
        let clock = self.clock
        let annotation = AnnotationQueue(store: queue, clock: { clock.now() }, autoAccept: AutoAcceptConfiguration(
            mode: .evidence, settings: AutoAcceptSettings(target: 0.8, priorWeight: 0, minimumEvidence: 6)))
        let engine = AutoAcceptEngine()
        let names = (0..<6).map { "sure flavour にんじん \($0)" } + ["sure にんじん 9"]
        _ = try annotation.enqueue(names.enumerated().map { QueueProduct(id: "p\($0.offset)", name: $0.element) }, engine: engine)
        let lease = try queue.lease(LeaseRequest(annotator: "aiko", count: 10, order: .oldest), at: clock.now())
        XCTAssertEqual(lease.items.count, 7)
        for item in lease.items {
            _ = try queue.decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: [item.id], kind: .label,
                                                 keywords: ["キャベツ"]), at: clock.now())
        }
        let evidence = try queue.evidence(model: engine.modelVersion)
        XCTAssertEqual(evidence.map(\.firstIsHead), Array(repeating: false, count: 6) + [true])
        XCTAssertEqual(AutoAcceptRule(model: engine.modelVersion, evidence: evidence, settings: AutoAcceptSettings()).evidenceCount, 1)
        let shown = engine.suggest("sure flavour にんじん 7", k: 3, explain: false).suggestions.map(\.keyword)
        let record = FeedbackRecord(id: 1, receivedAt: "2026-01-01T00:00:00.000Z", item: FeedbackItem(
            name: "sure flavour にんじん 7", keyword: shown.first ?? "", action: .accept, shown: shown, model: engine.modelVersion))
        XCTAssertEqual(FeedbackEvidence.evidence(record, engine: engine, category: { _ in nil })?.firstIsHead, false)
    }

    /// A refresh whose evidence is unchanged keeps the rule; new evidence, or another model, builds a new one.
    func testARefreshRebuildsTheRuleOnlyWhenTheEvidenceChanged() throws {
        let queue = FileQueueStore(overlayPath: store.overlayPath, feedbackStore: store,
                                   policy: QueuePolicy(overlapShare: 0, auditShare: 0))
        let trust = AutoAcceptTrust(configuration: AutoAcceptConfiguration(mode: .evidence))
        let label = QueueEvidence(model: "m1", keyword: "にんじん", confidence: 0.99, category: "野菜", correct: true,
                                  audit: false)
        try trust.refresh(store: queue, model: "m1")
        try trust.refresh(store: queue, model: "m1")
        XCTAssertEqual(trust.rulesBuilt, 1)
        try trust.refresh(store: queue, model: "m1", extra: [label])
        try trust.refresh(store: queue, model: "m1", extra: [label])
        XCTAssertEqual(trust.rulesBuilt, 2)
        XCTAssertEqual(trust.rule(for: "m1").evidenceCount, 1)
        try trust.refresh(store: queue, model: "m2", extra: [label])
        XCTAssertEqual(trust.rulesBuilt, 3)
        XCTAssertEqual(trust.rule(for: "m2").evidenceCount, 0)
    }
}
