import Foundation
import Locking
@testable import ModelStorage
import ModelVersions
import Platform
import StoreInterface
@testable import Training
import XCTest

/// Model directories for registry tests: copies of the shipped model that differ in their manifest's version
/// (and, where a test needs it, in their files).
struct ModelFixtures {
    let root: String
    /// What the registries check copied files with.
    static let digest: FileDigest = { try SHA256.hex(file: $0) }

    static var shipped: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("models/default").path
    }

    init() throws {
        root = NSTemporaryDirectory() + "registry-fixtures-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// A copy of the shipped model whose manifest names `version` (and `parent`, `trainedThrough` as lineage).
    func model(_ version: String, parent: String? = nil, trainedThrough: Int64? = nil,
               keywords: [String]? = nil) throws -> String {
        let directory = (root as NSString).appendingPathComponent(version)
        try FileManager.default.copyItem(atPath: Self.shipped, toPath: directory)
        let manifestPath = (directory as NSString).appendingPathComponent(ModelDirectory.manifestName)
        var manifest = try ModelManifest.load(path: manifestPath)
        manifest.modelVersion = version
        if let keywords {
            try Data(keywords.map { $0 + "\n" }.joined().utf8)
                .write(to: URL(fileURLWithPath: (directory as NSString).appendingPathComponent(ModelDirectory.keywordsName)))
            manifest.fileSHA256 = try ModelDirectory.checksums(directory: directory)
        }
        if parent != nil || trainedThrough != nil {
            manifest.lineage = ModelManifest.Lineage(
                parent: parent, data: manifest.recipe?.data ?? [], dev: manifest.recipe?.dev,
                feedback: trainedThrough.map { ModelManifest.FeedbackUse(store: "test", firstID: 1, lastID: $0, records: 1, names: 1, newKeywords: []) })
        }
        try manifest.save(path: manifestPath)
        return directory
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    /// Flips the lowest bit of the byte at `offset` of the file, in place (hard links to it see the change).
    static func flipByte(in path: String, at offset: UInt64) throws {
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path), path)
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: offset)
        handle.write(Data([byte ^ 0x01]))
    }
}

/// What every registry must do, run against the file and the PostgreSQL registry alike.
struct RegistryContract {
    let open: () throws -> any ModelRegistry
    let fixtures: ModelFixtures
    /// Flips one byte of the stored file with this SHA-256 where the registry keeps it, in place.
    let damageStoredFile: (String) throws -> Void

