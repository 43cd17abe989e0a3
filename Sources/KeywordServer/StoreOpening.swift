// Opening the store a location names: the one place that knows every store implementation.
import FileStore
import PostgresStore
import StoreInterface

extension StoreLocation {
    /// Opens the store. PostgreSQL: loads libpq, connects and migrates; `unavailable` when the server cannot be
    /// reached yet.
    public func open() throws(KeywordStoreError) -> any KeywordStore {
        switch self {
        case .file(let path): return FileKeywordStore(overlayPath: path)
        case .postgres(let url): return try PostgresKeywordStore(url: url)
        }
    }
}
