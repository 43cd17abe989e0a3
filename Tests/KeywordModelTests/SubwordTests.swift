import XCTest
import KeywordModel
@testable import KeywordIndex

/// The hashed sub-word table: its pieces, its gradient, its Float32 inference and its checkpoint header.
final class SubwordTests: XCTestCase {
    func testPiecesAreTheWholeTokenAndItsCharacterNGrams() {
        // The values bench/reference/subwords.py computes for the same token: the two must stay in step.
        XCTAssertEqual(SubwordPieces(surfaces: ["菠薐草"]).hashes,
                       [2102280145, 2446848095, 95488633, 2348639996, 143549766, 1383005385, 1188307450, 13432074,
                        2648426302, 3267505826, 3710769908])
        XCTAssertEqual(SubwordPieces(surfaces: ["鮭"]).hashes, [355848181, 228871848, 4020538077, 1680008830, 2829308457])
        // Katakana and hiragana spellings fold alike; different words differ.
        XCTAssertEqual(SubwordPieces(surfaces: ["ニンジン"]).hashes, SubwordPieces(surfaces: ["にんじん"]).hashes)
        XCTAssertNotEqual(SubwordPieces(surfaces: ["鮭"]).hashes, SubwordPieces(surfaces: ["紅鮭"]).hashes)
        let two = SubwordPieces(surfaces: ["紅", "鮭"])
        XCTAssertEqual(two.tokenCount, 2)
        XCTAssertEqual(two.range(1).count, 5)
        XCTAssertEqual(two.range(2), 0..<0)
        XCTAssertEqual(two.prefix(1).tokenCount, 1)
    }

    func testConfigWithoutSubwordBucketsDecodesAsNone() throws {
        let old = #"{"inputDimension": 8, "hiddenDimension": 4, "sharedEncoder": true, "scale": 16, "featureCount": 3}"#
        let config = try JSONDecoder().decode(ModelConfig.self, from: Data(old.utf8))
        XCTAssertEqual(config.subwordBuckets, 0)
        XCTAssertEqual(ParameterLayout(config).count, ParameterLayout(ModelConfig(inputDimension: 8, hiddenDimension: 4, featureCount: 3)).count)
        let with = ModelConfig(inputDimension: 8, hiddenDimension: 4, subwordBuckets: 16)
        let again = try JSONDecoder().decode(ModelConfig.self, from: JSONEncoder().encode(with))
        XCTAssertEqual(again, with)
        XCTAssertEqual(ParameterLayout(with).count - ParameterLayout(config).count - (LexicalFeature.count - 3), 16 * 4)
    }

    func testSubwordGradientMatchesFiniteDifferences() {
        var generator = SeededGenerator(seed: 5)
        let config = ModelConfig(inputDimension: 6, hiddenDimension: 4, scale: 4, subwordBuckets: 13)
        var weights = ModelWeights(config: config, seed: 5)
        for i in 0..<weights.values.count { weights.values[i] += generator.normal() * 0.3 }
        let vectors = InputVectors.random(rows: 10, dimension: 6, seed: 6)
        func text(_ surfaces: [String]) -> LexicalText {
            var t = LexicalText(folded: [], rows: surfaces.map { _ in generator.below(4) == 0 ? -1 : Int32(generator.below(10)) })
            t.subwords = SubwordPieces(surfaces: surfaces)
            return t
        }
        let keywords = [text(["鮭"]), text(["紅鮭"]), text(["小麦", "粉"]), text(["ほうれん草"])]
        let examples = [TrainingExample(name: text(["国産", "紅鮭", "切り身"]), keywords: [1]),
                        TrainingExample(name: text(["菠薐草", "1束"]), keywords: [3])]
        let objective = BatchObjective(vectors: vectors, keywords: keywords, attention: true, threads: 2)
        let candidates = Array(0..<4)
        let (_, analytic) = objective.evaluate(weights, batch: examples, candidates: candidates)
        let layout = weights.layout
        var largest = 0.0
        for i in layout.subwords..<layout.temperature {
            var plus = weights, minus = weights
            plus.values[i] += 1e-5
            minus.values[i] -= 1e-5
            let numeric = (objective.evaluate(plus, batch: examples, candidates: candidates).loss
                - objective.evaluate(minus, batch: examples, candidates: candidates).loss) / 2e-5
            XCTAssertEqual(analytic[i], numeric, accuracy: 1e-7 + 1e-5 * max(abs(numeric), abs(analytic[i])), "subwords[\(i - layout.subwords)]")
            largest = max(largest, abs(numeric))
        }
        XCTAssertGreaterThan(largest, 1e-6, "the sub-word block has no gradient: the check would be vacuous")
    }

    func testIndexWithSubwordsMatchesTheTrainingEncoderAndSeparatesSharedRows() {
        var generator = SeededGenerator(seed: 9)
        let config = ModelConfig(inputDimension: 10, hiddenDimension: 8, subwordBuckets: 64)
        var weights = ModelWeights(config: config, seed: 9)
        let layout = weights.layout
        for i in layout.subwords..<layout.temperature { weights.values[i] = generator.normal() * 0.5 }
        let vectors = InputVectors.random(rows: 20, dimension: 10, seed: 9)
        // Two keywords with the same row, as chiVe gives 鮭 and 紅鮭: without sub-words they would tie.
        var salmon = LexicalText(folded: LexicalText.fold("鮭"), rows: [4])
        salmon.subwords = SubwordPieces(surfaces: ["鮭"])
        var red = LexicalText(folded: LexicalText.fold("紅鮭"), rows: [4])
        red.subwords = SubwordPieces(surfaces: ["紅鮭"])
        let entries = [KeywordEntry(keyword: "鮭", text: salmon), KeywordEntry(keyword: "紅鮭", text: red)]
        var options = ScoringOptions(evidence: false)
        options.kernel = .portable
        let index = KeywordIndex(model: InferenceModel(weights), vectors: vectors, entries: entries, options: options)
        var name = LexicalText(folded: LexicalText.fold("国産紅鮭"), rows: [7, 4])
        name.subwords = SubwordPieces(surfaces: ["国産", "紅鮭"])
        let scores = index.scores(name)
        XCTAssertNotEqual(scores[0], scores[1])
        let nameStates = SequenceEncoder.forward(name, parameters: weights.values, layout: layout.name, vectors: vectors).states
        for (k, entry) in entries.enumerated() {
            let states = SequenceEncoder.forward(entry.text, parameters: weights.values, layout: layout.keyword, vectors: vectors).states
            let expected = AttentionScorer.forward(name: nameStates, keyword: states, hidden: 8,
                                                   temperature: weights.temperature, attention: true).score
            XCTAssertEqual(Double(scores[k]), expected, accuracy: 1e-4)
        }
    }
}