    /// push → list → promote → promote → rollback → rollback to the fallback → rm, with the files loadable.
    func lifecycle() throws {
        let registry = try open()
        defer { registry.close() }
        let a = try fixtures.model("test-a"), b = try fixtures.model("test-b", parent: "test-a", trainedThrough: 7)
        let pushedA = try ModelPush.push(directory: a, to: registry, keep: 5)
        XCTAssertEqual(pushedA, ModelPush.Outcome(version: "test-a", alreadyStored: false, removed: []))
        XCTAssertEqual(try ModelPush.push(directory: a, to: registry, keep: 5, loads: false).alreadyStored, true)
        _ = try ModelPush.push(directory: b, to: registry, keep: 5, loads: false)
        var catalog = try registry.catalog()
        XCTAssertEqual(catalog.models.map(\.version), ["test-a", "test-b"])
        XCTAssertEqual(catalog.model("test-b")?.parent, "test-a")
        XCTAssertEqual(catalog.model("test-b")?.trainedThrough, 7)
        XCTAssertNil(catalog.head.live)

        // The stored files load, and are the pushed ones.
        let loaded = try ModelDirectory.load(path: try registry.directory(of: "test-b"))
        XCTAssertEqual(loaded.modelVersion, "test-b")
        XCTAssertEqual(loaded.categories["ポテトチップス"], "菓子・デザート", "the keyword categories travel with the model")
        XCTAssertEqual(try SHA256.hex(file: try registry.directory(of: "test-b") + "/vectors.kwv"),
                       try SHA256.hex(file: b + "/vectors.kwv"))

        try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.promote("test-a", gate: nil) }
        try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.promote("test-b", gate: "{}") }
        catalog = try registry.catalog()
        XCTAssertEqual(catalog.head.live, "test-b")
        XCTAssertEqual(catalog.head.previous, ["test-a"])
        XCTAssertEqual(catalog.model("test-b")?.gate, "{}")

        // Neither the live one nor its predecessor can be removed.
        XCTAssertThrowsError(try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.remove("test-b") })
        XCTAssertThrowsError(try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.remove("test-a") })

        let from = try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) -> String in try catalog.rollback() }
        XCTAssertEqual(from, "test-b")
        XCTAssertEqual(try registry.catalog().head.live, "test-a")
        _ = try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) -> String in try catalog.rollback() }
        XCTAssertNil(try registry.catalog().head.live, "after the first promotion, rollback returns to the fallback")
        XCTAssertThrowsError(try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) -> String in try catalog.rollback() })

        try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.remove("test-b") }
        XCTAssertEqual(try registry.catalog().models.map(\.version), ["test-a"])
        XCTAssertThrowsError(try registry.directory(of: "test-b"))
    }

    /// `--keep 1` keeps the newest version plus the live one and its predecessor.
    func keepSparesLiveAndPredecessor() throws {
        let registry = try open()
        defer { registry.close() }
        for version in ["k-1", "k-2"] { _ = try ModelPush.push(directory: try fixtures.model(version), to: registry, keep: 5, loads: false) }
        try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.promote("k-1", gate: nil) }
        try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.promote("k-2", gate: nil) }
        _ = try ModelPush.push(directory: try fixtures.model("k-3"), to: registry, keep: 1, loads: false)
        let outcome = try ModelPush.push(directory: try fixtures.model("k-4"), to: registry, keep: 1, loads: false)
        XCTAssertEqual(outcome.removed, ["k-3"])
        XCTAssertEqual(try registry.catalog().models.map(\.version), ["k-1", "k-2", "k-4"])
        XCTAssertNoThrow(try ModelDirectory.load(path: try registry.directory(of: "k-1")))
    }

    /// A directory with one flipped byte, or a missing file, is refused naming the file; nothing is stored.
    func damagedDirectoryIsRefused() throws {
        let registry = try open()
        defer { registry.close() }
        let damaged = try fixtures.model("damaged")
        try ModelFixtures.flipByte(in: damaged + "/vectors.kwv", at: 4096)
        XCTAssertThrowsError(try ModelPush.push(directory: damaged, to: registry, keep: 5, loads: false)) { error in
            XCTAssertTrue("\(error)".contains("damaged/vectors.kwv: SHA-256 is"), "\(error)")
        }
        let incomplete = try fixtures.model("incomplete")
        try FileManager.default.removeItem(atPath: incomplete + "/encoder.bin")
        XCTAssertThrowsError(try ModelPush.push(directory: incomplete, to: registry, keep: 5, loads: false)) { error in
            XCTAssertTrue("\(error)".contains("incomplete/encoder.bin: missing"), "\(error)")
        }
        XCTAssertEqual(try registry.catalog().models, [])
    }

    /// A stored file damaged in place is not trusted by its name: a push of another model holding the same file
    /// replaces it with the pushed copy and says so, and both versions load with their files verified.
    func damagedStoredFileIsRepaired() throws {
        let registry = try open()
        defer { registry.close() }
        _ = try ModelPush.push(directory: try fixtures.model("r-1"), to: registry, keep: 5, loads: false)
        let sha = try XCTUnwrap(try registry.catalog().model("r-1")?.files[ModelDirectory.keywordsName])
        try damageStoredFile(sha)
        let outcome = try ModelPush.push(directory: try fixtures.model("r-2"), to: registry, keep: 5, loads: false)
        XCTAssertEqual(outcome.repaired, [ModelDirectory.keywordsName])
        for version in ["r-1", "r-2"] {
            let directory = try registry.directory(of: version)
            XCTAssertEqual(try ModelDirectory.load(path: directory).modelVersion, version)
            XCTAssertEqual(try SHA256.hex(file: directory + "/" + ModelDirectory.keywordsName), sha)
        }
        XCTAssertEqual(try ModelPush.push(directory: try fixtures.model("r-3"), to: registry, keep: 5, loads: false).repaired, [])
    }

    /// A promotion is seen by a watcher on another registry object (another replica) within 5 s.
    func watchersHearPromotions() throws {
        let writer = try open(), reader = try open()
        defer { writer.close(); reader.close() }
        _ = try ModelPush.push(directory: try fixtures.model("w-1"), to: writer, keep: 5, loads: false)
        let heard = Locked<[String]>([])
        let changed = DispatchSemaphore(value: 0)
        reader.startWatching { reason in
            heard.withLock { $0.append(reason) }
            changed.signal()
        }
        // Every watcher reports once when it starts (it may have missed changes before): then it is looking.
        XCTAssertEqual(changed.wait(timeout: .now() + 5), .success, "the watcher did not start")
        let started = Date()
        try writer.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.promote("w-1", gate: nil) }
        XCTAssertEqual(changed.wait(timeout: .now() + 5), .success, "no change heard within 5 s")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertEqual(try reader.catalog().head.live, "w-1")
    }
}
