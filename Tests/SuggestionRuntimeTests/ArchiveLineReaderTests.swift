import XCTest
@testable import StoreInterface

/// Archive lines split at "\n" whatever the pieces they arrive in, with a bound on one line.
final class ArchiveLineReaderTests: XCTestCase {
    /// The lines of `pieces` (none empty: an empty piece is the end) read with `maxLineBytes`, as text; "!" for
    /// a refused line.
    private func lines(_ pieces: [String], max: Int = 8) -> [String] {
        var queue = pieces.map { Array($0.utf8) }
        var reader = ArchiveLineReader(maxLineBytes: max) { queue.isEmpty ? [] : queue.removeFirst() }
        var result: [String] = []
        do {
            while let line = try reader.next() { result.append(String(decoding: line, as: UTF8.self)) }
        } catch {
            result.append("!")
        }
        return result
    }

    func testLinesAreThoseOfSplittingWhateverThePieces() {
        let text = "ab\ncd\n\nefgh"
        let whole = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines([text]), whole)
        XCTAssertEqual(lines(text.map { String($0) }), whole)
        XCTAssertEqual(lines(["ab\ncd", "\n", "\nef", "gh"]), whole)
        XCTAssertEqual(lines(["a\n"]), ["a", ""])
        XCTAssertEqual(lines([]), [""])
    }

    func testALineLongerThanTheBoundIsRefusedBeforeItEnds() {
        XCTAssertEqual(lines(["12345678\n123456789\n"]), ["12345678", "!"])
        XCTAssertEqual(lines(["1234", "5678", "9"], max: 8), ["!"])
        // The reader stops asking for more once the line is over the bound.
        var asked = 0
        var reader = ArchiveLineReader(maxLineBytes: 8) {
            asked += 1
            return Array("xxxx".utf8)
        }
        XCTAssertThrowsError(try reader.next())
        XCTAssertEqual(asked, 3)
    }
}
