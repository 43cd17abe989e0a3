import FileStore
import Foundation
import Locking
import ModelStorage
import ModelVersions
import SuggestionRuntime
import StoreInterface
import Training
import XCTest

/// A serve's watcher on a real file registry and real models: swaps on promotion, keeps the served model when
/// a version fails to load, returns to the fallback after the last rollback.
final class ModelWatcherTests: XCTestCase {
    private var fixtures: ModelFixtures!

    override func setUpWithError() throws { fixtures = try ModelFixtures() }
    override func tearDownWithError() throws { fixtures.remove() }

    func testPromotionSwapsAFailedLoadKeepsTheServedModelAndRollbackReturns() throws {
        let overlay = fixtures.root + "/store/keywords.overlay.json"
        try FileManager.default.createDirectory(atPath: fixtures.root + "/store", withIntermediateDirectories: true)
        let store = FileKeywordStore(overlayPath: overlay)
        let registry = try FileModelRegistry(overlayPath: overlay, digest: ModelFixtures.digest, pollInterval: 0.1)
        let admin = try FileModelRegistry(overlayPath: overlay, digest: ModelFixtures.digest)
        let served = Locked<(any SuggestionEngine)?>(nil)
        let events = Locked<[String]>([])
        let happened = DispatchSemaphore(value: 0)
        let watcher = ModelWatcher(registry: registry, store: store, fallback: ModelFixtures.shipped, retryInterval: 3600,
                                   load: { directory, store in
                                       try ModelEngine(components: ModelDirectory.load(path: directory), store: store)
                                   },
                                   install: { engine in served.withLock { $0 = engine } },
                                   log: { event in
                                       events.withLock { $0.append(event.name) }
                                       if event.name != "model_loaded" { happened.signal() }
                                   })
        defer { watcher.shutdown() }
        try watcher.start()
        let fallbackVersion = try XCTUnwrap(served.withLock { $0 }?.modelVersion)
        XCTAssertEqual(watcher.status.source, .fallback)

        _ = try ModelPush.push(directory: try fixtures.model("swap-a"), to: admin, keep: 5, loads: false)
        _ = try ModelPush.push(directory: try fixtures.model("swap-b"), to: admin, keep: 5, loads: false)
        // An in-flight request holds the engine it started with; the swap does not touch it.
        let inFlight = try XCTUnwrap(served.withLock { $0 })
        try admin.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.promote("swap-a", gate: nil) }
        XCTAssertEqual(happened.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(served.withLock { $0 }?.modelVersion, "swap-a")
        XCTAssertEqual(watcher.status.version, "swap-a")
        XCTAssertEqual(watcher.status.source, .registry)
        XCTAssertEqual(inFlight.modelVersion, fallbackVersion)
        XCTAssertEqual(inFlight.suggest("にんじん 3本", k: 1, explain: false).suggestions.first?.keyword, "にんじん")

        // swap-b's files lose one: loading fails, swap-a keeps serving, and the failure is reported.
        try FileManager.default.removeItem(atPath: try admin.directory(of: "swap-b") + "/keywords.txt")
        try admin.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.promote("swap-b", gate: nil) }
        XCTAssertEqual(happened.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(served.withLock { $0 }?.modelVersion, "swap-a")
        XCTAssertEqual(watcher.status.version, "swap-a")
        XCTAssertEqual(watcher.status.failure?.version, "swap-b")
        XCTAssertTrue(watcher.status.failure?.message.contains("keywords.txt") == true, "\(String(describing: watcher.status.failure))")
        XCTAssertEqual(watcher.status.failures, 1)

        // Back to swap-a (served already: nothing to load), then to the fallback.
        _ = try admin.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) -> String in try catalog.rollback() }
        _ = try admin.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) -> String in try catalog.rollback() }
        XCTAssertEqual(happened.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(served.withLock { $0 }?.modelVersion, fallbackVersion)
        XCTAssertEqual(watcher.status.source, .fallback)
        XCTAssertNil(watcher.status.failure)
        XCTAssertEqual(events.withLock { $0 }, ["model_loaded", "model_swapped", "model_load_failed", "model_swapped"])
    }

    /// A live version that does not load at start leaves the serve on its --model, with the failure reported.
    func testALiveVersionThatFailsAtStartServesTheFallback() throws {
        let overlay = fixtures.root + "/store/keywords.overlay.json"
        try FileManager.default.createDirectory(atPath: fixtures.root + "/store", withIntermediateDirectories: true)
        let registry = try FileModelRegistry(overlayPath: overlay, digest: ModelFixtures.digest)
        _ = try ModelPush.push(directory: try fixtures.model("start-broken"), to: registry, keep: 5, loads: false)
        try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.promote("start-broken", gate: nil) }
        try FileManager.default.removeItem(atPath: try registry.directory(of: "start-broken") + "/encoder.bin")
        let served = Locked<(any SuggestionEngine)?>(nil)
        let watcher = ModelWatcher(registry: registry, store: FileKeywordStore(overlayPath: overlay), fallback: ModelFixtures.shipped,
                                   retryInterval: 3600,
                                   load: { directory, store in try ModelEngine(components: ModelDirectory.load(path: directory), store: store) },
                                   install: { engine in served.withLock { $0 = engine } }, log: { _ in })
        defer { watcher.shutdown() }
        try watcher.start()
        XCTAssertEqual(watcher.status.source, .fallback)
        XCTAssertNotNil(served.withLock { $0 })
        XCTAssertEqual(watcher.status.failure?.version, "start-broken")
        XCTAssertEqual(watcher.status.failures, 1)
    }
}
