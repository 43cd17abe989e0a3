// The file store's model registry: a folder beside the overlay file, safe for processes on one machine.
import Foundation
import ModelVersions
import StoreInterface
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// For the overlay `keywords.overlay.json`, the folder `keywords.overlay.registry/`:
/// - `registry.json`: the catalog (head and models), replaced atomically;
/// - `blobs/<sha256>`: each distinct file once (retrained models share their vectors and lexicon);
/// - `versions/<version>/`: a model directory of hard links to the blobs, loaded as it is;
/// - `registry.lock`: the `flock` every change holds.
/// It is run-time data, like the overlay: never committed, ignored by git.
public final class FileModelRegistry: ModelRegistry {
    public let root: String
    public var displayName: String { "file:\(root)" }
    private let catalogPath: String
    private let lockPath: String
    private let blobs: String
    private let versions: String
    private let pollInterval: Double
    private let digest: FileDigest
    private let stopped = Atomic<Bool>(false)
    private let watching = Atomic<Bool>(false)

    public init(overlayPath: String, digest: @escaping FileDigest, pollInterval: Double = 0.5) throws(KeywordStoreError) {
        self.digest = digest
        let stem = overlayPath.hasSuffix(".json") ? String(overlayPath.dropLast(5)) : overlayPath
        root = stem + ".registry"
        catalogPath = (root as NSString).appendingPathComponent("registry.json")
        lockPath = (root as NSString).appendingPathComponent("registry.lock")
        blobs = (root as NSString).appendingPathComponent("blobs")
        versions = (root as NSString).appendingPathComponent("versions")
        self.pollInterval = pollInterval
    }

    public func catalog() throws(KeywordStoreError) -> RegistryCatalog {
        guard let data = FileManager.default.contents(atPath: catalogPath) else {
            if FileManager.default.fileExists(atPath: catalogPath) { throw .failed("\(catalogPath): cannot read the file") }
            return RegistryCatalog()
        }
        return try RegistryCatalog.decode([UInt8](data), place: catalogPath)
    }

    public func store(files: [String: String], from directory: String,
                      change: (inout RegistryCatalog) throws(KeywordStoreError) -> Void) throws(KeywordStoreError) -> [String] {
        try locked { () throws(KeywordStoreError) -> [String] in
            var catalog = try catalog()
            let before = catalog
            try change(&catalog)
            let added = catalog.models.filter { before.model($0.version) == nil }
            var wanted = files
            for model in added { wanted.merge(model.files) { pushed, _ in pushed } }
            let repaired = try storeBlobs(wanted, from: directory)
            for model in added { try install(model) }
            let digests = Set(repaired.values)
            for model in before.models where catalog.model(model.version) != nil {
                try relink(model, digests: digests)
            }
            try save(catalog, replacing: before)
            return repaired.keys.sorted()
        }
    }

    public func update<T>(_ change: (inout RegistryCatalog) throws(KeywordStoreError) -> T) throws(KeywordStoreError) -> T {
        try locked { () throws(KeywordStoreError) -> T in
            var catalog = try catalog()
            let before = catalog
            let result = try change(&catalog)
            if catalog != before { try save(catalog, replacing: before) }
            return result
        }
    }

    public func directory(of version: String) throws(KeywordStoreError) -> String {
        guard RegistryCatalog.isValidVersion(version) else { throw RegistryCatalog.unknown(version) }
        let path = (versions as NSString).appendingPathComponent(version)
        guard FileManager.default.fileExists(atPath: path) else {
            throw .failed("\(path): missing: the registry lists \(version) but holds no files for it")
        }
        return path
    }

    /// The files are local already.
    public func prefetch(_ version: String) throws(KeywordStoreError) {}

    public func startWatching(_ onChange: @escaping @Sendable (String) -> Void) {
        guard !watching.exchange(true, ordering: .relaxed) else { return }
        FilePoller.start(path: catalogPath, interval: pollInterval, threadName: "kwsuggest-registry-watch",
                         reason: "registry file changed", isStopped: { [weak self] in self?.stopped.load(ordering: .relaxed) ?? true },
                         onChange: onChange)
    }

