// The PostgreSQL store's model registry: the catalog and every model file in the database, so replicas on
// several machines need no shared volume.
import Foundation
import ModelVersions
import StoreInterface
import Locking
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The catalog is one row (`kwsuggest_model_registry`), changed in a transaction holding its row lock; files are
/// rows of `kwsuggest_model_blobs` by SHA-256 in 4 MiB parts, each distinct file once. A change of the head sends
/// `NOTIFY kwsuggest_models`; watchers also compare the revision every second. A serve loads a version from a
/// local copy of its files (see `directory(of:)`), checked against the catalog's SHA-256 before it is used.
public final class PostgresModelRegistry: ModelRegistry, @unchecked Sendable {
    public let displayName: String
    /// The connection, its transactions (uploads under the bulk limits), and the listener's connections.
    private let client: PostgresClient
    private let cacheRoot: String
    private let digest: FileDigest
    private let stopped = Atomic<Bool>(false)
    private let watching = Atomic<Bool>(false)
    static let partBytes = 4 << 20

    /// - Parameter cache: where versions are copied to be loaded; default `$KWSUGGEST_MODEL_CACHE`, else
    ///   `kwsuggest-models-<uid>` in the temporary folder.
    public init(url: String, digest: @escaping FileDigest, cache: String? = nil) throws(KeywordStoreError) {
        self.digest = digest
        displayName = PostgresKeywordStore.masked(url)
        let environment = ProcessInfo.processInfo.environment["KWSUGGEST_MODEL_CACHE"].flatMap { $0.isEmpty ? nil : $0 }
        cacheRoot = cache ?? environment ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("kwsuggest-models-\(getuid())")
        client = try PostgresClient(url: url, migrate: true)
    }

    public func catalog() throws(KeywordStoreError) -> RegistryCatalog {
        try transaction { connection in try self.read(connection, lock: false) }
    }

    public func store(files: [String: String], from directory: String,
                      change: (inout RegistryCatalog) throws(KeywordStoreError) -> Void) throws(KeywordStoreError) -> [String] {
        // Uploading a model's files moves many megabytes on purpose: the bulk limits.
        try transaction(.bulk) { connection in
            var catalog = try self.read(connection, lock: true)
            let before = catalog
            try change(&catalog)
            var repaired: [String] = []
            var done: Set<String> = []
            for (name, digest) in files.sorted(by: { $0.key < $1.key }) where done.insert(digest).inserted {
                if try self.upload((directory as NSString).appendingPathComponent(name), digest: digest, connection) {
                    repaired.append(name)
                }
            }
            try self.save(catalog, replacing: before, connection)
            return repaired
        }
    }

    public func update<T>(_ change: (inout RegistryCatalog) throws(KeywordStoreError) -> T) throws(KeywordStoreError) -> T {
        try transaction { connection in
            var catalog = try self.read(connection, lock: true)
            let before = catalog
            let result = try change(&catalog)
            if catalog != before { try self.save(catalog, replacing: before, connection) }
            return result
        }
    }

