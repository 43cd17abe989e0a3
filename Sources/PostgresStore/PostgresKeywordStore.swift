// The store for replicas: keyword changes and feedback in PostgreSQL, changes announced with LISTEN/NOTIFY.
import Foundation
import Locking
import Platform
import StrictJSON
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface

/// Keyword changes as rows (a change log plus the current additions and removals), feedback as rows, in one
/// PostgreSQL database shared by every replica.
///
/// A change runs in one transaction holding the row lock of `kwsuggest_keyword_head`, so concurrent changes
/// from any number of replicas apply one after the other, and it is acknowledged only after COMMIT. The
/// commit bumps the list revision and sends `NOTIFY kwsuggest_keywords`; each replica's listener thread
/// reloads on the notification, and also checks the revision every second in case a notification was missed.
/// While the database is down `isAvailable` is false, writes throw `unavailable`, and the listener reconnects
/// with backoff; on reconnecting it reports a change so the replica resyncs the whole list.
///
/// libpq is loaded with `dlopen` when the first store is made; credentials follow libpq's conventions
/// (the URL, `PGPASSWORD`, `PGPASSFILE`).
public final class PostgresKeywordStore: KeywordStore, @unchecked Sendable {
    public let displayName: String
    public var kind: String { "postgres" }
    public var isAvailable: Bool { client.isAvailable }

    /// The connection, its transactions and whether the server answered last.
    private let client: PostgresClient
    private let stopped = Atomic<Bool>(false)
    private let watching = Atomic<Bool>(false)

    /// Loads libpq, connects and migrates the schema. Throws `unavailable` when the server cannot be reached
    /// (retry later) and `failed` when libpq is missing or the schema cannot be migrated.
    public init(url: String, timeouts: PostgresTimeouts = PostgresTimeouts()) throws(KeywordStoreError) {
        displayName = Self.masked(url)
        client = try PostgresClient(url: url, timeouts: timeouts, migrate: true)
    }

    deinit {
        stopped.store(true, ordering: .relaxed)
    }

    /// Loads libpq now, so a missing library is reported before anything starts (one line naming libpq5).
    public static func loadLibrary() throws(KeywordStoreError) {
        _ = try LibPQ.load()
    }

    // MARK: Keywords

    /// The overlay, with the list revision it belongs to (see `KeywordOverlay.revision`): the head row is read
    /// first and share-locked, so no change commits between it and the keywords.
    public func loadOverlay() throws(KeywordStoreError) -> KeywordOverlay {
        try transaction { connection in
            let head = try connection.rows("SELECT revision FROM kwsuggest_keyword_head FOR SHARE")
            var overlay = try Self.readOverlay(connection).overlay
            overlay.revision = try head.first?.uint64(0)
            return overlay
        }
    }

    public func apply(_ change: KeywordChange,
                      check: (KeywordOverlay) throws(KeywordStoreError) -> Void) throws(KeywordStoreError) -> KeywordOverlay {
        try transaction { connection in
            guard let head = try connection.rows("SELECT revision FROM kwsuggest_keyword_head FOR UPDATE").first else {
                throw KeywordStoreError.failed("\(displayName): kwsuggest_keyword_head has no row")
            }
            let current = try head.int64(0)
            var (overlay, lastPosition) = try Self.readOverlay(connection)
            overlay.revision = UInt64(current)
            try check(overlay)
            var next = overlay.applying(add: change.add, remove: change.remove)
            next.revision = UInt64(current + 1)
            let nextRevision = String(current + 1)
            for (op, keywords) in [("add", change.add), ("remove", change.remove)] {
                for keyword in keywords {
                    try connection.exec("""
                        INSERT INTO kwsuggest_keyword_changes (revision, op, keyword, request_id, actor)
                        VALUES ($1, $2, $3, $4, $5)
                        """, [nextRevision, op, keyword, change.requestID, change.actor])
                }
            }
            try Self.writeDifference(from: overlay, to: next, after: lastPosition, connection)
            try connection.exec("UPDATE kwsuggest_keyword_head SET revision = $1", [nextRevision])
            try connection.exec("SELECT pg_notify($1, $2)", [PostgresSchema.channel, nextRevision])
            return next
        }
    }

