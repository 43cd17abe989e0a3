import XCTest
@testable import KeywordVectors

/// The shipped chiVe vectors (models/default/vectors.kwv) load and keep chiVe's row ids.
final class DefaultModelTests: VectorTestCase {
    func testDefaultVectorsLoad() throws {
        let path = Fixture.packageRoot.appendingPathComponent("models/default/vectors.kwv").path
        let vectors = try WordVectors.load(path: path)
        XCTAssertEqual(vectors.format, .native)
        XCTAssertEqual(vectors.dimension, 300)
        XCTAssertEqual(vectors.rowCount, 20000)
        XCTAssertEqual(vectors.keyCount, 480_425)
        // Row ids are chiVe's: the first rows are the most frequent words.
        XCTAssertEqual(vectors.row(forKey: "の"), 0)
        XCTAssertEqual(vectors.row(forKey: "、"), 1)
        XCTAssertEqual(vectors.row(forKey: "人参"), 3656)
        XCTAssertEqual(vectors.row(forKey: "ニンジ"), 3656)
        XCTAssertNil(vectors.row(forKey: "にんじん")) // not a normalised form
        // A row's label is its own chiVe word; other keys were mapped onto it by GiNZA's pruning.
        XCTAssertEqual(vectors.label(forRow: 3656), "人参")
        XCTAssertEqual(vectors.label(forRow: try XCTUnwrap(vectors.row(forKey: "全箱"))), "牛肉")
        // Keys are normalised forms; every row has at least one key.
        for row in stride(from: 0, to: 20000, by: 997) { XCTAssertNotNil(vectors.label(forRow: row)) }
        let carrot = try XCTUnwrap(vectors.vector(for: "人参"))
        // First value of chiVe's float32 row 3656 is -0.1805955; float16 keeps it to 2^-11 relative.
        XCTAssertEqual(carrot[0], -0.1805955, accuracy: 1e-4)
    }
}
