import XCTest
import KeywordModel
@testable import KeywordIndex

/// The Float32 index against the Float64 training scorer, and its top-k against a full sort.
final class KeywordIndexTests: XCTestCase {
    /// Float32 vs Float64 on O(1) values with 16-wide sums: agreement within 1e-4 absolute.
    static let tolerance: Float = 1e-4

    func makeIndex(seed: UInt64, options: ScoringOptions = ScoringOptions(), keywordCount: Int = 30)
        -> (ModelWeights, InputVectors, KeywordIndex) {
        var generator = SeededGenerator(seed: seed)
        let config = ModelConfig(inputDimension: 20, hiddenDimension: 12)
        var weights = ModelWeights(config: config, seed: seed)
        let layout = weights.layout
        for f in 0..<layout.featureCount { weights.values[layout.features + f] = Double(f + 1) }
        let vectors = InputVectors.random(rows: 50, dimension: 20, seed: seed)
        var entries: [KeywordEntry] = []
        for k in 0..<keywordCount {
            let rows: [Int32] = (0..<(1 + k % 3)).map { _ in Int32(generator.below(50)) }
            entries.append(KeywordEntry(keyword: "kw\(k)", text: LexicalText(folded: [UInt32(0x3000 + k)], rows: rows)))
        }
        let index = KeywordIndex(model: InferenceModel(weights), vectors: vectors, entries: entries, options: options)
        return (weights, vectors, index)
    }

    func testIndexScoresMatchTheTrainingScorer() {
        let (weights, vectors, index) = makeIndex(seed: 1)
        let layout = weights.layout
        let name = LexicalText(folded: [0x3003, 0x3004, 99], rows: index.entries[3].text.rows + [7, -1, 12])
        let scores = index.scores(name)
        let features = LexicalMatcher(keywords: index.entries.map(\.text)).features(of: name)
        XCTAssertFalse(features.isEmpty, "the name should match keyword 3 exactly")
        let nameStates = SequenceEncoder.forward(name.rows, parameters: weights.values, layout: layout.name, vectors: vectors).states
        for (k, entry) in index.entries.enumerated() {
            let keywordStates = SequenceEncoder.forward(entry.text.rows, parameters: weights.values, layout: layout.keyword,
                                                        vectors: vectors).states
            var expected = AttentionScorer.forward(name: nameStates, keyword: keywordStates, hidden: 12,
                                                   temperature: weights.temperature, attention: true).score
            if let phi = features.first(where: { $0.keyword == k })?.values {
                for f in 0..<phi.count { expected += weights.featureWeights[f] * Double(phi[f]) / weights.config.scale }
            }
            XCTAssertEqual(scores[k], Float(expected), accuracy: Self.tolerance, "keyword \(k)")
        }
    }

    func testEveryNameLengthMatchesTheTrainingScorerWithAndWithoutAttention() {
        for attention in [true, false] {
            let (weights, vectors, index) = makeIndex(seed: 9, options: ScoringOptions(attention: attention, evidence: false))
            let layout = weights.layout
            for length in 1...5 {
                let rows: [Int32] = (0..<length).map { Int32(($0 * 7 + 3) % 50) }
                let scores = index.scores(LexicalText(folded: [], rows: rows))
                let nameStates = SequenceEncoder.forward(rows, parameters: weights.values, layout: layout.name, vectors: vectors).states
                for (k, entry) in index.entries.enumerated() {
                    let keywordStates = SequenceEncoder.forward(entry.text.rows, parameters: weights.values,
                                                                layout: layout.keyword, vectors: vectors).states
                    let expected = AttentionScorer.forward(name: nameStates, keyword: keywordStates, hidden: 12,
                                                           temperature: weights.temperature, attention: attention).score
                    XCTAssertEqual(scores[k], Float(expected), accuracy: Self.tolerance, "n \(length) keyword \(k) attention \(attention)")
                }
            }
        }
    }

