import Foundation
import ModelVersions
@testable import PostgresStore
import StoreInterface
import TeamQueue
import XCTest

/// The queue's and the registry's transactions run under the request limits of the one PostgreSQL client: with
/// their table locked by another session, an operation answers `unavailable` (503 `store_unavailable` with
/// `Retry-After`) once the lock timeout (2 s) fires, instead of waiting for the lock to go.
final class PostgresLockTimeoutTests: XCTestCase {
    private var url = ""

    override func setUpWithError() throws {
        guard let url = ProcessInfo.processInfo.environment["KWSUGGEST_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw XCTSkip(PostgresKeywordStoreTests.howToRun)
        }
        self.url = url
        try PostgresKeywordStoreTests.dropSchema(url)
    }

    override func tearDownWithError() throws {
        if !url.isEmpty { try PostgresKeywordStoreTests.dropSchema(url) }
    }

    /// Runs `body` while another session holds `table` in ACCESS EXCLUSIVE mode; returns what `body` returned and
    /// how long it took.
    private func whileLocked<T>(_ table: String, _ body: () throws -> T) throws -> (T, Double) {
        let holder = try PostgresConnection(conninfo: url, pq: LibPQ.load())
        try holder.exec("BEGIN")
        try holder.exec("LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE")
        defer { _ = try? holder.exec("ROLLBACK") }
        let started = Date()
        let result = try body()
        return (result, Date().timeIntervalSince(started))
    }

    func testALockedQueueAnswersUnavailable() throws {
        let keywords = try PostgresKeywordStore(url: url)
        let queue = try PostgresQueueStore(url: url, feedbackStore: keywords, policy: QueuePolicy(overlapShare: 0, auditShare: 0))
        _ = try queue.enqueue([QueueContract.submission("a")], at: QueueContract.t0)
        let (outcome, seconds) = try whileLocked("kwsuggest_queue_items") { () -> QueueError? in
            do {
                _ = try queue.lease(LeaseRequest(annotator: "aiko"), at: QueueContract.t0 + 1)
                return nil
            } catch {
                return error as? QueueError
            }
        }
        guard case .store(.unavailable(let message))? = outcome else { return XCTFail("\(String(describing: outcome))") }
        XCTAssertTrue(message.contains("lock timeout"), message)
        XCTAssertLessThan(seconds, 5, "the lock timeout answers, not the lock's release")
        // Once the lock is gone the queue works again on the same store object.
        XCTAssertEqual(try queue.lease(LeaseRequest(annotator: "aiko"), at: QueueContract.t0 + 2).items.map(\.id), ["a"])
        // A keyword write on its own client is not behind the queue's wait.
        XCTAssertNoThrow(try keywords.apply(KeywordChange(add: ["lock-test-keyword"])))
    }

    func testALockedRegistryAnswersUnavailable() throws {
        let registry = try PostgresModelRegistry(url: url, digest: ModelFixtures.digest)
        defer { registry.close() }
        _ = try registry.catalog()
        let (outcome, seconds) = try whileLocked("kwsuggest_model_registry") { () -> KeywordStoreError? in
            do {
                try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.setShadow(nil, fraction: 0) }
                return nil
            } catch {
                return error as? KeywordStoreError
            }
        }
        guard case .unavailable(let message)? = outcome else { return XCTFail("\(String(describing: outcome))") }
        XCTAssertTrue(message.contains("lock timeout"), message)
        XCTAssertLessThan(seconds, 5, "the lock timeout answers, not the lock's release")
        XCTAssertNoThrow(try registry.catalog())
    }
}
