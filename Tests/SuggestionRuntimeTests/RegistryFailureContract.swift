import Foundation
import Locking
@testable import ModelStorage
import ModelVersions
import SuggestionRuntime
import StoreInterface
import StrictJSON
@testable import Training
import XCTest

/// A serve's view of a registry that fails, on every registry: an unreadable catalog and a shadow that does not
/// load are reported (`/readyz` fields and counters) at start and while running, within 5 s.
extension RegistryContract {
    /// `replaceCatalog(text)` stores `text` as the catalog, as a damaged file or row would hold it, so that watchers
    /// notice (the file changes; the row's revision moves), and returns the text it replaced.
    func failuresAreReported(replaceCatalog: (String) throws -> String, store: any KeywordStore) throws {
        let admin = try open()
        defer { admin.close() }
        _ = try ModelPush.push(directory: try fixtures.model("f-live"), to: admin, keep: 5, loads: false)
        _ = try ModelPush.push(directory: try fixtures.model("f-shadow"), to: admin, keep: 5, loads: false)
        try admin.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.promote("f-live", gate: nil) }
        let good = try replaceCatalog("{\"damaged")

        // At start: the catalog cannot be read, so the fallback serves, and both the field and the counter say why.
        let watcher = ModelWatcher(registry: try open(), store: store, fallback: ModelFixtures.shipped, retryInterval: 3600,
                                   load: { directory, store in
                                       let manifest = try ModelManifest.load(path: directory + "/" + ModelDirectory.manifestName)
                                       if manifest.modelVersion == "f-shadow" { throw KeywordStoreError.failed("f-shadow does not load here") }
                                       return try ModelEngine(components: ModelDirectory.load(path: directory), store: store)
                                   },
                                   install: { _ in }, log: { _ in })
        defer { watcher.shutdown() }
        try watcher.start()
        XCTAssertEqual(watcher.status.source, .fallback)
        XCTAssertNotNil(watcher.status.registryFailure)
        XCTAssertGreaterThanOrEqual(watcher.status.registryFailures, 1)
        XCTAssertNotNil(readyFields(watcher)["registry"], "/readyz names the registry failure")

        // Repaired: the field goes within 5 s, and the live version is loaded and served (a debug build loads a
        // model slowly, hence the longer wait); damaged while running: reported within 5 s.
        _ = try replaceCatalog(good)
        XCTAssertTrue(waitUntil { watcher.status.registryFailure == nil })
        XCTAssertNil(readyFields(watcher)["registry"])
        XCTAssertTrue(waitUntil(seconds: 120) { watcher.status.source == .registry })
        let failures = watcher.status.registryFailures
        _ = try replaceCatalog("[]")
        XCTAssertTrue(waitUntil { watcher.status.registryFailure != nil }, "a registry damaged while running is reported within 5 s")
        XCTAssertGreaterThan(watcher.status.registryFailures, failures)
        XCTAssertEqual(watcher.status.version, "f-live", "the served model stays")

        // A shadow that fails to load is named in /readyz and counted.
        _ = try replaceCatalog(good)
        try admin.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.setShadow("f-shadow", fraction: 0.5) }
        XCTAssertTrue(waitUntil { watcher.status.shadowFailure != nil }, "a shadow that fails is reported within 5 s")
        XCTAssertEqual(watcher.status.shadowFailure?.version, "f-shadow")
        XCTAssertEqual(watcher.status.shadowFailures, 1)
        let shadow = readyFields(watcher)["shadow"] as? [String: Any]
        XCTAssertEqual((shadow?["error"] as? [String: Any])?["version"] as? String, "f-shadow")
        try admin.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.setShadow(nil, fraction: 0) }
        XCTAssertTrue(waitUntil { watcher.status.shadowFailure == nil }, "ending the shadow clears its failure")
    }

    /// The `/readyz` fields the watcher writes, parsed.
    private func readyFields(_ watcher: ModelWatcher) -> [String: Any] {
        var json = JSONWriter()
        json.object { json in watcher.writeReadyFields(into: &json) }
        return (try? JSONSerialization.jsonObject(with: Data(json.bytes))) as? [String: Any] ?? [:]
    }

    /// Whether `condition` holds within `seconds` (by default 5 s, the bound a serve promises), checked every 50 ms.
    private func waitUntil(seconds: Double = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }
}
