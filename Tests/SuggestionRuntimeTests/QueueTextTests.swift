import Foundation
@testable import FileStore
@testable import PostgresStore
@testable import StoreInterface
@testable import TeamQueue
import XCTest

final class QueueTextTests: XCTestCase {
    func testTimestampsRoundTripAndRefuseOtherForms() {
        XCTAssertEqual(QueueTimestamp.format(0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(QueueTimestamp.format(1_790_000_000_123), "2026-09-21T14:13:20.123Z")
        XCTAssertEqual(QueueTimestamp.format(-1), "1969-12-31T23:59:59.999Z")
        for time: QueueTime in [0, 951_782_400_000, 1_790_000_000_123, 4_102_444_799_999] {
            XCTAssertEqual(QueueTimestamp.parse(QueueTimestamp.format(time)), time)
        }
        XCTAssertEqual(QueueTimestamp.parse("2026-09-21T14:13:20Z"), 1_790_000_000_000)
        XCTAssertEqual(QueueTimestamp.parse("2026-09-21T14:13:20.1Z"), 1_790_000_000_100)
        XCTAssertEqual(QueueTimestamp.parse("2000-02-29T00:00:00Z"), 951_782_400_000)
        XCTAssertEqual(QueueTimestamp.parse("0000-02-29T00:00:00Z").map(QueueTimestamp.format), "0000-02-29T00:00:00.000Z")
        XCTAssertEqual(QueueTimestamp.parse("0000-01-01T00:00:00Z"), -62_167_219_200_000)
        for bad in ["", "2026-09-21", "2026-09-21T14:13:20+09:00", "2026-02-30T00:00:00Z", "2026-09-21T24:00:00Z",
                    "2026-09-21T14:13:20.1234Z", "2026-09-21 14:13:20Z", "1900-02-29T00:00:00Z", "２０２６-09-21T14:13:20Z"] {
            XCTAssertNil(QueueTimestamp.parse(bad), bad)
        }
    }

    func testLabelLine() {
        let label = QueueLabel(id: "SKU-1", name: "カラーにんじん \"3本\"", keywords: ["にんじん"], decidedBy: .model, annotator: nil,
                               model: "m1", at: 1_790_000_000_123)
        XCTAssertEqual(String(decoding: label.exportLine(), as: UTF8.self),
                       #"{"id":"SKU-1","name":"カラーにんじん \"3本\"","keywords":["にんじん"],"decided_by":"model","annotator":null,"model":"m1","at":"2026-09-21T14:13:20.123Z"}"# + "\n")
    }

    /// Pages cover every label once, and an export from `since` starts at labels made at that time.
    func testLabelPages() throws {
        let directory = NSTemporaryDirectory() + "label-pages-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/keywords.overlay.json"
        let store = FileQueueStore(overlayPath: path, feedbackStore: FileKeywordStore(overlayPath: path), policy: QueuePolicy(auditShare: 0))
        for batch in 0..<5 {
            _ = try store.enqueue((0..<7).map { QueueContract.submission("b\(batch)-\($0)", auto: true) }, at: 1000 + QueueTime(batch))
        }
        let pages = LabelPages(store: store, pageSize: 3)
        func ids(since: QueueTime?) throws -> [String] {
            var cursor = LabelPages.start(since: since)
            var lines: [String] = []
            while let page = try pages.page(after: cursor) {
                lines += String(decoding: page.lines, as: UTF8.self).split(separator: "\n").map(String.init)
                cursor = page.end
            }
            return lines.map { String($0.dropFirst(7).prefix { $0 != "\"" }) }
        }
        XCTAssertEqual(try ids(since: nil).count, 35)
        XCTAssertEqual(Set(try ids(since: nil)).count, 35)
        XCTAssertEqual(try ids(since: 1003), (0..<7).map { "b3-\($0)" } + (0..<7).map { "b4-\($0)" })
        XCTAssertEqual(try ids(since: 1005), [])
    }
}
