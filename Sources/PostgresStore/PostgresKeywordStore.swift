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
            let head = try connection.exec("SELECT revision FROM kwsuggest_keyword_head FOR SHARE")
            var overlay = try Self.readOverlay(connection).overlay
            overlay.revision = (head.first?.first ?? nil).flatMap { UInt64($0) }
            return overlay
        }
    }

    public func apply(_ change: KeywordChange,
                      check: (KeywordOverlay) throws(KeywordStoreError) -> Void) throws(KeywordStoreError) -> KeywordOverlay {
        try transaction { connection in
            let revision = try connection.exec("SELECT revision FROM kwsuggest_keyword_head FOR UPDATE")
            guard let text = revision.first?.first ?? nil, let current = Int64(text) else {
                throw KeywordStoreError.failed("\(displayName): kwsuggest_keyword_head has no row")
            }
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
            let rows = try connection.exec("UPDATE kwsuggest_keyword_head SET revision = revision + 1 RETURNING revision")
            try connection.exec("SELECT pg_notify($1, $2)", [PostgresSchema.channel, rows.first?.first ?? "0"])
        }
    }

    /// The current overlay and the largest position used.
    private static func readOverlay(_ connection: PostgresConnection) throws -> (overlay: KeywordOverlay, lastPosition: Int64) {
        var overlay = KeywordOverlay()
        var last: Int64 = 0
        for row in try connection.exec("SELECT keyword, state, position FROM kwsuggest_keywords ORDER BY position, keyword") {
            guard row.count == 3, let keyword = row[0], let state = row[1] else { continue }
            if state == "added" { overlay.added.append(keyword) } else { overlay.removed.append(keyword) }
            last = max(last, row[2].flatMap { Int64($0) } ?? 0)
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
            let now = UTCTimestamp.now()
            var receipts: [FeedbackReceipt] = []
            var pending: [String: FeedbackRecord] = [:]
            for var item in items {
                if let client = item.clientID {
                    let key = FeedbackRules.clientKey(client)
                    item.clientID = key
                    var earlier = pending[key]
                    if earlier == nil {
                        earlier = try connection.exec("SELECT \(Self.recordColumns) FROM kwsuggest_feedback WHERE client_id = $1",
                                                      [key]).first.map { row throws(KeywordStoreError) in try record(row) }
                    }
                    if let earlier {
                        guard earlier.item.sameDecision(as: item) else {
                            throw KeywordStoreError.clientIDConflict(clientID: key, earlierID: earlier.id)
                        }
                        receipts.append(FeedbackReceipt(id: earlier.id, duplicate: true))
                        continue
                    }
                }
                let rows = try connection.exec("""
                    INSERT INTO kwsuggest_feedback (client_id, received_at, name, keyword, action, shown, model, annotator)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id
                    """, [item.clientID, now, item.name, item.keyword, item.action.rawValue, Self.jsonArray(item.shown),
                          item.model, item.annotator])
                guard let text = rows.first?.first ?? nil, let id = Int64(text) else {
                    throw KeywordStoreError.failed("\(displayName): INSERT returned no id")
                }
                // The sequence counts past the largest id an import may give; the batch is rolled back.
                guard id <= FeedbackRules.maxRecordID else {
                    throw KeywordStoreError.failed("\(displayName): record ids are used up (a store gives at most "
                        + "\(FeedbackRules.maxRecordID)); nothing was stored")
                }
                if let key = item.clientID { pending[key] = FeedbackRecord(id: id, receivedAt: now, item: item) }
                receipts.append(FeedbackReceipt(id: id, duplicate: false))
            }
            return receipts
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
            let rows: [[String?]]
            if let limit {
                rows = try connection.exec("""
                    SELECT max(id) FROM (SELECT id FROM kwsuggest_feedback WHERE id > $1 ORDER BY id LIMIT $2) AS page
                    """, [String(after), String(max(1, limit))])
            } else {
                rows = try connection.exec("SELECT max(id) FROM kwsuggest_feedback WHERE id > $1", [String(after)])
            }
            return rows.first?.first.flatMap { $0 }.flatMap { Int64($0) }
        }
    }

    public func feedback(after: Int64, limit: Int) throws(KeywordStoreError) -> [FeedbackRecord] {
        try transaction { connection in
            let rows = try connection.exec("""
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
    private func record(_ row: [String?]) throws(KeywordStoreError) -> FeedbackRecord {
        guard row.count == 9, let id = row[0].flatMap({ Int64($0) }), let received = row[2], let name = row[3],
              let keyword = row[4], let action = row[5].flatMap({ FeedbackAction(rawValue: $0) }) else {
            throw .failed("\(displayName): a kwsuggest_feedback row is incomplete")
        }
        var shown: [String] = []
        if let text = row[6] {
            guard let decoded = try? JSONDecoding.decode([String].self, from: Array(text.utf8)) else {
                throw .failed("\(displayName): kwsuggest_feedback row \(id) has a 'shown' column that is not a JSON array of strings")
            }
            shown = decoded
        }
        return FeedbackRecord(id: id, receivedAt: received,
                              item: FeedbackItem(name: name, keyword: keyword, action: action, shown: shown,
                                                 model: row[7], annotator: row[8], clientID: row[1]))
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
            var listener = ChangeListener()
            while let self, !self.stopped.load(ordering: .relaxed) {
                listener.step(self, onChange: onChange)
            }
        }
        thread.name = "kwsuggest-store-listen"
        thread.start()
    }

    public func close() {
        stopped.store(true, ordering: .relaxed)
    }

    /// The listener thread: its own connection, and the decisions of `ChangeListenerMachine` carried out.
    private struct ChangeListener {
        var connection: PostgresConnection?
        var machine = ChangeListenerMachine()

        mutating func step(_ store: PostgresKeywordStore, onChange: @Sendable (String) -> Void) {
            guard let connection else {
                let event: ChangeListenerMachine.Event
                do {
                    let fresh = try store.client.connect()
                    try fresh.exec("LISTEN \(PostgresSchema.channel)")
                    event = .connected(revision: try Self.currentRevision(fresh))
                    self.connection = fresh
                } catch {
                    event = .connectFailed
                }
                perform(machine.handle(event), store, onChange)
                return
            }
            var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 200)
            do {
                if !(try connection.notifications()).isEmpty {
                    perform(machine.handle(.notified(revision: try Self.currentRevision(connection))), store, onChange)
                }
                let now = monotonicNanoseconds()
                if machine.checkDue(now: now) {
                    perform(machine.handle(.checked(revision: try Self.currentRevision(connection), now: now)), store, onChange)
                }
            } catch {
                self.connection = nil
                perform(machine.handle(.lost), store, onChange)
            }
        }

        private func perform(_ effects: ChangeListenerMachine.Effects, _ store: PostgresKeywordStore,
                             _ onChange: @Sendable (String) -> Void) {
            if let available = effects.available { store.client.setAvailable(available) }
            if let reason = effects.change { onChange(reason) }
            if let wait = effects.wait { usleep(useconds_t(wait * 1_000_000)) }
        }

        static func currentRevision(_ connection: PostgresConnection) throws -> String? {
            try connection.exec("SELECT revision FROM kwsuggest_keyword_head").first?.first ?? nil
        }

        func monotonicNanoseconds() -> UInt64 { MonotonicClock.nanoseconds() }
    }

    // MARK: URLs

    /// The URL with its password replaced by `***` (in the user-info part and in a `password=` parameter).
    public static func masked(_ url: String) -> String { StoreLocation.masked(url) }

    /// Adds `connect_timeout=3` and `application_name=kwsuggest` unless the URL sets them.
    static func withDefaults(_ url: String) -> String { PostgresClient.withDefaults(url) }
}
