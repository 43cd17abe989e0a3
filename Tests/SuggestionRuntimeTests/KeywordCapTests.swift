@testable import FileStore
import Foundation
import KeywordModel
import ModelStorage
@testable import PostgresStore
@testable import SuggestionRuntime
@testable import StoreInterface
import XCTest

/// The list's size rule (`KeywordRules.checkListSize`) holds for every way keywords get in: changes from any
/// number of replicas (checked under the store's lock, on the freshest overlay), imports, and overlays edited by
/// hand. The limit is made small here; the rule is the same at 50,000.
final class KeywordCapTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "keyword-cap-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private var overlayPath: String { directory + "/keywords.overlay.json" }

    /// A model with keywords w1, w2, w3 (see `ModelEngineTests.makeComponents`).
    private func model() -> LoadedModel {
        let config = ModelConfig(inputDimension: 16, hiddenDimension: 8)
        var table: [String: Int32] = [:]
        for i in 0..<30 { table["w\(i)"] = Int32(i) }
        return LoadedModel(directory: directory, analyzer: TableAnalyzer(rows: table),
                           vectors: InputVectors.random(rows: 30, dimension: 16, seed: 4),
                           weights: ModelWeights(config: config, seed: 3), keywords: ["w1", "w2", "w3"], varieties: [],
                           manifest: ModelManifest(modelVersion: "cap-1"))
    }

    /// Two replicas, each with its own store connection and its own view of the list, at a limit of 4: the
    /// second adds a keyword while it still serves the list from before the first one's change. Its own list
    /// would then hold 4, but the list it writes holds 5, so it is refused, and nothing is written.
    private func twoReplicasMeetTheCap(_ makeStore: () throws -> any KeywordStore) throws {
        let first = try ModelEngine(components: model(), store: makeStore(), maxKeywords: 4)
        let second = try ModelEngine(components: model(), store: makeStore(), maxKeywords: 4)
        XCTAssertEqual(try first.updateKeywords(add: ["w4"], remove: []).keywords.count, 4)
        XCTAssertEqual(second.keywordList().keywords.count, 3, "the second replica has not reloaded")
        XCTAssertThrowsError(try second.updateKeywords(add: ["w5"], remove: [])) { error in
            XCTAssertEqual(error as? KeywordStoreError, .listFull(count: 5, limit: 4))
            XCTAssertEqual("\(error)", "the list would hold 5 keywords; at most 4 are served (remove some first)")
        }
        XCTAssertEqual(try second.reloadKeywords().keywords.count, 4)
        // A list at its limit may still swap one keyword for another, or shrink.
        XCTAssertEqual(try second.updateKeywords(add: ["w5"], remove: ["w1"]).keywords.count, 4)
        XCTAssertEqual(try first.updateKeywords(add: [], remove: ["w2"]).keywords.count, 3)
        XCTAssertEqual(try first.reloadKeywords().keywords, ["w3", "w4", "w5"])
    }

    func testTwoReplicasOnOneFileStoreMeetTheCap() throws {
        let path = overlayPath
        try twoReplicasMeetTheCap { FileKeywordStore(overlayPath: path) }
    }

    func testTwoReplicasOnPostgresMeetTheCap() throws {
        guard let url = ProcessInfo.processInfo.environment["KWSUGGEST_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw XCTSkip(PostgresKeywordStoreTests.howToRun)
        }
        try PostgresKeywordStoreTests.dropSchema(url)
        try twoReplicasMeetTheCap { try PostgresKeywordStore(url: url) }
    }

    /// An overlay edited by hand to hold more keywords than the limit is not served: loading fails with an error
    /// that names the file, and a running engine keeps its list when it reloads.
    func testHandEditedOverlayPastTheCapIsNotServed() throws {
        let store = FileKeywordStore(overlayPath: overlayPath)
        let engine = try ModelEngine(components: model(), store: store, maxKeywords: 4)
        try Data(#"{"added": ["w4", "w5"], "removed": []}"#.utf8).write(to: URL(fileURLWithPath: overlayPath))
        XCTAssertThrowsError(try engine.reloadKeywords()) { error in
            XCTAssertEqual("\(error)", "file:\(overlayPath): the keyword changes there make a list of 5 keywords; at most 4 are served")
        }
        XCTAssertEqual(engine.keywordList().keywords, ["w1", "w2", "w3"])
        XCTAssertThrowsError(try ModelEngine(components: model(), store: store, maxKeywords: 4)) { error in
            XCTAssertTrue("\(error)".hasPrefix("file:\(overlayPath): "), "\(error)")
        }
        // Removing one makes it servable again.
        try Data(#"{"added": ["w4", "w5"], "removed": ["w1"]}"#.utf8).write(to: URL(fileURLWithPath: overlayPath))
        XCTAssertEqual(try engine.reloadKeywords().keywords, ["w2", "w3", "w4", "w5"])
    }

    /// An import whose keyword changes would make the list too long writes nothing, in either store.
    private func importPastTheCapIsRefused(_ store: any KeywordStore) throws {
        try store.replaceOverlay(KeywordOverlay(added: ["w9"]))
        let archive = Data(#"{"type":"keywords","added":["w4","w5"],"removed":[]}"#.utf8 + [0x0A])
        XCTAssertThrowsError(try StoreArchive.importArchive(archive, source: "a.jsonl", into: store, base: ["w1", "w2", "w3"],
                                                            maxKeywords: 4)) { error in
            XCTAssertEqual("\(error)", "a.jsonl: the list would hold 5 keywords; at most 4 are served (remove some first)")
        }
        XCTAssertEqual(try store.loadOverlay(), KeywordOverlay(added: ["w9"]))
        let summary = try StoreArchive.importArchive(archive, source: "a.jsonl", into: store, base: ["w1", "w2"], maxKeywords: 4)
        XCTAssertEqual(summary.added, 2)
        XCTAssertEqual(try store.loadOverlay(), KeywordOverlay(added: ["w4", "w5"]))
    }

    func testImportPastTheCapIsRefusedByTheFileStore() throws {
        try importPastTheCapIsRefused(FileKeywordStore(overlayPath: overlayPath))
    }

    func testImportPastTheCapIsRefusedByPostgres() throws {
        guard let url = ProcessInfo.processInfo.environment["KWSUGGEST_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw XCTSkip(PostgresKeywordStoreTests.howToRun)
        }
        try PostgresKeywordStoreTests.dropSchema(url)
        try importPastTheCapIsRefused(PostgresKeywordStore(url: url))
    }

    func testTheRule() throws {
        XCTAssertEqual(KeywordRules.maxKeywords, 50_000)
        XCTAssertNoThrow(try KeywordRules.checkListSize(50_000, previous: nil))
        XCTAssertThrowsError(try KeywordRules.checkListSize(50_001, previous: nil))
        XCTAssertThrowsError(try KeywordRules.checkListSize(50_001, previous: 50_000))
        XCTAssertNoThrow(try KeywordRules.checkListSize(50_001, previous: 50_002), "a list past the limit may shrink")
        XCTAssertNoThrow(try KeywordRules.checkListSize(50_001, previous: 50_001), "or swap keywords")
    }
}