    func testTopKAgreesWithAFullSortAndBreaksTiesByIndex() {
        let (_, _, index) = makeIndex(seed: 2, keywordCount: 200)
        let name = LexicalText(folded: [1, 2], rows: [4, 9, 30])
        let scores = index.scores(name)
        let sorted = scores.indices.sorted { scores[$0] > scores[$1] || (scores[$0] == scores[$1] && $0 < $1) }
        XCTAssertEqual(index.search(name, k: 7).map(\.index), Array(sorted.prefix(7)))
        var heap: [ScoredKeyword] = []
        XCTAssertEqual(KeywordIndex.top([1, 3, 3, 2, 3], k: 2, heap: &heap).map(\.index), [1, 2])
        XCTAssertEqual(KeywordIndex.top([1, 2], k: 5, heap: &heap).map(\.index), [1, 0])
        XCTAssertEqual(KeywordIndex.bestRank([0.5, 0.9, 0.9, 0.1], positives: [2, 3]), 2)
        XCTAssertEqual(KeywordIndex.bestRank([0.5, 0.9, 0.9, 0.1], positives: [0]), 3)
    }

    func testAttentionWeightsAreADistributionAndUniformWhenOff() {
        let (_, _, index) = makeIndex(seed: 3)
        let name = LexicalText(folded: [], rows: [1, 2, 3, 4])
        let weights = index.attention(name, keyword: 5)
        XCTAssertEqual(weights.count, 4)
        XCTAssertEqual(weights.reduce(0, +), 1, accuracy: 1e-5)
        let (_, _, flat) = makeIndex(seed: 3, options: ScoringOptions(attention: false))
        XCTAssertEqual(flat.attention(name, keyword: 5), [0.25, 0.25, 0.25, 0.25])
    }

    func testEmptyNameScoresOnlyEvidenceAndNeverCrashes() {
        let (_, _, index) = makeIndex(seed: 4)
        XCTAssertEqual(index.search(LexicalText(folded: [], rows: []), k: 3).count, 3)
        XCTAssertEqual(index.search(LexicalText(folded: [], rows: [-1, 999_999]), k: 0).count, 0)
        let long = LexicalText(folded: [UInt32](repeating: 7, count: 5000), rows: [Int32](repeating: 3, count: 5000))
        XCTAssertEqual(index.search(long, k: 5).count, 5, "names are truncated to maxNameTokens")
    }

    func testReusingAnIndexGivesTheSameScoresAsEncodingAfresh() {
        let (weights, vectors, index) = makeIndex(seed: 5)
        var entries = index.entries
        entries.append(KeywordEntry(keyword: "new", text: LexicalText(folded: [5], rows: [17, 18])))
        let fresh = KeywordIndex(model: InferenceModel(weights), vectors: vectors, entries: entries)
        let reused = KeywordIndex(model: InferenceModel(weights), vectors: vectors, entries: entries, reusing: index)
        let name = LexicalText(folded: [], rows: [17, 18, 2])
        XCTAssertEqual(fresh.scores(name), reused.scores(name))
    }

    func testHubnessPenaltyLowersKeywordsWithManyCloseNeighbours() {
        let (_, _, plain) = makeIndex(seed: 6)
        let (_, _, corrected) = makeIndex(seed: 6, options: ScoringOptions(hubness: 1))
        let name = LexicalText(folded: [], rows: [1, 2])
        let a = plain.scores(name), b = corrected.scores(name)
        for k in 0..<a.count {
            XCTAssertEqual(a[k] - b[k], corrected.hubPenalty[k], accuracy: Self.tolerance)
        }
        XCTAssertTrue(corrected.hubPenalty.contains { $0 != 0 })
    }
}

final class FloatKernelTests: XCTestCase {
    /// The vectorised exp against Foundation's, relative error ≤ 1e-6 on [−87, 0] (the softmax range).
    func testVectorisedExpMatchesFoundation() {
        var x: Float = -87
        while x <= 0 {
            let lanes = SIMD8<Float>((0..<8).map { x + Float($0) * 0.013 }.map { min($0, 0) })
            let got = FloatKernels.exp(lanes)
            for i in 0..<8 {
                let want = Float(Foundation.exp(Double(lanes[i])))
                XCTAssertEqual(got[i], want, accuracy: max(want * 1e-6, 1e-37), "exp(\(lanes[i]))")
            }
            x += 0.37
        }
    }
}
