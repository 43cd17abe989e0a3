import FileStore
import Foundation
import ModelStorage
@testable import PostgresStore
import ModelVersions
import StoreInterface
import Training
import XCTest

/// The file registry (a folder beside the overlay file) against the registry contract.
final class FileModelRegistryTests: XCTestCase {
    private var fixtures: ModelFixtures!
    private var overlay = ""

    override func setUpWithError() throws {
        fixtures = try ModelFixtures()
        overlay = fixtures.root + "/store/keywords.overlay.json"
    }

    override func tearDownWithError() throws { fixtures.remove() }

    private var contract: RegistryContract {
        let overlay = self.overlay
        let blobs = fixtures.root + "/store/keywords.overlay.registry/blobs/"
        return RegistryContract(open: { try FileModelRegistry(overlayPath: overlay, digest: ModelFixtures.digest) }, fixtures: fixtures,
                                damageStoredFile: { sha in try ModelFixtures.flipByte(in: blobs + sha, at: 10) })
    }

    func testLifecycle() throws { try contract.lifecycle() }
    func testKeepSparesLiveAndPredecessor() throws { try contract.keepSparesLiveAndPredecessor() }
    func testDamagedDirectoryIsRefused() throws { try contract.damagedDirectoryIsRefused() }
    func testDamagedStoredFileIsRepaired() throws { try contract.damagedStoredFileIsRepaired() }
    func testWatchersHearPromotions() throws { try contract.watchersHearPromotions() }
    func testFailuresAreReported() throws {
        let catalog = fixtures.root + "/store/keywords.overlay.registry/registry.json"
        try contract.failuresAreReported(replaceCatalog: { text in
            let previous = try String(contentsOfFile: catalog, encoding: .utf8)
            try Data(text.utf8).write(to: URL(fileURLWithPath: catalog))
            return previous
        }, store: FileKeywordStore(overlayPath: overlay))
    }

    /// A version whose files are symbolic links is listed with the size of the files they point at.
    func testSizeCountsWhatSymbolicLinksPointAt() throws {
        let registry = try FileModelRegistry(overlayPath: overlay, digest: ModelFixtures.digest)
        let plain = try fixtures.model("size-plain")
        let linked = try fixtures.model("size-linked")
        let elsewhere = fixtures.root + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: linked) where name != ModelDirectory.manifestName {
            try FileManager.default.moveItem(atPath: linked + "/" + name, toPath: elsewhere + "/" + name)
            try FileManager.default.createSymbolicLink(atPath: linked + "/" + name, withDestinationPath: elsewhere + "/" + name)
        }
        _ = try ModelPush.push(directory: plain, to: registry, keep: 5, loads: false)
        _ = try ModelPush.push(directory: linked, to: registry, keep: 5, loads: false)
        let sizes = Dictionary(uniqueKeysWithValues: try registry.catalog().models.map { ($0.version, $0.size) })
        XCTAssertGreaterThan(sizes["size-plain"] ?? 0, 1_000_000)
        // The two differ only in the manifest's version name.
        XCTAssertLessThan(abs((sizes["size-linked"] ?? 0) - (sizes["size-plain"] ?? 0)), 100, "\(sizes)")
    }

    /// The folder sits beside the overlay; versions share their unchanged files (one blob each).
    func testLayoutBesideTheOverlayWithSharedBlobs() throws {
        let registry = try FileModelRegistry(overlayPath: overlay, digest: ModelFixtures.digest)
        XCTAssertEqual(registry.root, fixtures.root + "/store/keywords.overlay.registry")
        _ = try ModelPush.push(directory: try fixtures.model("s-1"), to: registry, keep: 5, loads: false)
        _ = try ModelPush.push(directory: try fixtures.model("s-2"), to: registry, keep: 5, loads: false)
        let blobs = try FileManager.default.contentsOfDirectory(atPath: registry.root + "/blobs")
        let files = try registry.catalog().models.map { Set($0.files.values) }
        XCTAssertEqual(Set(blobs), files[0].union(files[1]))
        XCTAssertEqual(files[0].intersection(files[1]).count, files[0].count - 1, "only the manifests differ")
    }
}

/// The PostgreSQL registry (catalog and files in the database) against the same contract.
final class PostgresModelRegistryTests: XCTestCase {
    private var fixtures: ModelFixtures!
    private var url = ""

    override func setUpWithError() throws {
        guard let url = ProcessInfo.processInfo.environment["KWSUGGEST_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw XCTSkip(PostgresKeywordStoreTests.howToRun)
        }
        self.url = url
        try PostgresKeywordStoreTests.dropSchema(url)
        fixtures = try ModelFixtures()
    }

    override func tearDownWithError() throws {
        fixtures?.remove()
        // Other tests (and serves) on this database start without a live version.
        if !url.isEmpty { try PostgresKeywordStoreTests.dropSchema(url) }
    }

