// The annotation queue in PostgreSQL, shared by every replica.
import Foundation
import Locking
import StoreInterface
import StrictJSON
import TeamQueue

/// Items as rows (the item's JSON document plus columns derived from it by the item rules, for ordering,
/// filtering and the figures), decisions as rows. Each operation is one transaction: a lease locks its
/// candidate rows with `FOR UPDATE SKIP LOCKED`, so replicas leasing at once each get their own items without
/// waiting on each other, and a decision locks its items with `FOR UPDATE`. The tables come from the store's
/// schema migrations (`PostgresSchema`); the keyword store that runs them must be opened first.
public final class PostgresQueueStore: QueueStore, @unchecked Sendable {
    public let policy: QueuePolicy
    private let displayName: String
    private let feedbackStore: any KeywordStore
    /// Like the keyword store's: one connection, one transaction at a time under the request limits, connected
    /// again after a failure.
    private let client: PostgresClient

    public init(url: String, feedbackStore: any KeywordStore, policy: QueuePolicy) throws(KeywordStoreError) {
        displayName = PostgresKeywordStore.masked(url)
        client = try PostgresClient(url: url, migrate: false)
        self.feedbackStore = feedbackStore
        self.policy = policy
    }

    private var operations: QueueOperations { QueueOperations(policy: policy, feedbackStore: feedbackStore) }

    public func enqueue(_ submissions: [QueueSubmission], at now: QueueTime) throws(QueueError) -> EnqueueSummary {
        let operations = self.operations
        return try transaction { (workspace: inout RowWorkspace) throws(QueueError) in
            try operations.enqueue(submissions, at: now, in: &workspace)
        }
    }

    public func lease(_ request: LeaseRequest, at now: QueueTime) throws(QueueError) -> QueueLease {
        let operations = self.operations
        return try transaction { (workspace: inout RowWorkspace) throws(QueueError) in
            try operations.lease(request, id: LeaseID.make(), at: now, in: &workspace)
        }
    }

    public func decide(_ request: DecisionRequest, at now: QueueTime) throws(QueueError) -> [QueueDecision] {
        let operations = self.operations
        return try transaction { (workspace: inout RowWorkspace) throws(QueueError) in
            try operations.decide(request, at: now, in: &workspace)
        }
    }

    public func undo(annotator: String, at now: QueueTime) throws(QueueError) -> QueueDecision {
        let operations = self.operations
        return try transaction { (workspace: inout RowWorkspace) throws(QueueError) in
            try operations.undo(annotator: annotator, at: now, in: &workspace)
        }
    }

    public func stats(at now: QueueTime) throws(QueueError) -> QueueStats {
        try transaction { (workspace: inout RowWorkspace) throws(QueueError) in
            var stats = QueueStats()
            let time = String(now)
            for row in try workspace.run("""
                SELECT CASE WHEN state = 'open' AND coalesce(held_until, 0) > $1 THEN 'leased' ELSE state END, count(*)
                FROM kwsuggest_queue_items GROUP BY 1
                """, [time]) {
                let count = Int(row[1] ?? "0") ?? 0
                switch row[0] {
                case "open": stats.items.queued = count
                case "leased": stats.items.leased = count
                case "labelled": stats.items.labelled = count
                case "flagged": stats.items.flagged = count
                default: break
                }
            }
            let figures = try workspace.run("""
                SELECT count(*) FILTER (WHERE auto_accepted), count(audit_outcome), count(*) FILTER (WHERE audit_outcome),
                       count(overlap_outcome), count(*) FILTER (WHERE overlap_outcome)
                FROM kwsuggest_queue_items
                """).first ?? []
            let number = { (index: Int) in figures.count > index ? Int(figures[index] ?? "0") ?? 0 : 0 }
            stats.autoAccepted = number(0)
            stats.audited = number(1)
            stats.auditAgreed = number(2)
            stats.overlapItems = number(3)
            stats.agreed = number(4)
            for row in try workspace.run("""
                SELECT annotator, count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds)
                FROM kwsuggest_queue_decisions WHERE NOT undone GROUP BY annotator
                """) {
                guard let annotator = row[0] else { continue }
                stats.annotators[annotator] = QueueStats.Annotator(decisions: Int(row[1] ?? "0") ?? 0,
                                                                   medianSeconds: row[2].flatMap { Double($0) })
            }
            return stats
        }
    }

