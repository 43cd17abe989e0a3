// Opening the store a location names: the one place that knows every store implementation.
import FileStore
import ModelStorage
import ModelVersions
import Platform
import PostgresStore
import StoreInterface
import TeamQueue

extension StoreLocation {
    /// Opens the store. PostgreSQL: loads libpq, connects and migrates; `unavailable` when the server cannot be
    /// reached yet.
    public func open() throws(KeywordStoreError) -> any KeywordStore {
        switch self {
        case .file(let path): return FileKeywordStore(overlayPath: path)
        case .postgres(let url): return try PostgresKeywordStore(url: url)
        }
    }

    /// Opens the queue beside `feedbackStore` (the store this location opened): for files, the queue log beside the
    /// overlay; for PostgreSQL, the queue tables, which the keyword store's migrations created.
    public func openQueue(feedbackStore: any KeywordStore, policy: QueuePolicy) throws(KeywordStoreError) -> any QueueStore {
        switch self {
        case .file(let path): return FileQueueStore(overlayPath: path, feedbackStore: feedbackStore, policy: policy)
        case .postgres(let url): return try PostgresQueueStore(url: url, feedbackStore: feedbackStore, policy: policy)
        }
    }
}

extension StoreLocation {
    /// How the registries check the files they copy: SHA-256, as the manifest records it.
    static let digest: FileDigest = { try SHA256.hex(file: $0) }

    /// The model registry of this store: a folder beside the overlay file, or tables of the database.
    public func openRegistry() throws(KeywordStoreError) -> any ModelRegistry {
        switch self {
        case .file(let path): return try FileModelRegistry(overlayPath: path, digest: Self.digest)
        case .postgres(let url): return try PostgresModelRegistry(url: url, digest: Self.digest)
        }
    }
}
