// The one PostgreSQL client each store part (keywords, queue, registry) runs its transactions through: the
// connection string, libpq, the one connection its transactions share, whether the server answered last, and the
// one place a connection is made.
import Locking
import StoreInterface
import Synchronization

/// Runs transactions on one connection, one at a time, connecting again after a failure; its listeners make
/// their connections here too. Modelled on postgres-nio's `PostgresClient`, with libpq's blocking calls.
final class PostgresClient: Sendable {
    /// The URL with its password masked, for messages.
    let displayName: String
    private let conninfo: String
    private let pq: LibPQ
    private let timeouts: PostgresTimeouts
    /// The one connection used for reads and writes (nil after a failure until the next transaction connects).
    /// A transaction holds the lock for its whole run, blocking libpq calls included: a libpq connection runs
    /// one transaction at a time, so the other callers wait their turn (in the kernel, as on any pthread mutex).
    private let slot = Locked<PostgresConnection?>(nil)
    private let available = Atomic<Bool>(false)

    /// Loads libpq; `migrate` connects at once and migrates the schema (the keyword store and the registry do;
    /// the queue relies on the keyword store opened before it). Throws `unavailable` when the server cannot be
    /// reached (retry later) and `failed` when libpq is missing or the schema cannot be migrated.
    init(url: String, timeouts: PostgresTimeouts = PostgresTimeouts(), migrate: Bool) throws(KeywordStoreError) {
        displayName = StoreLocation.masked(url)
        conninfo = Self.withDefaults(url)
        pq = try LibPQ.load()
        self.timeouts = timeouts
        guard migrate else { return }
        do {
            let connection = try connect()
            try PostgresSchema.migrate(connection)
            slot.withLock { $0 = connection }
        } catch .connection(let message) {
            throw .unavailable("\(displayName): \(message)")
        } catch {
            throw .failed("\(displayName): cannot migrate the schema: \(error)")
        }
        available.store(true, ordering: .relaxed)
    }

    /// A new connection: the one place the package makes one.
    func connect() throws(PostgresError) -> PostgresConnection {
        try PostgresConnection(conninfo: conninfo, pq: pq)
    }

    /// Whether the last transaction (or the listener) reached the server.
    var isAvailable: Bool { available.load(ordering: .relaxed) }

    func setAvailable(_ value: Bool) { available.store(value, ordering: .relaxed) }

    /// Runs `body` in a transaction on the shared connection, connecting first when needed; a connection found
    /// dead at BEGIN is replaced once, since nothing was sent yet. Its statements run under `kind`'s limits
    /// (`SET LOCAL`, so they end with the transaction). When `body` throws, the transaction is rolled back, or
    /// the connection dropped when it was lost. Errors of the client itself come to the caller through `lift`.
    func withTransaction<T, Failure: Error>(_ kind: PostgresTimeouts.Kind,
                                            lift: (KeywordStoreError) -> Failure,
                                            _ body: (PostgresConnection) throws(Failure) -> T) throws(Failure) -> T {
        try slot.withLock { (slot: inout PostgresConnection?) throws(Failure) -> T in
            var attempt = 0
            while true {
                attempt += 1
                let connection: PostgresConnection
                if let existing = slot, existing.isConnected {
                    connection = existing
                } else {
                    slot = nil
                    do {
                        connection = try connect()
                    } catch {
                        setAvailable(false)
                        throw lift(.unavailable("\(displayName): \(error)"))
                    }
                    slot = connection
                }
                do throws(PostgresError) {
                    try connection.exec("BEGIN")
                    let (statement, lock) = timeouts.milliseconds(kind)
                    try connection.exec("SELECT set_config('statement_timeout', $1, true), set_config('lock_timeout', $2, true)",
                                        ["\(statement)ms", "\(lock)ms"])
                } catch {
                    slot = nil
                    if attempt < 2, case .connection = error { continue }
                    setAvailable(false)
                    throw lift(.unavailable("\(displayName): \(error)"))
                }
                let result: T
                do throws(Failure) {
                    result = try body(connection)
                } catch {
                    if connection.isConnected {
                        _ = try? connection.exec("ROLLBACK")
                    } else {
                        slot = nil
                        setAvailable(false)
                    }
                    throw error
                }
                do throws(PostgresError) {
                    try connection.exec("COMMIT")
                } catch {
                    throw lift(fail(error, on: &slot))
                }
                setAvailable(true)
                return result
            }
        }
    }

    /// What a failed statement means for the store: a lost connection or a limit that fired is `unavailable`
    /// (503 `store_unavailable`), anything else `failed`. A lost connection is dropped.
    func fail(_ error: PostgresError, on slot: inout PostgresConnection?) -> KeywordStoreError {
        switch error {
        case .connection(let message):
            slot = nil
            setAvailable(false)
            return .unavailable("\(displayName): \(message)")
        case .query(let state, let message) where PostgresTimeouts.fired(state):
            return .unavailable("\(displayName): \(message)")
        default:
            return .failed("\(displayName): \(error)")
        }
    }

    /// What a failed statement of a transaction body means for the store (see `fail(_:on:)`); the connection is
    /// dropped by `withTransaction` when it was lost.
    func storeError(_ error: any Error) -> KeywordStoreError {
        switch error {
        case let error as KeywordStoreError:
            return error
        case PostgresError.connection(let message):
            return .unavailable("\(displayName): \(message)")
        case PostgresError.query(let state, let message) where PostgresTimeouts.fired(state):
            return .unavailable("\(displayName): \(message)")
        default:
            return .failed("\(displayName): \(error)")
        }
    }

    /// Adds `connect_timeout=3` and `application_name=kwsuggest` unless the URL sets them.
    static func withDefaults(_ url: String) -> String {
        var text = url
        for (key, value) in [("connect_timeout", "3"), ("application_name", "kwsuggest")] where !text.contains("\(key)=") {
            text += (text.contains("?") ? "&" : "?") + "\(key)=\(value)"
        }
        return text
    }
}
