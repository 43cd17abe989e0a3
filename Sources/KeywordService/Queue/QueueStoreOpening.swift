// The queue store that goes with a keyword store: the same files or the same database.

extension StoreLocation {
    /// Opens the queue beside `feedbackStore` (the store this location opened): for files, the queue log beside the
    /// overlay; for PostgreSQL, the queue tables, which the keyword store's migrations created.
    public func openQueue(feedbackStore: any KeywordStore, policy: QueuePolicy) throws(KeywordStoreError) -> any QueueStore {
        switch self {
        case .file(let path): return FileQueueStore(overlayPath: path, feedbackStore: feedbackStore, policy: policy)
        case .postgres(let url): return try PostgresQueueStore(url: url, feedbackStore: feedbackStore, policy: policy)
        }
    }
}
