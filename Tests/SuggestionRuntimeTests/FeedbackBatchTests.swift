@testable import FileStore
import Foundation
@testable import StoreInterface
import XCTest

/// The file store's feedback log: a batch is all or none across a crash, logs without batch headers still load,
/// record ids cannot overflow, and the first append after a start streams the log.
final class FeedbackBatchTests: XCTestCase {
    private var directory = ""
    private var overlayPath: String { directory + "/keywords.overlay.json" }

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "feedback-batch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func items(_ count: Int, _ prefix: String) -> [FeedbackItem] {
        (1...count).map { FeedbackItem(name: "\(prefix) \($0)", keyword: "にんじん", action: .accept, shown: ["にんじん"]) }
    }

    private func appendRaw(_ bytes: [UInt8], to path: String) throws {
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(bytes))
        handle.closeFile()
    }

    /// A batch cut anywhere (as `kill -9` during its write leaves it) is invisible to readers, whole records
    /// included, and the next append cuts it off; the batches before it stay.
    func testTornBatchIsDroppedWhole() throws {
        let store = FileKeywordStore(overlayPath: overlayPath)
        let kept = try store.appendFeedback(items(3, "kept")).map(\.id)
        let complete = try Data(contentsOf: URL(fileURLWithPath: store.feedbackPath))
        // What an interrupted append of 10 records leaves: its header and some whole lines of the batch.
        let records = (1...10).map {
            FeedbackLine.encode(FeedbackRecord(id: Int64(3 + $0), receivedAt: "2026-01-02T03:04:05.678Z",
                                               item: FeedbackItem(name: "lost \($0)", keyword: "x", action: .accept)))
        }
        let body = records.reduce([], +)
        for cut in [0, records[0].count, records[0].count + records[1].count + 5, body.count - 1] {
            try Data(complete).write(to: URL(fileURLWithPath: store.feedbackPath))
            try appendRaw(FeedbackFrame.header(records: 10, bytes: body.count) + body[0..<cut], to: store.feedbackPath)
            let reader = FileKeywordStore(overlayPath: overlayPath)
            XCTAssertEqual(try reader.feedback(after: 0, limit: 100).map(\.id), kept, "cut at \(cut)")
            XCTAssertEqual(try reader.lastFeedbackID(after: 0, limit: nil), kept.last)
            let next = try FileKeywordStore(overlayPath: overlayPath).appendFeedback(items(2, "next \(cut)"))
            XCTAssertEqual(next.map(\.id), [4, 5], "ids continue after the last complete batch")
            let all = try FileKeywordStore(overlayPath: overlayPath).feedback(after: 0, limit: 100)
            XCTAssertEqual(all.map(\.id), [1, 2, 3, 4, 5])
            XCTAssertFalse(all.contains { $0.item.name.hasPrefix("lost") })
            let text = try String(contentsOfFile: store.feedbackPath, encoding: .utf8)
            XCTAssertFalse(text.contains("lost"), "the torn batch is cut off the file")
        }
    }

    /// A log written one record per line with no headers (as earlier releases wrote it) loads, pages, and takes
    /// framed batches after it.
    func testUnframedLogStillLoads() throws {
        let path = directory + "/keywords.overlay.feedback.jsonl"
        var legacy: [UInt8] = []
        for id in 1...5 {
            legacy += FeedbackLine.encode(FeedbackRecord(id: Int64(id), receivedAt: "2026-01-02T03:04:05.678Z",
                                                         item: FeedbackItem(name: "old \(id)", keyword: "k", action: .reject,
                                                                            clientID: id == 2 ? "legacy-2" : nil)))
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(legacy)))
        let store = FileKeywordStore(overlayPath: overlayPath)
        XCTAssertEqual(try store.feedback(after: 0, limit: 100).map(\.id), [1, 2, 3, 4, 5])
        let receipts = try store.appendFeedback(items(3, "new") + [FeedbackItem(name: "old 2", keyword: "k", action: .reject,
                                                                                clientID: "legacy-2")])
        XCTAssertEqual(receipts.map(\.id), [6, 7, 8, 2])
        XCTAssertEqual(receipts.map(\.duplicate), [false, false, false, true])
        XCTAssertEqual(try FileKeywordStore(overlayPath: overlayPath).feedback(after: 3, limit: 100).map(\.id), [4, 5, 6, 7, 8])
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains(#"{"batch":3,"bytes":"#), text)
    }

    /// A header that does not match the lines after it is an error naming the file and line, not a silent skip.
    func testMalformedBatchNamesTheLine() throws {
        let store = FileKeywordStore(overlayPath: overlayPath)
        _ = try store.appendFeedback(items(1, "a"))
        let line = FeedbackLine.encode(FeedbackRecord(id: 2, receivedAt: "2026-01-02T03:04:05.678Z",
                                                      item: FeedbackItem(name: "b", keyword: "k", action: .accept)))
        try appendRaw(FeedbackFrame.header(records: 2, bytes: line.count) + line, to: store.feedbackPath)
        XCTAssertThrowsError(try FileKeywordStore(overlayPath: overlayPath).appendFeedback(items(1, "c"))) { error in
            XCTAssertTrue("\(error)".contains("feedback.jsonl:3: the batch does not hold"), "\(error)")
        }
    }

    /// A hand-edited line with the largest Int64 id: appends answer an error, and keep answering it, instead of
    /// trapping on the next id.
    func testHugeIDInTheLogIsAnErrorNotATrap() throws {
        let path = directory + "/keywords.overlay.feedback.jsonl"
        let record = FeedbackRecord(id: Int64.max, receivedAt: "2026-01-02T03:04:05.678Z",
                                    item: FeedbackItem(name: "a", keyword: "k", action: .accept))
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(FeedbackLine.encode(record))))
        for _ in 0..<2 {
            XCTAssertThrowsError(try FileKeywordStore(overlayPath: overlayPath).appendFeedback(items(1, "b"))) { error in
                XCTAssertTrue("\(error)".contains("record ids are used up"), "\(error)")
            }
        }
        XCTAssertEqual(try FileKeywordStore(overlayPath: overlayPath).feedback(after: 0, limit: 10), [record])
    }

    /// The first append of a process reads the log in blocks: its buffer stays one block plus a line, whatever
    /// the size of the log.
    func testFirstAppendStreamsTheLog() throws {
        let writer = FileKeywordStore(overlayPath: overlayPath)
        for round in 0..<8 { _ = try writer.appendFeedback(items(1000, "round \(round) " + String(repeating: "x", count: 400))) }
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: writer.feedbackPath)[.size] as? Int)
        XCTAssertGreaterThan(size, 3_000_000)
        let fresh = FileKeywordStore(overlayPath: overlayPath)
        XCTAssertEqual(try fresh.appendFeedback(items(1, "after start")).map(\.id), [8001])
        let buffer = fresh.feedbackLog.largestRefreshBuffer
        XCTAssertGreaterThan(buffer, 0)
        XCTAssertLessThan(buffer, 200_000, "the first append held \(buffer) bytes of a \(size)-byte log")
    }

    /// The long read of a log after a start runs without the feedback lock (another process may hold it all along),
    /// and appends afterwards, by this process and others, see every record and client id of the log.
    func testCatchUpReadsTheLogWithoutTheLock() throws {
        let writer = FileKeywordStore(overlayPath: overlayPath)
        for round in 0..<6 {
            var batch = items(1000, "round \(round) " + String(repeating: "x", count: 300))
            for i in stride(from: 0, to: batch.count, by: 10) { batch[i].clientID = "c-\(round)-\(i)" }
            _ = try writer.appendFeedback(batch)
        }
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: writer.feedbackPath)[.size] as? Int)
        XCTAssertGreaterThan(size, FeedbackLog.lockedReadLimit)
        let fresh = FileKeywordStore(overlayPath: overlayPath)
        let done = DispatchSemaphore(value: 0)
        try FileLock(lockPath: writer.feedbackLockPath).withLock { () throws(KeywordStoreError) in
            Thread { fresh.feedbackLog.catchUp(); done.signal() }.start()
            XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "the catch-up waited for the feedback lock")
        }
        XCTAssertEqual(fresh.feedbackLog.indexedBytes, size)
        // Another process appends a record with a client id after the catch-up.
        var late = items(1, "late")[0]
        late.clientID = "late"
        XCTAssertEqual(try writer.appendFeedback([late]).map(\.id), [6001])
        var retried = items(1000, "round 3 " + String(repeating: "x", count: 300))[20]
        retried.clientID = "c-3-20"
        var changed = late
        changed.name = "another name"
        let receipts = try fresh.appendFeedback([retried, late, items(1, "new")[0]])
        XCTAssertEqual(receipts.map(\.id), [3021, 6001, 6002])
        XCTAssertEqual(receipts.map(\.duplicate), [true, true, false])
        XCTAssertThrowsError(try fresh.appendFeedback([changed])) { error in
            guard case KeywordStoreError.clientIDConflict(let key, let earlier) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(key, "late")
            XCTAssertEqual(earlier, 6001)
        }
    }

    /// Without the lock the catch-up stops at the last whole line the log had when it began: an unfinished tail
    /// (a crash's half-written record) may be cut off and written over by another process while it reads, so it
    /// is left for the append, which cuts it under the lock.
    func testCatchUpLeavesAnUnfinishedTailToTheLockedRead() throws {
        let writer = FileKeywordStore(overlayPath: overlayPath)
        for round in 0..<6 {
            _ = try writer.appendFeedback(items(1000, "round \(round) " + String(repeating: "x", count: 300)))
        }
        let whole = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: writer.feedbackPath)[.size] as? Int)
        let tail = Array(#"{"action":"accept","annotator":"bob","client_id":"c-1","#.utf8)
        try appendRaw(tail, to: writer.feedbackPath)
        let fd = open(writer.feedbackPath, O_RDONLY)
        defer { close(fd) }
        XCTAssertEqual(try FeedbackIndex.endOfLastLine(fd: fd, path: writer.feedbackPath, after: 0, before: whole + tail.count), whole)
        XCTAssertEqual(try FeedbackIndex.endOfLastLine(fd: fd, path: writer.feedbackPath, after: whole, before: whole + tail.count), whole)
        let fresh = FileKeywordStore(overlayPath: overlayPath)
        fresh.feedbackLog.catchUp()
        XCTAssertEqual(fresh.feedbackLog.indexedBytes, whole, "the catch-up read the unfinished tail")
        let receipts = try fresh.appendFeedback(items(1, "after the crash"))
        XCTAssertEqual(receipts.map(\.id), [6001])
        XCTAssertEqual(try fresh.feedback(after: 6000, limit: 10).map(\.item.name), ["after the crash 1"])
    }

    /// The end of the last whole line, found reading back over several blocks, with a newline on a block's edge.
    func testEndOfLastLineReadsBackOverBlocks() throws {
        let path = directory + "/lines"
        func end(_ text: String, after start: Int = 0) throws -> Int {
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
            let fd = open(path, O_RDONLY)
            defer { close(fd) }
            return try FeedbackIndex.endOfLastLine(fd: fd, path: path, after: start, before: text.utf8.count)
        }
        XCTAssertEqual(try end("abc\n"), 4)
        XCTAssertEqual(try end("abc\n" + String(repeating: "x", count: 10_000)), 4)
        XCTAssertEqual(try end(String(repeating: "y", count: 5_000) + "\n" + String(repeating: "z", count: 4_095)), 5_001)
        XCTAssertEqual(try end(String(repeating: "y", count: 5_000) + "\n" + String(repeating: "z", count: 4_096)), 5_001)
        XCTAssertEqual(try end("abc\n" + String(repeating: "x", count: 10_000), after: 4), 4)
        XCTAssertEqual(try end(String(repeating: "x", count: 9_000)), 0)
    }

    /// The id and client id read from a line's bytes are what decoding the line gives, or nil (decode instead).
    func testQuickKeysAgreeWithDecoding() throws {
        var item = FeedbackItem(name: "a,\"id\":7,\"client_id\":\"x\" {[", keyword: "にんじん", action: .accept,
                                shown: ["にんじん", "\"client_id\":\"y\""])
        for client in [nil, "c-1", "é-ü", "tab\there", "quote\"d"] {
            item.clientID = client
            let line = FeedbackLine.encode(FeedbackRecord(id: 42, receivedAt: "2026-01-02T03:04:05.678Z", item: item))
            let body = line[0..<(line.count - 1)]
            let decoded = try FeedbackLine.decode(body)
            if let quick = FeedbackLine.quickKeys(body) {
                XCTAssertEqual(quick.id, decoded.id)
                XCTAssertEqual(quick.clientID, decoded.item.clientID)
            } else {
                XCTAssertTrue(client?.contains("\t") == true || client?.contains("\"") == true, "\(client ?? "nil") read by decoding")
            }
        }
        let shapes = [#"{"action":"accept","client_id":"a","client_id":"b","id":1}"#, #"{"action":"accept","id": 1}"#,
                      #"{"action":"accept","\u0069d":1}"#, #"{"action":"accept","client_id":null,"id":1}"#,
                      #"{"action":"accept","id":-1}"#, #"{"action":"accept","id":1.5}"#, #"{"action":"accept","id":1"#]
        for shape in shapes { XCTAssertNil(FeedbackLine.quickKeys(ArraySlice(shape.utf8)), shape) }
        XCTAssertEqual(FeedbackLine.quickKeys(ArraySlice(#"{"shown":["x"],"n":{"id":5},"id":6}"#.utf8))?.id, 6)
    }
}