    /// A directory of this process holding the version's files: each file is kept once in the cache's `blobs/`
    /// by SHA-256 (fetched from the database when missing or damaged, written under a temporary name and
    /// renamed, so processes sharing the cache never see half a file), linked into `versions/<version>.<pid>`.
    /// Link directories of versions this process no longer needs, of processes that ended, and blobs no stored
    /// version uses are deleted.
    public func directory(of version: String) throws(KeywordStoreError) -> String {
        let catalog = try catalog()
        guard RegistryCatalog.isValidVersion(version), let model = catalog.model(version) else {
            throw RegistryCatalog.unknown(version)
        }
        let blobs = (cacheRoot as NSString).appendingPathComponent("blobs")
        let versions = (cacheRoot as NSString).appendingPathComponent("versions")
        try RegistryFiles.makeDirectory(blobs)
        try RegistryFiles.makeDirectory(versions)
        for (name, digest) in model.files.sorted(by: { $0.key < $1.key }) {
            let blob = (blobs as NSString).appendingPathComponent(digest)
            if (try? self.digest(blob)) == digest { continue }
            try download(digest, to: blob, version: version, name: name)
        }
        let pid = getpid()
        let target = (versions as NSString).appendingPathComponent("\(version).\(pid)")
        try? FileManager.default.removeItem(atPath: target)
        try RegistryFiles.makeDirectory(target)
        for (name, digest) in model.files {
            try RegistryFiles.link((blobs as NSString).appendingPathComponent(digest), to: (target as NSString).appendingPathComponent(name))
        }
        let kept = catalog.protected.union([version])
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: versions)) ?? [] {
            guard let dot = entry.lastIndex(of: "."), let owner = Int32(entry[entry.index(after: dot)...]) else { continue }
            let ended = kill(owner, 0) != 0 && errno == ESRCH
            if ended || (owner == pid && !kept.contains(String(entry[..<dot]))) {
                try? FileManager.default.removeItem(atPath: (versions as NSString).appendingPathComponent(entry))
            }
        }
        let referenced = Set(catalog.models.flatMap { $0.files.values })
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: blobs)) ?? [] where entry.count == 64 && !referenced.contains(entry) {
            try? FileManager.default.removeItem(atPath: (blobs as NSString).appendingPathComponent(entry))
        }
        return target
    }

    /// Copies the version's files into the cache, so a promotion only has to link and load them.
    public func prefetch(_ version: String) throws(KeywordStoreError) {
        _ = try directory(of: version)
    }

    public func startWatching(_ onChange: @escaping @Sendable (String) -> Void) {
        guard !watching.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [weak self] in
            var listener = PostgresListener(.init(name: PostgresSchema.modelChannel,
                                                  revisionQuery: "SELECT revision FROM kwsuggest_model_registry",
                                                  connectedReason: "registry connected", reportsAvailability: false))
            while let self, !self.stopped.load(ordering: .relaxed) {
                listener.step(self.client, onChange: onChange)
            }
        }
        thread.name = "kwsuggest-registry-listen"
        thread.start()
    }

    public func close() {
        stopped.store(true, ordering: .relaxed)
    }

    // MARK: Rows

    private func read(_ connection: PostgresConnection, lock: Bool) throws -> RegistryCatalog {
        let rows = try connection.rows("SELECT catalog FROM kwsuggest_model_registry" + (lock ? " FOR UPDATE" : ""))
        guard let row = rows.first else {
            throw KeywordStoreError.failed("\(displayName): kwsuggest_model_registry has no row")
        }
        let text = try row.string(0)
        return try RegistryCatalog.decode(Array(text.utf8), place: "\(displayName) kwsuggest_model_registry")
    }

    private func save(_ catalog: RegistryCatalog, replacing before: RegistryCatalog, _ connection: PostgresConnection) throws {
        let text = String(decoding: try RegistryFiles.encode(catalog), as: UTF8.self)
        let rows = try connection.rows("UPDATE kwsuggest_model_registry SET catalog = $1, revision = revision + 1 RETURNING revision", [text])
        if catalog.models.count < before.models.count {
            let referenced = Array(Set(catalog.models.flatMap { $0.files.values }))
            let list = String(decoding: try RegistryFiles.encode(referenced), as: UTF8.self)
            try connection.exec("DELETE FROM kwsuggest_model_blobs WHERE NOT (sha256 = ANY (ARRAY(SELECT json_array_elements_text($1::json))))", [list])
        }
        if catalog.head != before.head {
            try connection.exec("SELECT pg_notify($1, $2)", [PostgresSchema.modelChannel, String(try rows.first?.int64(0) ?? 0)])
        }
    }

    /// Stores a file's parts unless parts stored under its SHA-256 already have that SHA-256 together (the
    /// database hashes them); damaged or missing parts are deleted and the file is stored again. The file is
    /// hashed again first (it may have changed since it was checked). Returns true when stored parts were
    /// replaced.
    private func upload(_ path: String, digest expected: String, _ connection: PostgresConnection) throws -> Bool {
        let found = try connection.rows("SELECT encode(sha256(string_agg(bytes, ''::bytea ORDER BY part)), 'hex') "
            + "FROM kwsuggest_model_blobs WHERE sha256 = $1", [expected])
        let stored = try found.first?.optionalString(0)
        if stored == expected { return false }
        if stored != nil { try connection.exec("DELETE FROM kwsuggest_model_blobs WHERE sha256 = $1", [expected]) }
        let actual = try digest(path)
        guard actual == expected else {
            throw KeywordStoreError.failed("\(path): SHA-256 is \(actual) but the manifest records \(expected); the file changed while it was pushed")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw KeywordStoreError.failed("\(path): cannot read the file") }
        defer { try? handle.close() }
        var part = 0
        while true {
            let data = (try? handle.read(upToCount: Self.partBytes)) ?? Data()
            if data.isEmpty && part > 0 { break }
            try connection.exec("INSERT INTO kwsuggest_model_blobs (sha256, part, bytes) VALUES ($1, $2, decode($3, 'hex'))",
                                [expected, String(part), Hex.encode(data)])
            part += 1
            if data.count < Self.partBytes { break }
        }
        return stored != nil
    }

    /// Writes a stored file part by part (one 4 MiB part in memory at a time), hashing as it goes.
    private func download(_ digest: String, to path: String, version: String, name: String) throws(KeywordStoreError) {
        let place = "\(displayName): \(version)/\(name)"
        let count = try transaction { connection in
            let rows = try connection.rows("SELECT count(*) FROM kwsuggest_model_blobs WHERE sha256 = $1", [digest])
            return try rows.first?.int(0) ?? 0
        }
        guard count > 0 else { throw .failed("\(place): the database holds no file with SHA-256 \(digest)") }
        let temporary = path + ".\(getpid()).part"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RegistryFiles.failure("open", temporary) }
        do throws(KeywordStoreError) {
            for part in 0..<count {
                let rows = try transaction { connection in
                    try connection.rows("SELECT encode(bytes, 'hex') FROM kwsuggest_model_blobs WHERE sha256 = $1 AND part = $2",
                                        [digest, String(part)])
                }
                guard let text = try? rows.first?.optionalString(0), let bytes = Hex.decode(text) else {
                    throw .failed("\(place): part \(part) is missing or not hex")
                }
                try RegistryFiles.writeAll(fd, bytes, path: temporary)
            }
            guard fsync(fd) == 0 else { throw RegistryFiles.failure("fsync", temporary) }
        } catch {
            Glibc.close(fd)
            unlink(temporary)
            throw error
        }
        Glibc.close(fd)
        try RegistryFiles.check(temporary, expecting: digest, digest: self.digest, named: "\(place) (stored in the database)")
        try RegistryFiles.rename(temporary, to: path)
    }

    // MARK: Transactions

    /// Runs `body` in a transaction of `kind` on the client's connection (see `PostgresClient.withTransaction`).
    private func transaction<T>(_ kind: PostgresTimeouts.Kind = .request,
                                _ body: (PostgresConnection) throws -> T) throws(KeywordStoreError) -> T {
        let client = self.client
        return try client.withTransaction(kind, lift: { $0 }) { connection throws(KeywordStoreError) -> T in
            do {
                return try body(connection)
            } catch {
                throw client.storeError(error)
            }
        }
    }
}

/// Lower-case hex, as PostgreSQL's `encode(…, 'hex')` writes it.
enum Hex {
    static func encode(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: 0, count: data.count * 2)
        data.withUnsafeBytes { raw in
            for (i, byte) in raw.enumerated() {
                out[2 * i] = digits[Int(byte >> 4)]
                out[2 * i + 1] = digits[Int(byte & 0x0F)]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        var out = [UInt8](repeating: 0, count: utf8.count / 2)
        for i in 0..<out.count {
            guard let high = value(utf8[2 * i]), let low = value(utf8[2 * i + 1]) else { return nil }
            out[i] = high << 4 | low
        }
        return out
    }
}
