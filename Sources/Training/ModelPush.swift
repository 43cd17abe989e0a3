// Checking a model directory before it enters the registry, and pushing it.
import Foundation
import ModelStorage
import ModelVersions
import Platform
import StoreInterface

public enum ModelPush {
    /// Files a model directory must hold to load (calibration.json, varieties.tsv and keyword-categories.tsv are
    /// optional).
    static let requiredNames = ModelDirectory.checksummedNames.filter {
        $0 != ModelDirectory.varietiesName && $0 != ModelCalibration.fileName && $0 != ModelFiles.keywordCategoriesName
    }

    /// What a checked directory holds.
    public struct Checked: Sendable {
        public var manifest: ModelManifest
        /// SHA-256 of each file to store by name, manifest.json included.
        public var files: [String: String]
        public var size: Int64
    }

    /// The answer of a push.
    public struct Outcome: Sendable, Equatable {
        public var version: String
        /// True when the same model was stored already (nothing was written).
        public var alreadyStored: Bool
        /// Versions `--keep` removed.
        public var removed: [String]
        /// Files the registry held damaged (bytes without their SHA-256) and replaced by the pushed copy.
        public var repaired: [String] = []
    }

    /// Checks every file: the manifest with its checksums, each file it lists against its SHA-256, the files a
    /// model needs, and (unless `loads` is false) a full load. A damaged or incomplete directory is an error naming
    /// the file.
    public static func check(directory: String, loads: Bool = true) throws -> Checked {
        func file(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
        let manifestPath = file(ModelDirectory.manifestName)
        guard FileManager.default.fileExists(atPath: manifestPath) else {
            throw ModelDirectoryError(path: manifestPath, message: "missing: a pushed model needs its manifest")
        }
        let manifest = try ModelManifest.load(path: manifestPath)
        guard let checksums = manifest.fileSHA256, !checksums.isEmpty else {
            throw ModelDirectoryError(path: manifestPath, message: "records no file_sha256, so the files cannot be checked")
        }
        guard RegistryCatalog.isValidVersion(manifest.modelVersion) else {
            throw ModelDirectoryError(path: manifestPath, message: "model_version '\(manifest.modelVersion)' is not a valid version "
                + "(letters, digits, '.', '_', '-'; 1 to 200; not starting with '.')")
        }
        for name in requiredNames where checksums[name] == nil || !FileManager.default.fileExists(atPath: file(name)) {
            let missing = !FileManager.default.fileExists(atPath: file(name))
            throw ModelDirectoryError(path: file(name), message: missing
                ? "missing: the directory is incomplete" : "not covered by the checksums in \(ModelDirectory.manifestName)")
        }
        for name in checksums.keys.sorted() where !FileManager.default.fileExists(atPath: file(name)) {
            throw ModelDirectoryError(path: file(name), message: "missing, but \(ModelDirectory.manifestName) lists it: the directory is incomplete")
        }
        try ModelDirectory.verify(directory: directory, manifest: manifest)
        if loads { _ = try ModelDirectory.load(path: directory, verify: false) }
        var files = checksums.mapValues { $0.lowercased() }
        files[ModelDirectory.manifestName] = try SHA256.hex(file: manifestPath)
        var size: Int64 = 0
        for name in files.keys {
            // The size of what a symbolic link points at, as the registry stores the bytes, not the link.
            let attributes = try? FileManager.default.attributesOfItem(atPath: (file(name) as NSString).resolvingSymlinksInPath)
            size += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        }
        return Checked(manifest: manifest, files: files, size: size)
    }

    /// Checks `directory` and stores it in `registry`, then keeps the newest `keep` versions (plus the live one,
    /// its predecessor and the shadow).
    public static func push(directory: String, to registry: any ModelRegistry, keep: Int, loads: Bool = true) throws -> Outcome {
        let checked = try check(directory: directory, loads: loads)
        let manifest = checked.manifest
        let model = RegisteredModel(version: manifest.modelVersion, parent: manifest.lineage?.parent,
                                    created: UTCTime.now(), size: checked.size, files: checked.files,
                                    trainedThrough: manifest.lineage?.feedback?.lastID, gate: nil)
        var outcome = Outcome(version: model.version, alreadyStored: false, removed: [])
        outcome.repaired = try registry.store(files: checked.files, from: directory) { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in
            outcome.alreadyStored = catalog.model(model.version) != nil
            outcome.removed = try catalog.add(model, keep: keep)
        }
        return outcome
    }
}
