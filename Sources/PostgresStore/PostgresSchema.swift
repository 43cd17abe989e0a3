// The database schema, created and migrated at start.
import StoreInterface
import TeamQueue

/// Versioned migrations, applied in order under an advisory lock so replicas starting together do it once.
///
/// Every migration only adds (tables, columns, indexes): a replica of the previous version keeps working on
/// the new schema during a rolling update. Removing something takes two releases: stop using it, then drop it.
enum PostgresSchema {
    struct Migration {
        var version: Int
        var description: String
        var statements: [String]
    }

    /// An arbitrary constant naming kwsuggest's advisory lock.
    static let advisoryLock = "7236071823"
    /// The channel that announces a new keyword list revision (the payload is the revision).
    static let channel = "kwsuggest_keywords"
    /// The channel that announces a change of the model registry's head (the payload is its revision).
    static let modelChannel = "kwsuggest_models"

    static let migrations: [Migration] = [
        Migration(version: 1, description: "keyword change log, current keyword changes, feedback", statements: [
            """
            CREATE TABLE kwsuggest_keyword_head (
                singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                revision bigint NOT NULL
            )
            """,
            "INSERT INTO kwsuggest_keyword_head (singleton, revision) VALUES (true, 0)",
            """
            CREATE TABLE kwsuggest_keyword_changes (
                id bigserial PRIMARY KEY,
                revision bigint NOT NULL,
                op text NOT NULL CHECK (op IN ('add', 'remove')),
                keyword text NOT NULL,
                changed_at timestamptz NOT NULL DEFAULT now(),
                request_id text,
                actor text
            )
            """,
            """
            CREATE TABLE kwsuggest_keywords (
                keyword text PRIMARY KEY,
                state text NOT NULL CHECK (state IN ('added', 'removed')),
                position bigint NOT NULL
            )
            """,
            """
            CREATE TABLE kwsuggest_feedback (
                id bigserial PRIMARY KEY,
                client_id text UNIQUE,
                received_at timestamptz NOT NULL,
                name text NOT NULL,
                keyword text NOT NULL,
                action text NOT NULL CHECK (action IN ('accept', 'correct', 'reject')),
                shown jsonb NOT NULL,
                model text,
                annotator text
            )
            """,
        ]),
        Migration(version: 2, description: "model registry: catalog and file blobs", statements: [
            """
            CREATE TABLE IF NOT EXISTS kwsuggest_model_registry (
                singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                catalog text NOT NULL,
                revision bigint NOT NULL
            )
            """,
            "INSERT INTO kwsuggest_model_registry (singleton, catalog, revision) VALUES (true, '', 0) ON CONFLICT DO NOTHING",
            """
            CREATE TABLE IF NOT EXISTS kwsuggest_model_blobs (
                sha256 text NOT NULL,
                part integer NOT NULL,
                bytes bytea NOT NULL,
                PRIMARY KEY (sha256, part)
            )
            """,
        ]),
        Migration(version: 3, description: "annotation queue: items and decisions", statements: [
            // `doc` is the item (QueueLine); the other columns are derived from it by the item rules on every write.
            """
            CREATE TABLE kwsuggest_queue_items (
                id text PRIMARY KEY,
                doc jsonb NOT NULL,
                state text NOT NULL CHECK (state IN ('open', 'labelled', 'flagged')),
                top_keyword text,
                confidence double precision NOT NULL,
                enqueued_at bigint NOT NULL,
                available_at bigint,
                held_until bigint,
                auto_accepted boolean NOT NULL,
                audit_outcome boolean,
                overlap_outcome boolean,
                label_at bigint
            )
            """,
            "CREATE INDEX kwsuggest_queue_items_uncertain ON kwsuggest_queue_items (confidence, enqueued_at, id COLLATE \"C\") WHERE state = 'open'",
            "CREATE INDEX kwsuggest_queue_items_oldest ON kwsuggest_queue_items (enqueued_at, id COLLATE \"C\") WHERE state = 'open'",
            "CREATE INDEX kwsuggest_queue_items_keyword ON kwsuggest_queue_items (top_keyword, confidence) WHERE state = 'open'",
            "CREATE INDEX kwsuggest_queue_items_labels ON kwsuggest_queue_items (label_at, id COLLATE \"C\") WHERE label_at IS NOT NULL",
            """
            CREATE TABLE kwsuggest_queue_decisions (
                id bigserial PRIMARY KEY,
                annotator text NOT NULL,
                item text NOT NULL,
                kind text NOT NULL CHECK (kind IN ('label', 'skip', 'flag')),
                lease text NOT NULL,
                keywords jsonb NOT NULL,
                feedback jsonb NOT NULL,
                at bigint NOT NULL,
                seconds double precision NOT NULL,
                undone boolean NOT NULL DEFAULT false
            )
            """,
            "CREATE INDEX kwsuggest_queue_decisions_annotator ON kwsuggest_queue_decisions (annotator, id)",
            "CREATE INDEX kwsuggest_queue_decisions_undone ON kwsuggest_queue_decisions (id) WHERE undone",
        ]),
        Migration(version: 4, description: "annotation queue: the evidence each label gives about the model", statements: [
            // `evidence` is the decision's QueueEvidence document (QueueLine); null for skips, flags and labels
            // of items without suggestions. The auto-accept rule reads a model's standing evidence.
            "ALTER TABLE kwsuggest_queue_decisions ADD COLUMN IF NOT EXISTS evidence jsonb",
            """
            CREATE INDEX IF NOT EXISTS kwsuggest_queue_decisions_evidence
            ON kwsuggest_queue_decisions ((evidence->>'model'), id) WHERE evidence IS NOT NULL AND NOT undone
            """,
        ]),
    ]

    /// Brings the schema to the newest version this build knows. A schema newer than that (a replica of a
    /// later release ran first) is left alone: migrations only add, so this replica still works on it.
    static func migrate(_ connection: PostgresConnection) throws(PostgresError) {
        try connection.exec("BEGIN")
        do {
            // CREATE … IF NOT EXISTS on an existing table sends a NOTICE, which libpq would print on stderr.
            try connection.exec("SET LOCAL client_min_messages = warning")
            try connection.exec("SELECT pg_advisory_xact_lock(\(advisoryLock))")
            try connection.exec("""
                CREATE TABLE IF NOT EXISTS kwsuggest_schema_migrations (
                    version integer PRIMARY KEY,
                    description text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            // Every migration not applied yet, by version rather than above the largest: migrations that add
            // independent tables may be released in another order than they were numbered.
            let applied = Set(try connection.exec("SELECT version FROM kwsuggest_schema_migrations")
                .compactMap { $0.first.flatMap { $0 }.flatMap { Int($0) } })
            for migration in migrations where !applied.contains(migration.version) {
                for statement in migration.statements { try connection.exec(statement) }
                try connection.exec("INSERT INTO kwsuggest_schema_migrations (version, description) VALUES ($1, $2)",
                                    [String(migration.version), migration.description])
            }
            try connection.exec("COMMIT")
        } catch {
            if connection.isConnected { _ = try? connection.exec("ROLLBACK") }
            throw error
        }
    }
}