    public func labels(after cursor: LabelCursor?, limit: Int) throws(QueueError) -> [QueueLabel] {
        try transaction { (workspace: inout RowWorkspace) throws(QueueError) in
            let rows = try workspace.run("""
                SELECT doc::text FROM kwsuggest_queue_items
                WHERE label_at IS NOT NULL
                  AND (label_at > $1::bigint OR (label_at = $1::bigint AND ($2::text IS NULL OR id COLLATE "C" > $2 COLLATE "C")))
                ORDER BY label_at, id COLLATE "C" LIMIT $3
                """, [String(cursor?.at ?? .min), cursor?.id, String(max(0, limit))])
            var labels: [QueueLabel] = []
            for row in rows {
                if let label = try workspace.decodeItem(row.first ?? nil).label { labels.append(label) }
            }
            return labels
        }
    }

    public func flagged(after cursor: LabelCursor?, limit: Int) throws(QueueError) -> [QueueFlag] {
        try transaction { (workspace: inout RowWorkspace) throws(QueueError) in
            // Paged in SQL in the order `QueueFlag.page` states (the contract tests hold both stores to it).
            let rows = try workspace.run("""
                SELECT doc::text FROM kwsuggest_queue_items
                WHERE state = 'flagged'
                  AND ((doc->'flag'->>'at')::bigint > $1::bigint
                       OR ((doc->'flag'->>'at')::bigint = $1::bigint AND ($2::text IS NULL OR id COLLATE "C" > $2 COLLATE "C")))
                ORDER BY (doc->'flag'->>'at')::bigint, id COLLATE "C" LIMIT $3
                """, [String(cursor?.at ?? .min), cursor?.id, String(max(0, limit))])
            var flags: [QueueFlag] = []
            for row in rows {
                if let flag = QueueFlag(try workspace.decodeItem(row.first ?? nil)) { flags.append(flag) }
            }
            return flags
        }
    }

    public func withdrawnFeedback() throws(QueueError) -> Set<Int64> {
        try transaction { (workspace: inout RowWorkspace) throws(QueueError) in
            var ids = Set<Int64>()
            for row in try workspace.run("SELECT jsonb_array_elements(feedback)::text FROM kwsuggest_queue_decisions WHERE undone") {
                if let id = row[0].flatMap({ Int64($0) }) { ids.insert(id) }
            }
            return ids
        }
    }

    public func evidence(model: String?) throws(QueueError) -> [QueueEvidence] {
        try transaction { (workspace: inout RowWorkspace) throws(QueueError) in
            var evidence: [QueueEvidence] = []
            for row in try workspace.run("""
                SELECT evidence::text FROM kwsuggest_queue_decisions
                WHERE evidence IS NOT NULL AND NOT undone AND ($1::text IS NULL OR evidence->>'model' = $1)
                ORDER BY id
                """, [model]) {
                evidence.append(try workspace.decodeEvidence(row.first ?? nil))
            }
            return evidence
        }
    }

    public func keywordCounts() throws(QueueError) -> [String: QueueKeywordCounts] {
        try transaction { (workspace: inout RowWorkspace) throws(QueueError) in
            var counts: [String: QueueKeywordCounts] = [:]
            for row in try workspace.run("""
                SELECT top_keyword, count(*) FILTER (WHERE state = 'open'), count(*) FILTER (WHERE auto_accepted)
                FROM kwsuggest_queue_items WHERE top_keyword IS NOT NULL GROUP BY top_keyword
                """) {
                guard row.count == 3, let keyword = row[0] else { continue }
                counts[keyword] = QueueKeywordCounts(queued: Int(row[1] ?? "0") ?? 0, autoAccepted: Int(row[2] ?? "0") ?? 0)
            }
            return counts
        }
    }

    // MARK: Transactions

    /// Runs `body` in a transaction on the client's connection (see `PostgresClient.withTransaction`); rolls back
    /// when `body` throws.
    private func transaction<T>(_ body: (inout RowWorkspace) throws(QueueError) -> T) throws(QueueError) -> T {
        let displayName = self.displayName
        return try client.withTransaction(.request, lift: { QueueError.store($0) }) { connection throws(QueueError) -> T in
            var workspace = RowWorkspace(connection: connection, displayName: displayName)
            return try body(&workspace)
        }
    }
}

/// One transaction's view of the queue tables.
struct RowWorkspace: QueueWorkspace {
    let connection: PostgresConnection
    let displayName: String

    /// Runs a statement; a lost connection or a statement or lock timeout that fired is `unavailable` (503 with
    /// `Retry-After`, as the keyword store answers), anything else `failed`, both naming the store.
    @discardableResult
    func run(_ sql: String, _ parameters: [String?] = []) throws(QueueError) -> [[String?]] {
        do {
            return try connection.exec(sql, parameters)
        } catch .connection(let message) {
            throw .store(.unavailable("\(displayName): \(message)"))
        } catch .query(let state, let message) where PostgresTimeouts.fired(state) {
            throw .store(.unavailable("\(displayName): \(message)"))
        } catch {
            throw .store(.failed("\(displayName): \(error)"))
        }
    }

