@testable import KeywordModel
import XCTest

/// The sequence table keeps one postings list per key, in insertion order; postings are a multiset.
final class SequenceTableTests: XCTestCase {
    func testPostingsKeepInsertionOrderAndRemoveOneOccurrence() {
        var table = SequenceTable([([1, 2], 5), ([3], 1), ([1, 2], 2), ([1, 2], 9), ([], 4)])
        XCTAssertEqual(table.postings([1, 2]), [5, 2, 9])
        XCTAssertEqual(table.postings([3]), [1])
        XCTAssertEqual(table.postings([4]), [])
        XCTAssertEqual(table.maxLength, 2)
        table.insert([1, 2], 5)
        table.remove([1, 2], 5)
        XCTAssertEqual(table.postings([1, 2]), [5, 2, 9])
        table.remove([1, 2], 5); table.remove([1, 2], 2); table.remove([1, 2], 9)
        XCTAssertEqual(table.postings([1, 2]), [])
        XCTAssertEqual(table.maxLength, 1, "the only key of length 2 is gone")
        XCTAssertFalse(table.hasKeys(ofLength: 2))
    }

    func testAKeySharedByManyPostingsKeepsThemAll() {
        // 50,000 keywords sharing one leading word: one list of 50,000 postings.
        let entries = (0..<50_000).map { ([UInt32(7)], Int32($0)) }
        let table = SequenceTable(entries)
        XCTAssertEqual(table.postings([7]), (0..<50_000).map { Int32($0) })
    }

    func testAChangedCopyLeavesTheOriginalAsItWas() {
        let original = SequenceTable((0..<2_000).map { ([UInt32($0 % 300), 1], Int32($0)) })
        var changed = original
        changed.insert([5, 1], 9_999)
        changed.remove([6, 1], 6)
        XCTAssertEqual(original.postings([5, 1]), [5, 305, 605, 905, 1205, 1505, 1805])
        XCTAssertEqual(changed.postings([5, 1]), [5, 305, 605, 905, 1205, 1505, 1805, 9_999])
        XCTAssertEqual(original.postings([6, 1]).first, 6)
        XCTAssertEqual(changed.postings([6, 1]).first, 306)
    }
}
