import Foundation
@testable import PostgresStore
@testable import StoreInterface
import XCTest

/// The store against a real PostgreSQL server. Skipped unless KWSUGGEST_TEST_POSTGRES_URL names one (a
/// throwaway database: the tests drop kwsuggest's tables). tools/test.sh starts one and sets it.
final class PostgresKeywordStoreTests: XCTestCase {
    static let howToRun = "needs PostgreSQL: run tools/test.sh, or tools/postgres/throwaway.sh run swift test"
    private var url = ""

    override func setUpWithError() throws {
        guard let url = ProcessInfo.processInfo.environment["KWSUGGEST_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw XCTSkip(Self.howToRun)
        }
        self.url = url
        try Self.dropSchema(url)
    }

    /// Drops every kwsuggest table, so each test starts from an empty database.
    static func dropSchema(_ url: String) throws {
        let connection = try PostgresConnection(conninfo: url, pq: LibPQ.load())
        for table in ["kwsuggest_schema_migrations", "kwsuggest_keyword_head", "kwsuggest_keyword_changes",
                      "kwsuggest_keywords", "kwsuggest_feedback", "kwsuggest_model_registry", "kwsuggest_model_blobs",
                      "kwsuggest_queue_items", "kwsuggest_queue_decisions"] {
            try connection.exec("DROP TABLE IF EXISTS \(table) CASCADE")
        }
    }

    private var contract: StoreContract {
        let url = self.url
        return StoreContract { try PostgresKeywordStore(url: url) }
    }

    func testConcurrentChangesOnSeparateConnectionsLoseNothing() throws { try contract.concurrentChangesLoseNothing() }
    func testChangesApplyInOrderAndCheckCanRefuse() throws { try contract.changesApplyInOrderAndCheckCanRefuse() }
    func testFeedbackIsIdempotentByClientID() throws { try contract.feedbackIsIdempotentByClientID() }
    func testClientIDConflictsAreRefused() throws { try contract.clientIDConflictsAreRefused() }
    func testRecordIDsCannotOverflow() throws { try contract.recordIDsCannotOverflow() }
    func testConcurrentFeedbackLosesNothing() throws { try contract.concurrentFeedbackLosesNothing() }
    func testImportKeepsIDs() throws { try contract.importKeepsIDs() }
    func testFeedbackPagesAndLastID() throws { try contract.feedbackPagesAndLastID() }

    /// A table held by another session: a keyword change and a feedback post give up at the lock timeout with
    /// `unavailable` (503 `store_unavailable`), and the store works again once the lock is gone.
    func testLockedTablesAnswerUnavailableAtTheLockTimeout() throws {
        var timeouts = PostgresTimeouts()
        timeouts.requestLock = 300
        let store = try PostgresKeywordStore(url: url, timeouts: timeouts)
        defer { store.close() }
        let holder = try PostgresConnection(conninfo: url, pq: LibPQ.load())
        try holder.exec("BEGIN")
        try holder.exec("LOCK TABLE kwsuggest_keyword_head, kwsuggest_feedback IN ACCESS EXCLUSIVE MODE")
        let started = Date()
        XCTAssertThrowsError(try store.apply(KeywordChange(add: ["にんじん"]))) { error in
            guard case KeywordStoreError.unavailable(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("lock"), message)
        }
        XCTAssertThrowsError(try store.appendFeedback([FeedbackItem(name: "n", keyword: "にんじん", action: .accept)])) { error in
            guard case KeywordStoreError.unavailable = error else { return XCTFail("\(error)") }
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "waited far past the lock timeout")
        try holder.exec("ROLLBACK")
        XCTAssertEqual(try store.apply(KeywordChange(add: ["にんじん"])).added, ["にんじん"])
        XCTAssertTrue(store.isAvailable)
    }

    /// Overlays carry the list revision, as the file store's carry theirs: the same revision, the same keywords.
    func testOverlaysCarryTheListRevision() throws {
        let store = try PostgresKeywordStore(url: url), other = try PostgresKeywordStore(url: url)
        let applied = try store.apply(KeywordChange(add: ["にんじん"]))
        XCTAssertNotNil(applied.revision)
        XCTAssertEqual(try other.loadOverlay().revision, applied.revision)
        let next = try other.apply(KeywordChange(add: ["ごぼう"]))
        XCTAssertNotEqual(next.revision, applied.revision)
        XCTAssertEqual(try store.loadOverlay().revision, next.revision)
        XCTAssertEqual(try store.loadOverlay(), KeywordOverlay(added: ["にんじん", "ごぼう"]))
    }

    func testChangesAreLoggedWithRevisionAndRequestID() throws {
        let store = try PostgresKeywordStore(url: url)
        _ = try store.apply(KeywordChange(add: ["にんじん"], requestID: "req-1", actor: "admin"))
        _ = try store.apply(KeywordChange(remove: ["にんじん"]))
        let connection = try PostgresConnection(conninfo: url, pq: LibPQ.load())
        let rows = try connection.exec("SELECT revision, op, keyword, request_id, actor FROM kwsuggest_keyword_changes ORDER BY id")
        XCTAssertEqual(rows, [["1", "add", "にんじん", "req-1", "admin"], ["2", "remove", "にんじん", nil, nil]])
        XCTAssertEqual(try connection.exec("SELECT revision FROM kwsuggest_keyword_head"), [["2"]])
    }