    func decodeItem(_ text: String?) throws(QueueError) -> QueueItem {
        guard let text else { throw .store(.failed("\(displayName): a kwsuggest_queue_items row has no document")) }
        do {
            return try QueueLine.item(fromDocument: text)
        } catch {
            throw .store(.failed("\(displayName): kwsuggest_queue_items: \(error)"))
        }
    }

    func decodeEvidence(_ text: String?) throws(QueueError) -> QueueEvidence {
        guard let text else { throw .store(.failed("\(displayName): a kwsuggest_queue_decisions row has no evidence")) }
        do {
            return try QueueLine.evidence(fromDocument: text)
        } catch {
            throw .store(.failed("\(displayName): kwsuggest_queue_decisions: \(error)"))
        }
    }

    mutating func item(_ id: String) throws(QueueError) -> QueueItem? {
        guard let row = try run("SELECT doc::text FROM kwsuggest_queue_items WHERE id = $1 FOR UPDATE", [id]).first else {
            return nil
        }
        return try decodeItem(row[0])
    }

    mutating func candidates(for request: LeaseRequest, at now: QueueTime, _ take: (QueueItem) -> Bool) throws(QueueError) {
        let batch = request.count * 2 + 16
        // The key of the last row read: the next batch starts after it in the lease's order.
        var after: (confidence: String, enqueuedAt: String, id: String)?
        // Columns are qualified: a bare name in ORDER BY would mean the output column of that name (the text).
        let (order, keyset): (String, String)
        switch request.order {
        case .uncertain:
            order = "i.confidence, i.enqueued_at, i.id COLLATE \"C\""
            keyset = "(i.confidence, i.enqueued_at, i.id COLLATE \"C\") > ($4::float8, $5::bigint, $6 COLLATE \"C\")"
        case .confident:
            order = "i.confidence DESC, i.enqueued_at, i.id COLLATE \"C\""
            keyset = "(i.confidence < $4::float8 OR (i.confidence = $4::float8 AND (i.enqueued_at, i.id COLLATE \"C\") > ($5::bigint, $6 COLLATE \"C\")))"
        case .oldest:
            order = "i.enqueued_at, i.id COLLATE \"C\""
            keyset = "($4::float8 IS NOT NULL AND (i.enqueued_at, i.id COLLATE \"C\") > ($5::bigint, $6 COLLATE \"C\"))"
        }
        while true {
            let rows = try run("""
                SELECT i.doc::text, i.confidence::text AS confidence_text, i.enqueued_at::text AS enqueued_text, i.id
                FROM kwsuggest_queue_items i
                WHERE i.state = 'open' AND i.available_at <= $1 AND ($2::text IS NULL OR i.top_keyword = $2)
                  AND ($4::float8 IS NULL OR \(keyset))
                ORDER BY \(order) LIMIT $3 FOR UPDATE SKIP LOCKED
                """, [String(now), request.keyword, String(batch), after?.confidence, after?.enqueuedAt, after?.id])
            for row in rows {
                guard row.count == 4, let confidence = row[1], let enqueuedAt = row[2], let id = row[3] else { continue }
                after = (confidence, enqueuedAt, id)
                guard take(try decodeItem(row[0])) else { return }
            }
            if rows.count < batch { return }
        }
    }

    mutating func save(_ item: QueueItem) throws(QueueError) {
        let held = item.holds.map(\.until).max()
        try run("""
            INSERT INTO kwsuggest_queue_items (id, doc, state, top_keyword, confidence, enqueued_at, available_at, held_until,
                                               auto_accepted, audit_outcome, overlap_outcome, label_at)
            VALUES ($1, $2::jsonb, $3, $4, $5::float8, $6::bigint, $7::bigint, $8::bigint, $9::boolean, $10::boolean,
                    $11::boolean, $12::bigint)
            ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, state = EXCLUDED.state, top_keyword = EXCLUDED.top_keyword,
                confidence = EXCLUDED.confidence, enqueued_at = EXCLUDED.enqueued_at, available_at = EXCLUDED.available_at,
                held_until = EXCLUDED.held_until, auto_accepted = EXCLUDED.auto_accepted,
                audit_outcome = EXCLUDED.audit_outcome, overlap_outcome = EXCLUDED.overlap_outcome, label_at = EXCLUDED.label_at
            """, [item.id, QueueLine.itemDocument(item), item.state.rawValue, item.topKeyword, String(item.confidence),
                  String(item.enqueuedAt), item.leasableFrom.map { String($0) }, held.map { String($0) },
                  String(item.modelKeyword != nil), item.auditOutcome.map { String($0) },
                  item.overlapOutcome.map { String($0) }, item.label.map { String($0.at) }])
    }

