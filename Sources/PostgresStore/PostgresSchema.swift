// The database schema, created and migrated at start.
import StoreInterface

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
            let current = Int(try connection.exec("SELECT coalesce(max(version), 0) FROM kwsuggest_schema_migrations")
                .first?.first.flatMap { $0 } ?? "0") ?? 0
            for migration in migrations where migration.version > current {
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