    public func replaceOverlay(_ overlay: KeywordOverlay,
                               check: (KeywordOverlay) throws(KeywordStoreError) -> Void) throws(KeywordStoreError) {
        try transaction(.bulk) { connection in
            try connection.exec("SELECT revision FROM kwsuggest_keyword_head FOR UPDATE")
            try check(overlay)
            try connection.exec("DELETE FROM kwsuggest_keywords")
            try Self.writeDifference(from: KeywordOverlay(), to: overlay, after: 0, connection)
            let rows = try connection.rows("UPDATE kwsuggest_keyword_head SET revision = revision + 1 RETURNING revision")
            try connection.exec("SELECT pg_notify($1, $2)", [PostgresSchema.channel, String(try rows.first?.int64(0) ?? 0)])
        }
    }

    /// The current overlay and the largest position used.
    private static func readOverlay(_ connection: PostgresConnection) throws -> (overlay: KeywordOverlay, lastPosition: Int64) {
        var overlay = KeywordOverlay()
        var last: Int64 = 0
        for row in try connection.rows("SELECT keyword, state, position FROM kwsuggest_keywords ORDER BY position, keyword") {
            let keyword = try row.string(0)
            if try row.string(1) == "added" { overlay.added.append(keyword) } else { overlay.removed.append(keyword) }
            last = max(last, try row.int64(2))
        }
        return (overlay, last)
    }

    /// Upserts the keywords that entered either list; order of additions is kept by increasing positions.
    private static func writeDifference(from old: KeywordOverlay, to new: KeywordOverlay, after lastPosition: Int64,
                                        _ connection: PostgresConnection) throws {
        var position = lastPosition
        let oldAdded = Set(old.added), oldRemoved = Set(old.removed)
        for (state, keywords, before) in [("added", new.added, oldAdded), ("removed", new.removed, oldRemoved)] {
            for keyword in keywords where !before.contains(keyword) {
                position += 1
                try connection.exec("""
                    INSERT INTO kwsuggest_keywords (keyword, state, position) VALUES ($1, $2, $3)
                    ON CONFLICT (keyword) DO UPDATE SET state = EXCLUDED.state, position = EXCLUDED.position
                    """, [keyword, state, String(position)])
            }
        }
    }

    // MARK: Feedback

    public func appendFeedback(_ items: [FeedbackItem]) throws(KeywordStoreError) -> [FeedbackReceipt] {
        guard !items.isEmpty else { return [] }
        return try transaction { connection in
            // One writer at a time, so ids become visible in increasing order and `since` paging misses nothing.
            try connection.exec("LOCK TABLE kwsuggest_feedback IN SHARE ROW EXCLUSIVE MODE")
            let now = UTCTime.now()
            let client = self.client
            // A refused batch throws out of the transaction, which rolls back what was inserted.
            return try FeedbackAppend.receipts(
                for: items, receivedAt: now,
                earlier: { (key) throws(KeywordStoreError) -> FeedbackRecord? in
                    do {
                        return try connection.rows("SELECT \(Self.recordColumns) FROM kwsuggest_feedback WHERE client_id = $1",
                                                   [key]).first.map { row throws(KeywordStoreError) in try record(row) }
                    } catch {
                        throw client.storeError(error)
                    }
                },
                write: { (item) throws(KeywordStoreError) -> Int64 in
                    let id: Int64
                    do {
                        let rows = try connection.rows("""
                            INSERT INTO kwsuggest_feedback (client_id, received_at, name, keyword, action, shown, model, annotator)
                            VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id
                            """, [item.clientID, now, item.name, item.keyword, item.action.rawValue, Self.jsonArray(item.shown),
                                  item.model, item.annotator])
                        guard let row = rows.first else { throw KeywordStoreError.failed("\(displayName): INSERT returned no id") }
                        id = try row.int64(0)
                    } catch {
                        throw client.storeError(error)
                    }
                    // The sequence counts past the largest id an import may give; the batch is rolled back.
                    guard id <= FeedbackRules.maxRecordID else {
                        throw .failed("\(displayName): record ids are used up (a store gives at most "
                            + "\(FeedbackRules.maxRecordID)); nothing was stored")
                    }
                    return id
                })
        }
    }

    public func importFeedback(_ records: [FeedbackRecord]) throws(KeywordStoreError) -> Int {
        try FeedbackRules.checkImportable(records)
        return try transaction(.bulk) { connection in
            try connection.exec("LOCK TABLE kwsuggest_feedback IN SHARE ROW EXCLUSIVE MODE")
            var stored = 0
            for record in records.sorted(by: { $0.id < $1.id }) {
                let item = record.item
                let rows = try connection.exec("""
                    INSERT INTO kwsuggest_feedback (id, client_id, received_at, name, keyword, action, shown, model, annotator)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING RETURNING id
                    """, [String(record.id), item.clientID.map(FeedbackRules.clientKey), record.receivedAt, item.name, item.keyword, item.action.rawValue,
                          Self.jsonArray(item.shown), item.model, item.annotator])
                stored += rows.count
            }
            try connection.exec("""
                SELECT setval(pg_get_serial_sequence('kwsuggest_feedback', 'id'),
                              greatest((SELECT max(id) FROM kwsuggest_feedback), 1))
                """)
            return stored
        }
    }

