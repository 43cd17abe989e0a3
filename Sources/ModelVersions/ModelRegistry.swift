// The model registry in the store: pushed model versions, which one is live, its predecessors and a shadow.
import Foundation
import StoreInterface
import StrictJSON

/// One pushed model version.
public struct RegisteredModel: Codable, Sendable, Equatable {
    /// The manifest's `model_version`: the one string push prints, /readyz shows and a child names as its parent.
    public var version: String
    public var parent: String?
    /// UTC, ISO 8601 with milliseconds.
    public var created: String
    /// Bytes of its files.
    public var size: Int64
    /// SHA-256 of each file by name, manifest.json included.
    public var files: [String: String]
    /// The last feedback record id it trained on (its lineage), so the gate knows which decisions are new to it.
    public var trainedThrough: Int64?
    /// The figures of the gate it passed (or was forced past) when it was promoted, as compact JSON.
    public var gate: String?

    enum CodingKeys: String, CodingKey {
        case version, parent, created, size, files, gate
        case trainedThrough = "trained_through"
    }

    public init(version: String, parent: String?, created: String, size: Int64, files: [String: String],
                trainedThrough: Int64?, gate: String?) {
        self.version = version
        self.parent = parent
        self.created = created
        self.size = size
        self.files = files
        self.trainedThrough = trainedThrough
        self.gate = gate
    }
}

/// Which version serves. `previous` holds the versions that were live before, oldest first.
public struct RegistryHead: Codable, Sendable, Equatable {
    public var live: String?
    public var previous: [String] = []
    public var shadow: String?
    public var shadowFraction: Double = 0
    /// Grows with every change of the head.
    public var revision: Int64 = 0

    enum CodingKeys: String, CodingKey {
        case live, previous, shadow, revision
        case shadowFraction = "shadow_fraction"
    }

    public init() {}
}

/// The registry's whole state: the head and the models, oldest push first. Every rule about versions lives here,
/// so the file and the PostgreSQL registry keep the same ones.
public struct RegistryCatalog: Codable, Sendable, Equatable {
    public var head = RegistryHead()
    public var models: [RegisteredModel] = []

    /// How many previous live versions are remembered for rollback.
    public static let rememberedPredecessors = 20

    public init() {}

    public func model(_ version: String) -> RegisteredModel? { models.first { $0.version == version } }

    /// Versions `keep` must not remove: the live one, its predecessor (rollback's target) and the shadow.
    public var protected: Set<String> {
        Set([head.live, head.previous.last, head.shadow].compactMap { $0 })
    }

    /// Adds a pushed model (or finds it stored already, then nothing changes) and removes the oldest versions
    /// beyond the newest `keep`, except the protected ones. Returns the versions removed.
    public mutating func add(_ model: RegisteredModel, keep: Int) throws(KeywordStoreError) -> [String] {
        if let stored = self.model(model.version) {
            guard stored.files == model.files else {
                throw .failed("version \(model.version) is stored already with other files; a model's version must name one model")
            }
            return []
        }
        models.append(model)
        let newest = Set(models.suffix(max(1, keep)).map(\.version)), kept = protected
        let removed = models.map(\.version).filter { !newest.contains($0) && !kept.contains($0) }
        models.removeAll { removed.contains($0.version) }
        head.previous.removeAll { removed.contains($0) }
        return removed
    }

    /// Makes `version` live; the live one becomes its predecessor. A shadow of that version ends.
    public mutating func promote(_ version: String, gate: String?) throws(KeywordStoreError) {
        guard let index = models.firstIndex(where: { $0.version == version }) else { throw Self.unknown(version) }
        guard head.live != version else { throw .failed("\(version) is live already") }
        if let live = head.live { head.previous.append(live) }
        head.previous = Array(head.previous.suffix(Self.rememberedPredecessors))
        head.live = version
        if head.shadow == version { head.shadow = nil; head.shadowFraction = 0 }
        if let gate { models[index].gate = gate }
        head.revision += 1
    }

    /// The previous live version becomes live again; with none (after the first promotion) no version is live,
    /// and every serve returns to the model of its `--model`. Returns the version that was live.
    public mutating func rollback() throws(KeywordStoreError) -> String {
        guard let live = head.live else {
            throw .failed("no version is live: serves already use the model of their --model")
        }
        head.live = head.previous.popLast()
        head.revision += 1
        return live
    }

