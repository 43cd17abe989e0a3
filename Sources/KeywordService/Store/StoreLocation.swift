// Which store a process uses, as given on the command line (`--store`) or in KWSUGGEST_STORE.

/// `file:PATH` (the overlay file; feedback and the lock file beside it) or a PostgreSQL URL.
public enum StoreLocation: Sendable, Equatable {
    case file(String)
    case postgres(String)

    /// Parses `file:PATH`, `postgres://…` or `postgresql://…`. The error is a sentence for the user.
    public init(parsing text: String) throws(KeywordStoreError) {
        if text.hasPrefix("file:") {
            let path = String(text.dropFirst("file:".count))
            guard !path.isEmpty else { throw .failed("the store 'file:' needs a path, as in file:models/default/keywords.overlay.json") }
            self = .file(path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(text)
        } else {
            throw .failed("unknown store '\(PostgresKeywordStore.masked(text).prefix(100))': use file:PATH or postgres://user@host:5432/db")
        }
    }

    /// For logs: the path, or the URL with its password masked.
    public var displayName: String {
        switch self {
        case .file(let path): return "file:\(path)"
        case .postgres(let url): return PostgresKeywordStore.masked(url)
        }
    }

    /// Opens the store. PostgreSQL: loads libpq, connects and migrates; `unavailable` when the server cannot be
    /// reached yet.
    public func open() throws(KeywordStoreError) -> any KeywordStore {
        switch self {
        case .file(let path): return FileKeywordStore(overlayPath: path)
        case .postgres(let url): return try PostgresKeywordStore(url: url)
        }
    }
}
