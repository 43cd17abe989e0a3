import Foundation
@testable import FileStore
@testable import PostgresStore
@testable import StoreInterface
@testable import TeamQueue
import XCTest

final class QueueTextTests: XCTestCase {
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
