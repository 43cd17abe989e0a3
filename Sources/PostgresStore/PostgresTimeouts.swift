// How long one transaction of the PostgreSQL store may run and wait for locks.

/// Limits on each transaction: a request (a keyword change, a feedback post, an export page, a reload) gets a
/// short statement and lock timeout, so a locked table or a slow database answers 503 `store_unavailable` in
/// seconds instead of holding the client and the store's one connection; bulk work (import, replacing the
/// whole overlay) gets longer ones, since it moves many rows on purpose.
public struct PostgresTimeouts: Sendable, Equatable {
    public enum Kind: Sendable { case request, bulk }

    /// Longest statement of a request's transaction, in milliseconds. Default 5,000.
    public var requestStatement = 5_000
    /// Longest wait for a lock in a request's transaction, in milliseconds. Default 2,000.
    public var requestLock = 2_000
    /// Longest statement of a bulk transaction, in milliseconds. Default 600,000 (10 minutes).
    public var bulkStatement = 600_000
    /// Longest wait for a lock in a bulk transaction, in milliseconds. Default 60,000.
    public var bulkLock = 60_000

    public init() {}

    func milliseconds(_ kind: Kind) -> (statement: Int, lock: Int) {
        switch kind {
        case .request: return (requestStatement, requestLock)
        case .bulk: return (bulkStatement, bulkLock)
        }
    }

    /// Whether SQLSTATE `state` is one of these limits firing: 57014 (statement canceled, which a
    /// statement timeout raises) or 55P03 (lock not available, which a lock timeout raises).
    static func fired(_ state: String) -> Bool { state == "57014" || state == "55P03" }
}