    private var contract: RegistryContract {
        let url = self.url, cache = fixtures.root + "/cache-\(UUID().uuidString)"
        return RegistryContract(open: { try PostgresModelRegistry(url: url, digest: ModelFixtures.digest, cache: cache) }, fixtures: fixtures,
                                damageStoredFile: { sha in
            let connection = try PostgresConnection(conninfo: url, pq: LibPQ.load())
            try connection.exec("UPDATE kwsuggest_model_blobs SET bytes = set_byte(bytes, 10, get_byte(bytes, 10) # 1) "
                + "WHERE sha256 = $1 AND part = 0", [sha])
        })
    }

    func testLifecycle() throws { try contract.lifecycle() }
    func testKeepSparesLiveAndPredecessor() throws { try contract.keepSparesLiveAndPredecessor() }
    func testDamagedDirectoryIsRefused() throws { try contract.damagedDirectoryIsRefused() }
    func testDamagedStoredFileIsRepaired() throws { try contract.damagedStoredFileIsRepaired() }
    func testWatchersHearPromotions() throws { try contract.watchersHearPromotions() }
    func testFailuresAreReported() throws {
        let connection = try PostgresConnection(conninfo: url, pq: LibPQ.load())
        try contract.failuresAreReported(replaceCatalog: { text in
            let previous = try connection.exec("SELECT catalog FROM kwsuggest_model_registry").first?.first ?? nil
            try connection.exec("UPDATE kwsuggest_model_registry SET catalog = $1, revision = revision + 1", [text])
            return previous ?? ""
        }, store: try PostgresKeywordStore(url: url))
    }

    /// Files live in the database: a replica with an empty cache gets them from there, and unreferenced parts
    /// are deleted with the last version that used them.
    func testFilesComeFromTheDatabase() throws {
        let registry = try PostgresModelRegistry(url: url, digest: ModelFixtures.digest, cache: fixtures.root + "/cache-a")
        _ = try ModelPush.push(directory: try fixtures.model("p-1"), to: registry, keep: 5, loads: false)
        let other = try PostgresModelRegistry(url: url, digest: ModelFixtures.digest, cache: fixtures.root + "/cache-b")
        let directory = try other.directory(of: "p-1")
        XCTAssertTrue(directory.hasPrefix(fixtures.root + "/cache-b/"))
        XCTAssertEqual(try ModelDirectory.load(path: directory).modelVersion, "p-1")
        // A damaged cached copy is fetched again.
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory + "/keywords.txt"))
        XCTAssertEqual(try ModelDirectory.load(path: try other.directory(of: "p-1")).modelVersion, "p-1")
        try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.remove("p-1") }
        let connection = try PostgresConnection(conninfo: url, pq: LibPQ.load())
        XCTAssertEqual(try connection.exec("SELECT count(*) FROM kwsuggest_model_blobs"), [["0"]])
    }
}

/// The rules of the catalog, the same for every registry.
final class RegistryCatalogTests: XCTestCase {
    private func model(_ version: String, files: [String: String] = ["a": "1"]) -> RegisteredModel {
        RegisteredModel(version: version, parent: nil, created: "2026-01-01T00:00:00.000Z", size: 1, files: files,
                        trainedThrough: nil, gate: nil)
    }

    func testSameVersionWithOtherFilesIsRefused() throws {
        var catalog = RegistryCatalog()
        _ = try catalog.add(model("v"), keep: 5)
        XCTAssertEqual(try catalog.add(model("v"), keep: 5), [])
        XCTAssertThrowsError(try catalog.add(model("v", files: ["a": "2"]), keep: 5))
    }

    func testShadowRulesAndPromotionEndsTheShadow() throws {
        var catalog = RegistryCatalog()
        for version in ["a", "b"] { _ = try catalog.add(model(version), keep: 5) }
        try catalog.promote("a", gate: nil)
        XCTAssertThrowsError(try catalog.setShadow("a", fraction: 0.1), "the live version cannot be its own shadow")
        XCTAssertThrowsError(try catalog.setShadow("missing", fraction: 0.1))
        try catalog.setShadow("b", fraction: 0.1)
        XCTAssertThrowsError(try catalog.remove("b"), "a shadow is not removed")
        XCTAssertThrowsError(try catalog.promote("a", gate: nil), "already live")
        try catalog.promote("b", gate: nil)
        XCTAssertNil(catalog.head.shadow)
        XCTAssertEqual(catalog.head.shadowFraction, 0)
    }

    func testVersionsAreSafeNames() {
        XCTAssertTrue(RegistryCatalog.isValidVersion("kwsuggest-conv64-seed1-7f9c47ff-w56f74123-ca17167c7"))
        for bad in ["", ".", "..", "../x", "a/b", "a b", String(repeating: "x", count: 201)] {
            XCTAssertFalse(RegistryCatalog.isValidVersion(bad), bad)
        }
    }
}
