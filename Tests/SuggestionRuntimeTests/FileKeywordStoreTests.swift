@testable import FileStore
import Foundation
@testable import PostgresStore
@testable import StoreInterface
import XCTest

final class FileKeywordStoreTests: XCTestCase {
    private var directory = ""
    private var overlayPath: String { directory + "/keywords.overlay.json" }

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "file-store-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private var contract: StoreContract {
        let path = overlayPath
        return StoreContract { FileKeywordStore(overlayPath: path) }
    }

    func testConcurrentChangesOnSeparateInstancesLoseNothing() throws { try contract.concurrentChangesLoseNothing() }
    func testChangesApplyInOrderAndCheckCanRefuse() throws { try contract.changesApplyInOrderAndCheckCanRefuse() }
    func testFeedbackIsIdempotentByClientID() throws { try contract.feedbackIsIdempotentByClientID() }
    func testClientIDConflictsAreRefused() throws { try contract.clientIDConflictsAreRefused() }
    func testRecordIDsCannotOverflow() throws { try contract.recordIDsCannotOverflow() }
    func testConcurrentFeedbackLosesNothing() throws { try contract.concurrentFeedbackLosesNothing() }
    func testImportKeepsIDs() throws { try contract.importKeepsIDs() }
    func testFeedbackPagesAndLastID() throws { try contract.feedbackPagesAndLastID() }

    /// An export page by page reads each page's part of the file, not the rest of the file for every page: the
    /// first scan learns that ids increase, later pages stop once they are full.
    func testPagingReadsTheFileAboutOnce() throws {
        let writer = FileKeywordStore(overlayPath: overlayPath)
        let records = (1...20_000).map {
            FeedbackRecord(id: Int64($0), receivedAt: "2026-01-02T03:04:05.678Z",
                           item: FeedbackItem(name: "名前 \($0) " + String(repeating: "x", count: 200), keyword: "k", action: .accept))
        }
        XCTAssertEqual(try writer.importFeedback(records), 20_000)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: writer.feedbackPath)[.size] as? Int)
        var store = writer
        func export() throws -> [Int64] {
            var ids: [Int64] = []
            var after: Int64 = 0
            while true {
                let page = try store.feedback(after: after, limit: 500)
                guard let last = page.last else { return ids }
                ids += page.map(\.id)
                after = last.id
            }
        }
        // The store that wrote the file knows its ids increase from writing it.
        XCTAssertEqual(try export(), (1...20_000).map(Int64.init))
        XCTAssertLessThanOrEqual(writer.feedbackLog.scannedBytes.load(ordering: .relaxed), size + 40 * 65_536, "bytes read by the writer's export")
        // Another process learns it on its first scan.
        store = FileKeywordStore(overlayPath: overlayPath)
        XCTAssertEqual(try export(), (1...20_000).map(Int64.init))
        let first = store.feedbackLog.scannedBytes.load(ordering: .relaxed)
        // One read to learn the order, then each of 40 pages reads its own bytes and at most one block more.
        XCTAssertLessThanOrEqual(first, 2 * size + 40 * 65_536, "bytes read by the first export of a \(size)-byte file")
        XCTAssertEqual(try export(), (1...20_000).map(Int64.init))
        let second = store.feedbackLog.scannedBytes.load(ordering: .relaxed) - first
        XCTAssertLessThanOrEqual(second, size + 40 * 65_536, "bytes read by a later export of a \(size)-byte file")
        XCTAssertEqual(try store.lastFeedbackID(after: 0, limit: nil), 20_000)
        XCTAssertEqual(try store.lastFeedbackID(after: 100, limit: 1000), 1100)
        XCTAssertLessThan(store.feedbackLog.scannedBytes.load(ordering: .relaxed) - first - second, size / 4, "the largest id and the 1,000th after 100")
    }

    /// Paging skips the part of a multi-megabyte file an earlier scan showed to hold no larger id, and still sees
    /// records appended later with smaller ids (an import), and a file replaced by another.
    func testPagingResumesFromCheckpointsAndSeesLaterAppends() throws {
        let store = FileKeywordStore(overlayPath: overlayPath)
        func records(_ ids: ClosedRange<Int>) -> [FeedbackRecord] {
            ids.map { FeedbackRecord(id: Int64($0), receivedAt: "2026-01-02T03:04:05.678Z",
                                     item: FeedbackItem(name: "名前 \($0) " + String(repeating: "x", count: 200), keyword: "k", action: .accept)) }
        }
        XCTAssertEqual(try store.importFeedback(records(1...3000) + records(5001...8000)), 6000)
        func all(after start: Int64) throws -> [Int64] {
            var ids: [Int64] = []
            var after = start
            while true {
                let page = try store.feedback(after: after, limit: 700)
                guard let last = page.last else { return ids }
                ids += page.map(\.id)
                after = last.id
            }
        }
        XCTAssertEqual(try all(after: 0), (Array(1...3000) + Array(5001...8000)).map(Int64.init))
        XCTAssertEqual(try store.importFeedback(records(3001...3010)), 10)
        XCTAssertEqual(try store.feedback(after: 3000, limit: 12).map(\.id), (Array(3001...3010) + [5001, 5002]).map(Int64.init))
        XCTAssertEqual(try store.lastFeedbackID(after: 2990, limit: 20), 3010)
        XCTAssertEqual(try all(after: 7990), Array(7991...8000).map(Int64.init))
        // Another file in its place: nothing learnt from the old one applies.
        try FileManager.default.removeItem(atPath: store.feedbackPath)
        let fresh = FileKeywordStore(overlayPath: overlayPath + ".other")
        XCTAssertEqual(try fresh.importFeedback(records(1...5)), 5)
        try FileManager.default.moveItem(atPath: fresh.feedbackPath, toPath: store.feedbackPath)
        XCTAssertEqual(try store.feedback(after: 2, limit: 10).map(\.id), [3, 4, 5])
    }

    /// A keyword change takes only the overlay's lock: while another thread or process holds the feedback lock
    /// (a long append), the change still completes.
    func testKeywordChangeDoesNotWaitForTheFeedbackLock() throws {
        let store = FileKeywordStore(overlayPath: overlayPath)
        let fd = open(store.feedbackLockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_EX), 0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? store.apply(KeywordChange(add: ["にんじん"]))
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "the keyword change waited for the feedback lock")
        flock(fd, LOCK_UN)
        XCTAssertEqual(try store.loadOverlay().added, ["にんじん"])
    }

    func testFilesLiveBesideTheOverlay() throws {
        let store = FileKeywordStore(overlayPath: overlayPath)
        XCTAssertEqual(store.lockPath, directory + "/keywords.overlay.lock")
        XCTAssertEqual(store.feedbackPath, directory + "/keywords.overlay.feedback.jsonl")
        XCTAssertEqual(store.feedbackLockPath, directory + "/keywords.overlay.feedback.lock")
        _ = try store.apply(KeywordChange(add: ["a"]))
        _ = try store.appendFeedback([FeedbackItem(name: "n", keyword: "a", action: .accept)])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory).sorted(),
                       ["keywords.overlay.feedback.jsonl", "keywords.overlay.feedback.lock", "keywords.overlay.json",
                        "keywords.overlay.lock"])
    }

    /// A line cut short by a crash was never acknowledged: it is skipped on read and cut off before the next append.
    func testTornLastLineIsSkippedAndReplaced() throws {
        let store = FileKeywordStore(overlayPath: overlayPath)
        let first = try store.appendFeedback([FeedbackItem(name: "n", keyword: "a", action: .accept)])
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: store.feedbackPath))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"action":"accept","id":2,"keyw"#.utf8))
        handle.closeFile()
        XCTAssertEqual(try FileKeywordStore(overlayPath: overlayPath).feedback(after: 0, limit: 10).map(\.id), [first[0].id])
        let second = try FileKeywordStore(overlayPath: overlayPath).appendFeedback([FeedbackItem(name: "m", keyword: "b", action: .reject)])
        XCTAssertEqual(second[0].id, first[0].id + 1)
        let text = try String(contentsOfFile: store.feedbackPath, encoding: .utf8)
        XCTAssertEqual(text.split(separator: "\n").count, 2)
        XCTAssertFalse(text.contains("keyw\""), text)
    }

    func testCorruptLineNamesFileAndLine() throws {
        let store = FileKeywordStore(overlayPath: overlayPath)
        _ = try store.appendFeedback([FeedbackItem(name: "n", keyword: "a", action: .accept)])
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: store.feedbackPath))
        handle.seekToEndOfFile()
        handle.write(Data("{\"id\": \"x\"}\n".utf8))
        handle.closeFile()
        XCTAssertThrowsError(try store.feedback(after: 0, limit: 10)) { error in
            XCTAssertTrue("\(error)".contains("keywords.overlay.feedback.jsonl:2:"), "\(error)")
        }
        XCTAssertThrowsError(try FileKeywordStore(overlayPath: overlayPath).appendFeedback([FeedbackItem(name: "n", keyword: "a", action: .accept)])) { error in
            XCTAssertTrue("\(error)".contains("keywords.overlay.feedback.jsonl:2:"), "\(error)")
        }
    }

    func testUnwritableDirectoryIsAFailureNamingTheFile() {
        let store = FileKeywordStore(overlayPath: directory + "/missing/keywords.overlay.json")
        XCTAssertThrowsError(try store.apply(KeywordChange(add: ["a"]))) { error in
            guard case .failed(let message) = error as? KeywordStoreError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("missing/keywords.overlay.lock"), message)
        }
    }

    func testFileIdentityChangesWhenTheOverlayIsRewritten() throws {
        let store = FileKeywordStore(overlayPath: overlayPath)
        let before = FileIdentity(path: overlayPath)
        XCTAssertFalse(before.exists)
        _ = try store.apply(KeywordChange(add: ["a"]))
        let written = FileIdentity(path: overlayPath)
        XCTAssertNotEqual(before, written)
        _ = try store.apply(KeywordChange(add: ["b"]))
        XCTAssertNotEqual(written, FileIdentity(path: overlayPath))
    }

    func testStoreLocationParsing() throws {
        XCTAssertEqual(try StoreLocation(parsing: "file:/a/b.json"), .file("/a/b.json"))
        XCTAssertEqual(try StoreLocation(parsing: "postgres://u@h:5432/d"), .postgres("postgres://u@h:5432/d"))
        XCTAssertEqual(try StoreLocation(parsing: "postgresql://u@h/d"), .postgres("postgresql://u@h/d"))
        XCTAssertThrowsError(try StoreLocation(parsing: "file:"))
        XCTAssertThrowsError(try StoreLocation(parsing: "mysql://x")) { error in
            XCTAssertTrue("\(error)".contains("file:PATH or postgres://"), "\(error)")
        }
        XCTAssertEqual(StoreLocation.postgres("postgres://u:secret@h:5432/d?sslmode=require").displayName,
                       "postgres://u:***@h:5432/d?sslmode=require")
        XCTAssertEqual(PostgresKeywordStore.masked("postgres://h/d?user=u&password=secret&x=1"), "postgres://h/d?user=u&password=***&x=1")
    }
}