    /// Removes a version that is neither live, nor live's predecessor, nor in shadow.
    public mutating func remove(_ version: String) throws(KeywordStoreError) {
        guard model(version) != nil else { throw Self.unknown(version) }
        if head.live == version { throw .failed("\(version) is live: promote another version or roll back first") }
        if head.previous.last == version { throw .failed("\(version) is what rollback returns to: it stays while it is") }
        if head.shadow == version { throw .failed("\(version) is in shadow: turn it off first (model shadow --off)") }
        models.removeAll { $0.version == version }
        head.previous.removeAll { $0 == version }
        head.revision += 1
    }

    /// Puts `version` in shadow at `fraction` of suggest requests, or ends the shadow (nil).
    public mutating func setShadow(_ version: String?, fraction: Double) throws(KeywordStoreError) {
        if let version {
            guard model(version) != nil else { throw Self.unknown(version) }
            guard head.live != version else { throw .failed("\(version) is live; a shadow is a candidate beside it") }
            guard fraction > 0, fraction <= 1 else { throw .failed("the fraction must be above 0 and at most 1") }
        }
        head.shadow = version
        head.shadowFraction = version == nil ? 0 : fraction
        head.revision += 1
    }

    public static func unknown(_ version: String) -> KeywordStoreError {
        .failed("no version \(version) in the registry (model list shows the stored ones)")
    }

    /// Reads a catalog as a registry stores it (strict JSON); the error names `place`, with the line when the text
    /// is not valid JSON.
    public static func decode(_ bytes: [UInt8], place: String) throws(KeywordStoreError) -> RegistryCatalog {
        if bytes.isEmpty { return RegistryCatalog() }
        do {
            return try JSONDecoding.decode(RegistryCatalog.self, from: bytes)
        } catch {
            let line = error.line(in: bytes).map { ":\($0)" } ?? ""
            throw .failed("\(place)\(line): not a model registry catalog: \(error)")
        }
    }

    /// A version names a directory and a database row: letters, digits, '.', '_' and '-', 1 to 200 of them,
    /// not starting with '.'.
    public static func isValidVersion(_ version: String) -> Bool {
        guard !version.isEmpty, version.utf8.count <= 200, !version.hasPrefix(".") else { return false }
        return version.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }
}

/// The SHA-256 of a file as 64 lower-case hex digits: how a registry checks the files it copies.
public typealias FileDigest = @Sendable (_ path: String) throws -> String

/// Where model versions live, beside the keyword changes and feedback of the same store. Safe for many
/// processes at once: every change of the catalog is a read-modify-write under the store's lock.
public protocol ModelRegistry: AnyObject, Sendable {
    var displayName: String { get }
    /// The catalog as it is now.
    func catalog() throws(KeywordStoreError) -> RegistryCatalog
    /// Stores the files of a checked model directory (see `ModelPush`), then runs `change` on the catalog
    /// under the lock and saves what it changed; files of versions it dropped are deleted. A file stored already
    /// is trusted only when its bytes still have its SHA-256; a damaged one is replaced by the pushed copy.
    /// Returns the names of the files so repaired.
    @discardableResult
    func store(files: [String: String], from directory: String,
               change: (inout RegistryCatalog) throws(KeywordStoreError) -> Void) throws(KeywordStoreError) -> [String]
    /// Runs `change` on the catalog under the lock and saves it; files of versions it dropped are deleted.
    /// Serves are told when the head changed.
    func update<T>(_ change: (inout RegistryCatalog) throws(KeywordStoreError) -> T) throws(KeywordStoreError) -> T
    /// A local directory holding the files of `version`, to load (and verify) from.
    func directory(of version: String) throws(KeywordStoreError) -> String
    /// Makes a later `directory(of:)` of `version` fast (copies its files where they are not local).
    func prefetch(_ version: String) throws(KeywordStoreError)
    /// Calls `onChange` (from a background thread) when the head may have changed; once per registry.
    func startWatching(_ onChange: @escaping @Sendable (_ reason: String) -> Void)
    func close()
}