    /// Three replicas starting at once migrate once, without errors.
    func testReplicasStartingTogetherMigrateOnce() throws {
        let failures = Failures()
        let url = self.url
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            do { _ = try PostgresKeywordStore(url: url) } catch { failures.add("\(error)") }
        }
        XCTAssertEqual(failures.all, [])
        let connection = try PostgresConnection(conninfo: url, pq: LibPQ.load())
        XCTAssertEqual(try connection.exec("SELECT version FROM kwsuggest_schema_migrations ORDER BY version"), [["1"], ["2"], ["3"], ["4"]])
        XCTAssertEqual(PostgresSchema.migrations.map(\.version), [1, 2, 3, 4])
        _ = try PostgresKeywordStore(url: url)
        XCTAssertEqual(try connection.exec("SELECT count(*) FROM kwsuggest_schema_migrations"), [["4"]])
    }

    func testAnotherReplicaIsNotified() throws {
        let listener = try PostgresKeywordStore(url: url)
        defer { listener.close() }
        let connected = expectation(description: "listening")
        let notified = expectation(description: "notified")
        let reasons = Failures()
        listener.startWatching { reason in
            reasons.add(reason)
            if reason == "store connected" { connected.fulfill() }
            if reason == "notified" { notified.fulfill() }
        }
        wait(for: [connected], timeout: 10)
        _ = try PostgresKeywordStore(url: url).apply(KeywordChange(add: ["ごぼう"]))
        wait(for: [notified], timeout: 5)
        XCTAssertEqual(try listener.loadOverlay().added, ["ごぼう"])
    }

    /// The server ends every kwsuggest connection (as a failover or an admin would): the next write reconnects
    /// and succeeds, and the listener reconnects and asks for a resync.
    func testTerminatedConnectionsAreReplaced() throws {
        let store = try PostgresKeywordStore(url: url)
        defer { store.close() }
        let connects = Failures()
        let reconnected = expectation(description: "listener reconnected")
        reconnected.assertForOverFulfill = false
        store.startWatching { reason in
            guard reason == "store connected" else { return }
            connects.add(reason)
            if connects.all.count == 2 { reconnected.fulfill() }
        }
        _ = try store.apply(KeywordChange(add: ["a"]))
        let admin = try PostgresConnection(conninfo: url + (url.contains("?") ? "&" : "?") + "application_name=kwsuggest-test",
                                           pq: LibPQ.load())
        let deadline = Date().addingTimeInterval(5)
        while connects.all.isEmpty && Date() < deadline { usleep(20_000) }
        let ended = try admin.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kwsuggest'")
        XCTAssertGreaterThanOrEqual(ended.count, 2, "the store's and the listener's connections")
        XCTAssertEqual(try store.apply(KeywordChange(add: ["b"])).added, ["a", "b"])
        XCTAssertTrue(store.isAvailable)
        wait(for: [reconnected], timeout: 10)
    }

    /// The server stopped and started again (needs KWSUGGEST_TEST_POSTGRES_DIR from throwaway.sh run): writes
    /// fail with `unavailable` while it is down, work again after, and nothing acknowledged is lost.
    func testServerRestart() throws {
        guard let directory = ProcessInfo.processInfo.environment["KWSUGGEST_TEST_POSTGRES_DIR"], !directory.isEmpty else {
            throw XCTSkip("needs KWSUGGEST_TEST_POSTGRES_DIR (tools/postgres/throwaway.sh run sets it)")
        }
        let store = try PostgresKeywordStore(url: url)
        defer { store.close() }
        _ = try store.apply(KeywordChange(add: ["before"]))
        _ = try store.appendFeedback([FeedbackItem(name: "n", keyword: "before", action: .accept, clientID: "f1")])
        try Self.throwaway("down", directory)
        XCTAssertThrowsError(try store.apply(KeywordChange(add: ["during"]))) { error in
            guard case .unavailable = error as? KeywordStoreError else { return XCTFail("\(error)") }
        }
        XCTAssertFalse(store.isAvailable)
        XCTAssertThrowsError(try store.appendFeedback([FeedbackItem(name: "n", keyword: "x", action: .accept)]))
        try Self.throwaway("up", directory)
        XCTAssertEqual(try store.apply(KeywordChange(add: ["after"])).added, ["before", "after"])
        XCTAssertTrue(store.isAvailable)
        XCTAssertEqual(try store.appendFeedback([FeedbackItem(name: "n", keyword: "before", action: .accept, clientID: "f1")]).first?.duplicate, true)
    }

    /// Runs tools/postgres/throwaway.sh with posix_spawn and waitpid (the server it starts outlives it, and
    /// must not hold any descriptor the test waits on).
    static func throwaway(_ command: String, _ directory: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("tools/postgres/throwaway.sh").path
        let arguments = ["/bin/bash", script, command, directory]
        var cArguments = arguments.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        XCTAssertEqual(posix_spawn(&pid, "/bin/bash", &actions, nil, &cArguments, environ), 0)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        XCTAssertEqual(status, 0, "throwaway.sh \(command)")
    }
}

/// Needs only libpq, not a server.
final class PostgresConnectFailureTests: XCTestCase {
    func testNoServerIsUnavailableAndTheURLIsMasked() throws {
        do { _ = try LibPQ.load() } catch { throw XCTSkip("libpq5 is not installed") }
        XCTAssertThrowsError(try PostgresKeywordStore(url: "postgres://kw:secret@127.0.0.1:1/db?connect_timeout=2")) { error in
            guard case .unavailable(let message) = error as? KeywordStoreError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasPrefix("postgres://kw:***@127.0.0.1:1/db"), message)
            XCTAssertFalse(message.contains("secret"), message)
        }
    }
}
