import Foundation
@testable import FileStore
@testable import PostgresStore
@testable import StoreInterface
@testable import TeamQueue
import XCTest

final class FileQueueStoreTests: XCTestCase {
    private var directory = ""
    private var overlayPath: String { directory + "/keywords.overlay.json" }

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "queue-store-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private var contract: QueueContract {
        let path = overlayPath
        return QueueContract(make: { policy in
            FileQueueStore(overlayPath: path, feedbackStore: FileKeywordStore(overlayPath: path), policy: policy)
        }, feedback: {
            try FileKeywordStore(overlayPath: path).feedback(after: 0, limit: 1000)
        }, importFeedback: { records in
            _ = try FileKeywordStore(overlayPath: path).importFeedback(records)
        })
    }

    func testEnqueueCountsAndRenames() throws { try contract.enqueueCountsAndRenames() }
    func testCosmeticChangesAreNotRenames() throws { try contract.cosmeticChangesAreNotRenames() }
    func testConcurrentLeasesAreExclusive() throws { try contract.concurrentLeasesAreExclusive() }
    func testLeasesExpire() throws { try contract.leasesExpire() }
    func testOrdersAndKeywordFilter() throws { try contract.ordersAndKeywordFilter() }
    func testDecisionsFeedbackAndUndo() throws { try contract.decisionsFeedbackAndUndo() }
    func testFlaggedListPages() throws { try contract.flaggedListPages() }
    func testOverlapAgreementAndAudit() throws { try contract.overlapAgreementAndAudit() }
    func testLabelsAreEvidence() throws { try contract.labelsAreEvidence() }
    func testUndoNeverTakesAnItemFromAnotherLease() throws { try contract.undoNeverTakesAnItemFromAnotherLease() }
    func testEquivalentIDsAndAnnotatorsAreOne() throws { try contract.equivalentIDsAndAnnotatorsAreOne() }
    func testOneCallAppliesInOrder() throws { try contract.oneCallAppliesInOrder() }
    func testFeedbackIDsAreUnambiguous() throws { try contract.feedbackIDsAreUnambiguous() }
    func testDecisionsAreAllOrNone() throws { try contract.decisionsAreAllOrNone() }
    func testLeaseCapHoldsOverLeases() throws { try contract.leaseCapHoldsOverLeases() }
    func testConcurrentLeasesKeepTheCap() throws { try contract.concurrentLeasesKeepTheCap() }
    func testKeysFollowTheKeywordRules() throws { try contract.keysFollowTheKeywordRules() }
    func testDecideUndoLoopsAreBounded() throws { try contract.decideUndoLoopsAreBounded() }

    /// A bulk decision is committed once: every item's feedback in one batch (one append and one fsync, behind
    /// one batch header), not one commit per item.
    func testABulkDecisionCommitsItsFeedbackOnce() throws {
        let keywords = FileKeywordStore(overlayPath: overlayPath)
        let store = FileQueueStore(overlayPath: overlayPath, feedbackStore: keywords, policy: QueuePolicy(overlapShare: 0, auditShare: 0))
        _ = try store.enqueue((0..<3).map { QueueContract.submission("b\($0)") }, at: QueueContract.t0)
        let lease = try store.lease(LeaseRequest(annotator: "aiko", count: 3), at: QueueContract.t0 + 1)
        _ = try store.decide(DecisionRequest(lease: lease.id, annotator: "aiko", ids: lease.items.map(\.id), kind: .label,
                                             keywords: ["にんじん", "人参ジュース"]), at: QueueContract.t0 + 2)
        let lines = try String(contentsOfFile: keywords.feedbackPath, encoding: .utf8).split(separator: "\n")
        let headers = lines.filter { FeedbackFrame.isHeader(ArraySlice($0.utf8)) }
        XCTAssertEqual(headers.count, 1, "one batch for the whole decision: \(headers)")
        XCTAssertTrue(headers.first?.hasPrefix(#"{"batch":6,"#) == true, "\(headers)")
        XCTAssertEqual(lines.count, 7)
    }

    /// An operation cut short by a crash (whole lines without their commit line, then a torn one) was never
    /// acknowledged: none of it is read, and the next append replaces it.
    func testUncommittedLinesAreIgnoredAndCutOff() throws {
        let store = FileQueueStore(overlayPath: overlayPath, feedbackStore: FileKeywordStore(overlayPath: overlayPath),
                                   policy: QueuePolicy(overlapShare: 0, auditShare: 0))
        _ = try store.enqueue([QueueContract.submission("a")], at: QueueContract.t0)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: store.path))
        handle.seekToEndOfFile()
        let uncommitted = QueueItem(QueueContract.submission("x"), at: QueueContract.t0, policy: store.policy)
        handle.write(Data(QueueLine.item(uncommitted).encoded()))
        handle.write(Data(#"{"item":{"id":"b","na"#.utf8))
        handle.closeFile()
        let reader = FileQueueStore(overlayPath: overlayPath, feedbackStore: FileKeywordStore(overlayPath: overlayPath),
                                    policy: store.policy)
        XCTAssertEqual(try reader.stats(at: QueueContract.t0).items.queued, 1)
        _ = try reader.enqueue([QueueContract.submission("c")], at: QueueContract.t0)
        let lines = try String(contentsOfFile: store.path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 4, "a, commit, c, commit")
        XCTAssertEqual(try store.stats(at: QueueContract.t0).items.queued, 2)
        XCTAssertFalse(lines.contains { $0.contains(#""id":"x""#) })
    }

    /// A log grown past four lines per item and decision is rewritten with one each; another instance reading the
    /// new file sees the same queue.
    func testTheLogIsCompacted() throws {
        let policy = QueuePolicy(overlapShare: 0, auditShare: 0)
        let store = FileQueueStore(overlayPath: overlayPath, feedbackStore: FileKeywordStore(overlayPath: overlayPath),
                                   policy: policy, compactionLines: 50)
        let other = FileQueueStore(overlayPath: overlayPath, feedbackStore: FileKeywordStore(overlayPath: overlayPath), policy: policy)
        _ = try store.enqueue((0..<5).map { QueueContract.submission("c\($0)") }, at: QueueContract.t0)
        XCTAssertEqual(try other.stats(at: QueueContract.t0).items.queued, 5)
        // Leases that expire at once: every one writes five item lines and a commit.
        for round in 0..<12 {
            let lease = try store.lease(LeaseRequest(annotator: "a\(round)", count: 5), at: QueueContract.t0 + QueueTime(round) * 700_000)
            XCTAssertEqual(lease.items.count, 5)
        }
        let lines = try String(contentsOfFile: store.path, encoding: .utf8).split(separator: "\n")
        XCTAssertLessThan(lines.count, 50, "compacted")
        let lease = try other.lease(LeaseRequest(annotator: "b", count: 10), at: QueueContract.t0 + 12 * 700_000)
        XCTAssertEqual(lease.items.count, 5)
        _ = try store.decide(DecisionRequest(lease: lease.id, annotator: "b", ids: ["c1"], kind: .label, keywords: ["x"]),
                             at: QueueContract.t0 + 12 * 700_000)
        XCTAssertEqual(try other.labels(after: nil, limit: 10).map(\.id), ["c1"])
    }

    /// A damaged line is reported with the file and line number, and nothing is written after it.
    func testDamagedLineNamesFileAndLine() throws {
        let store = FileQueueStore(overlayPath: overlayPath, feedbackStore: FileKeywordStore(overlayPath: overlayPath),
                                   policy: QueuePolicy())
        _ = try store.enqueue([QueueContract.submission("a")], at: QueueContract.t0)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: store.path))
        handle.seekToEndOfFile()
        handle.write(Data("{\"item\":{\"id\":\"b\"}}\n".utf8))
        handle.closeFile()
        let reader = FileQueueStore(overlayPath: overlayPath, feedbackStore: FileKeywordStore(overlayPath: overlayPath),
                                    policy: store.policy)
        XCTAssertThrowsError(try reader.lease(LeaseRequest(annotator: "a"), at: QueueContract.t0)) { error in
            XCTAssertTrue("\(error)".hasPrefix(store.path + ":3: not a queue record"), "\(error)")
        }
    }

    /// A record written with a key in another Unicode form (NFD, as a release that kept keys as sent could write)
    /// reads as the NFC key the API now uses.
    func testKeysReadBackInNFC() throws {
        let store = FileQueueStore(overlayPath: overlayPath, feedbackStore: FileKeywordStore(overlayPath: overlayPath),
                                   policy: QueuePolicy(overlapShare: 0, auditShare: 0))
        _ = try store.enqueue([QueueContract.submission("x")], at: QueueContract.t0)
        let log = String(decoding: try Data(contentsOf: URL(fileURLWithPath: store.path)), as: UTF8.self)
        XCTAssertTrue(log.contains("\"id\":\"x\""), log)
        try log.replacingOccurrences(of: "\"id\":\"x\"", with: "\"id\":\"cafe\\u0301\"")
            .write(toFile: store.path, atomically: true, encoding: .utf8)
        let reader = FileQueueStore(overlayPath: overlayPath, feedbackStore: FileKeywordStore(overlayPath: overlayPath),
                                    policy: store.policy)
        let lease = try reader.lease(LeaseRequest(annotator: "aiko"), at: QueueContract.t0 + 1)
        XCTAssertEqual(lease.items.map { Array($0.id.utf8) }, [Array("caf\u{e9}".utf8)])
    }

    /// A line edited by hand follows the API's rules: an id with a control character, an empty name, a keyword
    /// with white space around it or a confidence past 1 is refused with the file and line, on every read.
    func testHandEditedLinesFollowTheAPIRules() throws {
        let store = FileQueueStore(overlayPath: overlayPath, feedbackStore: FileKeywordStore(overlayPath: overlayPath),
                                   policy: QueuePolicy())
        _ = try store.enqueue([QueueContract.submission("a")], at: QueueContract.t0)
        let good = String(decoding: try Data(contentsOf: URL(fileURLWithPath: store.path)), as: UTF8.self)
        let itemLine = try XCTUnwrap(good.split(separator: "\n").first { $0.hasPrefix("{\"item\"") }).description
        let cases: [(String, String)] = [
            (itemLine.replacingOccurrences(of: "\"id\":\"a\"", with: "\"id\":\"evil\\u0007id\""), "item.id: 'id' contains a control character"),
            (itemLine.replacingOccurrences(of: "\"name\":\"name of a\"", with: "\"name\":\"\""), "item.name: 'name' is empty"),
            (itemLine.replacingOccurrences(of: "\"name\":\"name of a\"", with: "\"name\":\" name of a\""), "item.name: 'name' has white space around it"),
            (itemLine.replacingOccurrences(of: "\"confidence\":0.5", with: "\"confidence\":7"), "item.suggestions[0].confidence"),
            (itemLine.replacingOccurrences(of: "\"enqueued_at\":\(QueueContract.t0)", with: "\"enqueued_at\":-5"), "item.enqueued_at"),
        ]
        for (line, expected) in cases {
            XCTAssertNotEqual(line, itemLine, expected)
            try (good + line + "\n{\"commit\":true}\n").write(toFile: store.path, atomically: true, encoding: .utf8)
            let reader = FileQueueStore(overlayPath: overlayPath, feedbackStore: FileKeywordStore(overlayPath: overlayPath),
                                        policy: store.policy)
            for _ in 0..<2 {
                XCTAssertThrowsError(try reader.stats(at: QueueContract.t0)) { error in
                    XCTAssertTrue("\(error)".hasPrefix(store.path + ":3: not a queue item as the API stores it: "), "\(error)")
                    XCTAssertTrue("\(error)".contains(expected), "\(error)")
                }
            }
        }
    }
}

/// The queue against a real PostgreSQL server (see PostgresKeywordStoreTests for how to run them).
final class PostgresQueueStoreTests: XCTestCase {
    private var url = ""

    override func setUpWithError() throws {
        guard let url = ProcessInfo.processInfo.environment["KWSUGGEST_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw XCTSkip(PostgresKeywordStoreTests.howToRun)
        }
        self.url = url
        try PostgresKeywordStoreTests.dropSchema(url)
    }

    private var contract: QueueContract {
        let url = self.url
        return QueueContract(make: { policy in
            try PostgresQueueStore(url: url, feedbackStore: PostgresKeywordStore(url: url), policy: policy)
        }, feedback: {
            try PostgresKeywordStore(url: url).feedback(after: 0, limit: 1000)
        }, importFeedback: { records in
            _ = try PostgresKeywordStore(url: url).importFeedback(records)
        })
    }

    func testEnqueueCountsAndRenames() throws { try contract.enqueueCountsAndRenames() }
    func testCosmeticChangesAreNotRenames() throws { try contract.cosmeticChangesAreNotRenames() }
    func testConcurrentLeasesAreExclusive() throws { try contract.concurrentLeasesAreExclusive() }
    func testLeasesExpire() throws { try contract.leasesExpire() }
    func testOrdersAndKeywordFilter() throws { try contract.ordersAndKeywordFilter() }
    func testDecisionsFeedbackAndUndo() throws { try contract.decisionsFeedbackAndUndo() }
    func testFlaggedListPages() throws { try contract.flaggedListPages() }
    func testOverlapAgreementAndAudit() throws { try contract.overlapAgreementAndAudit() }
    func testLabelsAreEvidence() throws { try contract.labelsAreEvidence() }
    func testUndoNeverTakesAnItemFromAnotherLease() throws { try contract.undoNeverTakesAnItemFromAnotherLease() }
    func testEquivalentIDsAndAnnotatorsAreOne() throws { try contract.equivalentIDsAndAnnotatorsAreOne() }
    func testOneCallAppliesInOrder() throws { try contract.oneCallAppliesInOrder() }
    func testFeedbackIDsAreUnambiguous() throws { try contract.feedbackIDsAreUnambiguous() }
    func testDecisionsAreAllOrNone() throws { try contract.decisionsAreAllOrNone() }
    func testLeaseCapHoldsOverLeases() throws { try contract.leaseCapHoldsOverLeases() }
    func testConcurrentLeasesKeepTheCap() throws { try contract.concurrentLeasesKeepTheCap() }
    func testKeysFollowTheKeywordRules() throws { try contract.keysFollowTheKeywordRules() }
    func testDecideUndoLoopsAreBounded() throws { try contract.decideUndoLoopsAreBounded() }
}
