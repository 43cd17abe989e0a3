import XCTest
@testable import KeywordVectors

/// Parity with the reference fastText on the committed fixture (see Fixtures/README.md).
final class FastTextParityTests: VectorTestCase {
    /// fastText's arithmetic in the same order gives the same floats; 1e-5 leaves room for the
    /// 9-digit decimal rounding of `expected.txt`.
    let binaryTolerance: Float = 1e-5
    /// `model.vec` holds 5 significant digits (fastText's own output precision), so values near 1
    /// can be off by up to 5e-5.
    let textTolerance: Float = 1e-4

    func testBinaryMatchesReferenceForEveryQuery() throws {
        let vectors = try WordVectors.load(path: Fixture.binPath)
        XCTAssertEqual(vectors.format, .fastTextBinary)
        XCTAssertEqual(vectors.dimension, 16)
        XCTAssertEqual(vectors.rowCount, vectors.keyCount + 2000)
        let expected = try Fixture.expected()
        XCTAssertEqual(expected.count, 97)
        for (word, reference) in expected {
            let vector = try XCTUnwrap(vectors.vector(for: word), word)
            XCTAssertLessThanOrEqual(maxAbsDifference(vector, reference), binaryTolerance, word)
        }
    }

    func testSupervisedModelMatchesReferenceIncludingLabels() throws {
        let vectors = try WordVectors.load(path: Fixture.supervisedDirectory.appendingPathComponent("model.bin").path)
        XCTAssertEqual(vectors.dimension, 20)
        XCTAssertEqual(vectors.rowCount, vectors.keyCount + 500)
        let expected = try Fixture.expected(in: Fixture.supervisedDirectory)
        XCTAssertEqual(expected.filter { $0.word.hasPrefix("__label__") }.count, 5)
        for (word, reference) in expected {
            let vector = try XCTUnwrap(vectors.vector(for: word), word)
            XCTAssertLessThanOrEqual(maxAbsDifference(vector, reference), binaryTolerance, word)
        }
        // Labels are not vocabulary keys.
        XCTAssertNil(vectors.row(forKey: expected.last!.word))
    }

    func testQueriesCoverEachKindOfWord() throws {
        let vectors = try WordVectors.load(path: Fixture.binPath)
        let words = try Fixture.expected().map(\.word)
        let inVocabulary = words.filter { vectors.row(forKey: $0) != nil }
        XCTAssertEqual(inVocabulary.count, 60)
        for word in ["北海道産じゃがいも", "ﾆﾝｼﾞﾝ", "🥕", "👨‍👩‍👧", "carrot", "ABC123"] {
            XCTAssertTrue(words.contains(word), word)
            XCTAssertNil(vectors.row(forKey: word), word)
            XCTAssertNotEqual(vectors.vector(for: word), [Float](repeating: 0, count: 16), word)
        }
    }

    func testOutOfVocabularyWordIsMeanOfItsNgramRows() throws {
        let vectors = try WordVectors.load(path: Fixture.binPath)
        // "<x>" with minn 1, maxn 4: n-grams "x", "<x", "x>", "<x>" (the lone "<" and ">" are skipped).
        var sum = [Float](repeating: 0, count: 16)
        for ngram in ["x", "<x", "x>", "<x>"] {
            let row = vectors.keyCount + Int(FastTextSubwords.hash(ArraySlice(ngram.utf8)) % 2000)
            vectors.withRow(row) { for index in 0 ..< 16 { sum[index] += $0[index] } }
        }
        let mean = sum.map { $0 * Float(1.0 / 4.0) }
        XCTAssertLessThanOrEqual(maxAbsDifference(try XCTUnwrap(vectors.vector(for: "x")), mean), 1e-7)
    }

    func testHashSignExtendsBytes() {
        // FNV-1a over bytes ≥ 0x80 differs when the byte is sign-extended: 0xE3 becomes 0xFFFFFFE3.
        XCTAssertEqual(FastTextSubwords.hash(ArraySlice("a".utf8)), 0xE40C_292C) // plain FNV-1a of "a"
        var unsigned: UInt32 = 2_166_136_261
        unsigned ^= 0xE3
        unsigned = unsigned &* 16_777_619
        XCTAssertNotEqual(FastTextSubwords.hash([0xE3]), unsigned)
        var signed: UInt32 = 2_166_136_261
        signed ^= 0xFFFF_FFE3
        signed = signed &* 16_777_619
        XCTAssertEqual(FastTextSubwords.hash([0xE3]), signed)
    }

    func testEndOfSentenceOutOfVocabularyIsZero() throws {
        let vectors = try WordVectors.load(path: Fixture.binPath)
        // "</s>" is in this vocabulary (its own row only); check that path, too.
        let row = try XCTUnwrap(vectors.row(forKey: "</s>"))
        let own = vectors.withRow(row) { Array($0) }
        XCTAssertEqual(vectors.vector(for: "</s>"), own)
    }

    func testTextFileMatchesReferenceForVocabularyWords() throws {
        let vectors = try WordVectors.load(path: Fixture.vecPath)
        XCTAssertEqual(vectors.format, .fastTextText)
        XCTAssertEqual(vectors.dimension, 16)
        var compared = 0
        for (word, reference) in try Fixture.expected() {
            guard let vector = vectors.vector(for: word) else { continue }
            XCTAssertLessThanOrEqual(maxAbsDifference(vector, reference), textTolerance, word)
            compared += 1
        }
        XCTAssertEqual(compared, 60)
        XCTAssertNil(vectors.vector(for: "carrot"))
    }

    func testBinaryAndTextShareVocabularyOrder() throws {
        let binary = try WordVectors.load(path: Fixture.binPath)
        let text = try WordVectors.load(path: Fixture.vecPath)
        XCTAssertEqual(binary.keyCount, text.keyCount)
        for row in [0, 1, 100, text.rowCount - 1] {
            XCTAssertEqual(binary.label(forRow: row), text.label(forRow: row))
        }
        XCTAssertNil(binary.label(forRow: binary.keyCount)) // first n-gram bucket
    }

    func testNearestNeighboursExcludeTheQueryAndAreSorted() throws {
        let vectors = try WordVectors.load(path: Fixture.binPath)
        let index = NeighbourIndex(vectors)
        let word = try XCTUnwrap(vectors.label(forRow: 5))
        let neighbours = try XCTUnwrap(index.nearest(toWord: word, k: 10))
        XCTAssertEqual(neighbours.count, 10)
        XCTAssertFalse(neighbours.contains { $0.label == word })
        XCTAssertEqual(neighbours.map(\.similarity), neighbours.map(\.similarity).sorted(by: >))
        // Similarity is the cosine: recompute the best one by hand.
        let query = try XCTUnwrap(vectors.vector(for: word))
        let other = try XCTUnwrap(vectors.vector(for: neighbours[0].label))
        let cosine = zip(query, other).map { $0 * $1 }.reduce(0, +) / (NeighbourIndex.norm(query) * NeighbourIndex.norm(other))
        XCTAssertEqual(neighbours[0].similarity, cosine, accuracy: 1e-5)
    }
}