    mutating func heldCount(by annotator: String, at now: QueueTime) throws(QueueError) -> Int {
        // One lease per annotator at a time past this point (until the transaction ends), so two cannot both
        // count the same room under the cap.
        try run("SELECT pg_advisory_xact_lock(hashtext('kwsuggest_queue_lease'), hashtext($1))", [annotator])
        let rows = try run("""
            SELECT count(*) FROM kwsuggest_queue_items i, jsonb_array_elements(i.doc->'holds') h
            WHERE i.state = 'open' AND i.held_until > $2::bigint
              AND h->>'annotator' = $1 AND (h->>'until')::bigint > $2::bigint
            """, [annotator, String(now)])
        return Int(rows.first?.first.flatMap { $0 } ?? "0") ?? 0
    }

    mutating func latestDecisions(of annotator: String, limit: Int) throws(QueueError) -> [QueueDecision] {
        let rows = try run("""
            SELECT id, item, kind, lease, keywords::text, feedback::text, at, seconds, undone, evidence::text
            FROM kwsuggest_queue_decisions WHERE annotator = $1 ORDER BY id DESC LIMIT $2 FOR UPDATE
            """, [annotator, String(limit)])
        var decisions: [QueueDecision] = []
        for row in rows {
            guard row.count == 10, let id = row[0].flatMap({ Int64($0) }), let item = row[1],
                  let kind = row[2].flatMap({ QueueDecisionKind(rawValue: $0) }), let lease = row[3],
                  let keywords = row[4].flatMap({ try? JSONDecoding.decode([String].self, from: Array($0.utf8)) }),
                  let feedback = row[5].flatMap({ try? JSONDecoding.decode([Int64].self, from: Array($0.utf8)) }),
                  let at = row[6].flatMap({ Int64($0) }), let seconds = row[7].flatMap({ Double($0) }) else {
                throw .store(.failed("\(displayName): a kwsuggest_queue_decisions row is incomplete"))
            }
            let decision = QueueDecision(id: id, annotator: annotator, item: item, kind: kind, lease: lease,
                                         keywords: keywords, feedback: feedback, at: at, seconds: seconds, undone: row[8] == "t",
                                         evidence: try row[9].map { text throws(QueueError) in try decodeEvidence(text) })
            do {
                try QueueRules.check(decision)
            } catch {
                throw .store(.failed("\(displayName): kwsuggest_queue_decisions row \(id) is not a decision as the API stores it: \(error.field): \(error.message)"))
            }
            decisions.append(decision)
        }
        return decisions
    }

    mutating func decisionCount(of annotator: String, on item: String) throws(QueueError) -> Int {
        let rows = try run("SELECT count(*) FROM kwsuggest_queue_decisions WHERE annotator = $1 AND item = $2", [annotator, item])
        return Int(rows.first?.first.flatMap { $0 } ?? "0") ?? 0
    }

    mutating func nextDecisionID() throws(QueueError) -> Int64 {
        let rows = try run("SELECT nextval(pg_get_serial_sequence('kwsuggest_queue_decisions', 'id'))")
        guard let id = rows.first?.first.flatMap({ $0 }).flatMap({ Int64($0) }) else {
            throw .store(.failed("\(displayName): the decision id sequence returned nothing"))
        }
        return id
    }

    mutating func record(_ decision: QueueDecision) throws(QueueError) {
        try run("""
            INSERT INTO kwsuggest_queue_decisions (id, annotator, item, kind, lease, keywords, feedback, at, seconds, undone,
                                                   evidence)
            VALUES ($1::bigint, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8::bigint, $9::float8, $10::boolean, $11::jsonb)
            ON CONFLICT (id) DO UPDATE SET undone = EXCLUDED.undone
            """, [String(decision.id), decision.annotator, decision.item, decision.kind.rawValue, decision.lease,
                  Self.json(decision.keywords.map { .string($0) }), Self.json(decision.feedback.map { .int(Int($0)) }),
                  String(decision.at), String(decision.seconds), String(decision.undone),
                  decision.evidence.map(QueueLine.evidenceDocument)])
    }

    private enum Element {
        case string(String)
        case int(Int)
    }

    private static func json(_ elements: [Element]) -> String {
        var json = JSONWriter()
        json.array { json in
            for element in elements {
                switch element {
                case .string(let text): json.string(text)
                case .int(let number): json.int(number)
                }
            }
        }
        return String(decoding: json.bytes, as: UTF8.self)
    }
}