    public func close() {
        stopped.store(true, ordering: .relaxed)
    }

    // MARK: Files

    /// Copies each file into its blob unless the blob is there and its bytes still have its SHA-256 (the blob's
    /// name); a damaged blob is replaced by the file. Each copy's SHA-256 is checked again (the directory may have
    /// changed since it was checked). Returns the files whose damaged blob was replaced, by name.
    private func storeBlobs(_ files: [String: String], from directory: String) throws(KeywordStoreError) -> [String: String] {
        try RegistryFiles.makeDirectory(blobs)
        var repaired: [String: String] = [:]
        var done: Set<String> = []
        for (name, digest) in files.sorted(by: { $0.key < $1.key }) where done.insert(digest).inserted {
            let blob = (blobs as NSString).appendingPathComponent(digest)
            let existed = FileManager.default.fileExists(atPath: blob)
            if existed, (try? self.digest(blob)) == digest { continue }
            try RegistryFiles.copy((directory as NSString).appendingPathComponent(name), to: blob, expecting: digest,
                                   digest: self.digest)
            if existed { repaired[name] = digest }
        }
        return repaired
    }

    /// Links the model's blobs into `versions/<version>`.
    private func install(_ model: RegisteredModel) throws(KeywordStoreError) {
        try RegistryFiles.makeDirectory(versions)
        let target = (versions as NSString).appendingPathComponent(model.version)
        let staging = (versions as NSString).appendingPathComponent(".\(model.version).\(getpid()).tmp")
        try? FileManager.default.removeItem(atPath: staging)
        try? FileManager.default.removeItem(atPath: target)
        try RegistryFiles.makeDirectory(staging)
        for (name, digest) in model.files {
            let blob = (blobs as NSString).appendingPathComponent(digest)
            try RegistryFiles.link(blob, to: (staging as NSString).appendingPathComponent(name))
        }
        try RegistryFiles.rename(staging, to: target)
    }

    /// Points a stored version's files whose blob was replaced at the new blob (a hard link to a blob damaged in
    /// place shares its bytes), one file at a time by rename, so a serve loading the version never misses a file.
    private func relink(_ model: RegisteredModel, digests: Set<String>) throws(KeywordStoreError) {
        let directory = (versions as NSString).appendingPathComponent(model.version)
        for (name, digest) in model.files where digests.contains(digest) {
            guard FileManager.default.fileExists(atPath: directory) else { return }
            let path = (directory as NSString).appendingPathComponent(name)
            let temporary = (directory as NSString).appendingPathComponent(".\(name).\(getpid()).tmp")
            try? FileManager.default.removeItem(atPath: temporary)
            try RegistryFiles.link((blobs as NSString).appendingPathComponent(digest), to: temporary)
            try RegistryFiles.rename(temporary, to: path)
        }
    }

    /// Writes the catalog, then deletes the directories of versions it no longer lists and unreferenced blobs.
    private func save(_ catalog: RegistryCatalog, replacing before: RegistryCatalog) throws(KeywordStoreError) {
        try RegistryFiles.makeDirectory(root)
        try RegistryFiles.writeAtomically(RegistryFiles.encode(catalog), to: catalogPath)
        let dropped = before.models.filter { catalog.model($0.version) == nil }
        guard !dropped.isEmpty else { return }
        for model in dropped {
            try? FileManager.default.removeItem(atPath: (versions as NSString).appendingPathComponent(model.version))
        }
        let referenced = Set(catalog.models.flatMap { $0.files.values })
        for name in (try? FileManager.default.contentsOfDirectory(atPath: blobs)) ?? [] where !referenced.contains(name) {
            try? FileManager.default.removeItem(atPath: (blobs as NSString).appendingPathComponent(name))
        }
    }

    private func locked<T>(_ body: () throws(KeywordStoreError) -> T) throws(KeywordStoreError) -> T {
        try RegistryFiles.makeDirectory(root)
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RegistryFiles.failure("open", lockPath) }
        defer { Glibc.close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw RegistryFiles.failure("flock", lockPath) }
        }
        return try body()
    }
}
