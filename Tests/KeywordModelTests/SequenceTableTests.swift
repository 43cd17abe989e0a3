@testable import KeywordModel
import XCTest

/// The sequence table keeps one postings list per key, in first-seen order, without repeats.
final class SequenceTableTests: XCTestCase {
    private func postings(_ table: SequenceTable, _ key: [UInt32]) -> [Int32] {
        key.withUnsafeBufferPointer { buffer in
            table.lookup(buffer, start: 0, length: key.count, hash: SequenceTable.hash(key)).map { Array(table.postings[$0]) } ?? []
        }
    }

    func testRepeatsAreDroppedAndOrderIsKept() {
        let table = SequenceTable([([1, 2], 5), ([3], 1), ([1, 2], 2), ([1, 2], 5), ([3], 1), ([1, 2], 9), ([], 4)])
        XCTAssertEqual(postings(table, [1, 2]), [5, 2, 9])
        XCTAssertEqual(postings(table, [3]), [1])
        XCTAssertEqual(postings(table, [4]), [])
    }

    func testAKeySharedByManyPostingsKeepsThemAll() {
        // 50,000 keywords sharing one leading word: one list of 50,000 postings (quadratic before).
        let entries = (0..<50_000).map { ([UInt32(7)], Int32($0)) } + [([UInt32(7)], Int32(3))]
        let table = SequenceTable(entries)
        XCTAssertEqual(postings(table, [7]), (0..<50_000).map { Int32($0) })
    }
}