    public func lastFeedbackID(after: Int64, limit: Int?) throws(KeywordStoreError) -> Int64? {
        try transaction { connection in
            let rows: [PostgresRow]
            if let limit {
                rows = try connection.rows("""
                    SELECT max(id) FROM (SELECT id FROM kwsuggest_feedback WHERE id > $1 ORDER BY id LIMIT $2) AS page
                    """, [String(after), String(max(1, limit))])
            } else {
                rows = try connection.rows("SELECT max(id) FROM kwsuggest_feedback WHERE id > $1", [String(after)])
            }
            return try rows.first?.optionalInt64(0)
        }
    }

    public func feedback(after: Int64, limit: Int) throws(KeywordStoreError) -> [FeedbackRecord] {
        try transaction { connection in
            let rows = try connection.rows("""
                SELECT \(Self.recordColumns) FROM kwsuggest_feedback WHERE id > $1 ORDER BY id LIMIT $2
                """, [String(after), String(min(limit, Int(Int64.max)))])
            return try rows.map { row throws(KeywordStoreError) -> FeedbackRecord in try record(row) }
        }
    }

    /// The columns `record(_:)` reads, in its order.
    private static let recordColumns = """
        id, client_id, to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        name, keyword, action, shown::text, model, annotator
        """

    /// One `recordColumns` row as a record.
    private func record(_ row: PostgresRow) throws(KeywordStoreError) -> FeedbackRecord {
        let id: Int64, item: FeedbackItem, received: String
        let shownText: String?
        do throws(PostgresRowError) {
            id = try row.int64(0)
            received = try row.string(2)
            let actionText = try row.string(5)
            guard let action = FeedbackAction(rawValue: actionText) else {
                throw PostgresRowError(column: 5, problem: "is not a feedback action: '\(actionText.prefix(40))'")
            }
            item = FeedbackItem(name: try row.string(3), keyword: try row.string(4), action: action, shown: [],
                                model: try row.optionalString(7), annotator: try row.optionalString(8),
                                clientID: try row.optionalString(1))
            shownText = try row.optionalString(6)
        } catch {
            throw .failed("\(displayName): a kwsuggest_feedback row is incomplete: \(error)")
        }
        var record = FeedbackRecord(id: id, receivedAt: received, item: item)
        if let shownText {
            guard let decoded = try? JSONDecoding.decode([String].self, from: Array(shownText.utf8)) else {
                throw .failed("\(displayName): kwsuggest_feedback row \(id) has a 'shown' column that is not a JSON array of strings")
            }
            record.item.shown = decoded
        }
        return record
    }

    private static func jsonArray(_ strings: [String]) -> String {
        var json = JSONWriter()
        json.array { json in
            for string in strings { json.string(string) }
        }
        return String(decoding: json.bytes, as: UTF8.self)
    }

    // MARK: Transactions

    /// Runs `body` in a transaction of `kind` on the client's connection (see `PostgresClient.withTransaction`):
    /// a limit that fires is `unavailable` (503 `store_unavailable`), the transaction rolled back and the
    /// connection kept.
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

    // MARK: Watching

    public func startWatching(_ onChange: @escaping @Sendable (String) -> Void) {
        guard !watching.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [weak self] in
            var listener = PostgresListener(.init(name: PostgresSchema.channel,
                                                  revisionQuery: "SELECT revision FROM kwsuggest_keyword_head",
                                                  connectedReason: ChangeListenerMachine.connectedReason, reportsAvailability: true))
            while let self, !self.stopped.load(ordering: .relaxed) {
                listener.step(self.client, onChange: onChange)
            }
        }
        thread.name = "kwsuggest-store-listen"
        thread.start()
    }

    public func close() {
        stopped.store(true, ordering: .relaxed)
    }

    // MARK: URLs

    /// The URL with its password replaced by `***` (in the user-info part and in a `password=` parameter).
    public static func masked(_ url: String) -> String { StoreLocation.masked(url) }

    /// Adds `connect_timeout=3` and `application_name=kwsuggest` unless the URL sets them.
    static func withDefaults(_ url: String) -> String { PostgresClient.withDefaults(url) }
}
