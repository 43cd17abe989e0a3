import XCTest
@testable import KeywordModel

/// Finite-difference checks of the hand-written backward pass, for every parameter block.
///
/// Everything runs in Float64. Central differences with step 1e-5 have truncation error ~1e-10 relative, so
/// the tolerance is |analytic − numeric| ≤ 1e-7 + 1e-5 · max(|analytic|, |numeric|) per parameter.
final class GradientCheckTests: XCTestCase {
    static let step = 1e-5
    static let absoluteTolerance = 1e-7
    static let relativeTolerance = 1e-5

    func makeProblem(shared: Bool, seed: UInt64) -> (BatchObjective.Type, ModelWeights, InputVectors, [LexicalText], [TrainingExample]) {
        var generator = SeededGenerator(seed: seed)
        let config = ModelConfig(inputDimension: 7, hiddenDimension: 5, sharedEncoder: shared, scale: 4)
        var weights = ModelWeights(config: config, seed: seed)
        // Perturb everything (biases, OOV, feature weights start at 0 otherwise) so no gradient is trivially zero.
        for i in 0..<weights.values.count { weights.values[i] += generator.normal() * 0.3 }
        weights.values[weights.layout.temperature] = 2.5
        let vectors = InputVectors.random(rows: 12, dimension: 7, seed: seed &+ 1)
        func randomRows(_ count: Int) -> RowSequence {
            (0..<count).map { _ in generator.below(5) == 0 ? -1 : Int32(generator.below(12)) }
        }
        // Keyword 0 and name 0 start with a word without a vector, so the OOV states always get a gradient;
        // feature values come from their own generator, so adding a feature does not change the rows.
        var featureGenerator = SeededGenerator(seed: seed &+ 2)
        let keywords = (0..<6).map { k in
            LexicalText(folded: [UInt32(k)], rows: (k == 0 ? [-1] : []) + randomRows(1 + k % 3))
        }
        var examples: [TrainingExample] = []
        for e in 0..<3 {
            var features: [Int: [Double]] = [:]
            for k in 0..<6 where featureGenerator.below(2) == 0 {
                features[k] = (0..<LexicalFeature.count).map { _ in featureGenerator.unit() }
            }
            let positives = e == 1 ? [1, 4] : [e]
            let rows = (e == 0 ? [-1] : []) + randomRows(2 + e)
            examples.append(TrainingExample(name: LexicalText(folded: [], rows: rows), keywords: positives,
                                            features: features))
        }
        return (BatchObjective.self, weights, vectors, keywords, examples)
    }

    func check(shared: Bool, attention: Bool, threads: Int, subsets: [[Int]]? = nil, primaryFirst: Bool = false) {
        let (_, weights, vectors, keywords, examples) = makeProblem(shared: shared, seed: 42)
        let objective = BatchObjective(vectors: vectors, keywords: keywords, attention: attention, threads: threads,
                                       primaryFirst: primaryFirst)
        let candidates = Array(0..<6)
        let (_, analytic) = objective.evaluate(weights, batch: examples, candidates: candidates, subsets: subsets)
        for block in weights.layout.blocks {
            if !attention && block.name == "temperature" { continue }
            var largest = 0.0
            for i in block.range {
                var plus = weights, minus = weights
                plus.values[i] += Self.step
                minus.values[i] -= Self.step
                let numeric = (objective.evaluate(plus, batch: examples, candidates: candidates, subsets: subsets).loss
                    - objective.evaluate(minus, batch: examples, candidates: candidates, subsets: subsets).loss) / (2 * Self.step)
                let tolerance = Self.absoluteTolerance + Self.relativeTolerance * max(abs(numeric), abs(analytic[i]))
                XCTAssertEqual(analytic[i], numeric, accuracy: tolerance, "\(block.name)[\(i - block.range.lowerBound)]")
                largest = max(largest, abs(numeric))
            }
            XCTAssertGreaterThan(largest, 1e-6, "block \(block.name) has no gradient at all: the check would be vacuous")
        }
    }

    func testGradientsSeparateEncodersWithAttention() { check(shared: false, attention: true, threads: 1) }
    func testGradientsSharedEncoderWithAttention() { check(shared: true, attention: true, threads: 2) }
    func testGradientsWithoutAttention() { check(shared: false, attention: false, threads: 2) }
    func testGradientsWhenAlternativesCompeteWithThePrimary() {
        check(shared: true, attention: true, threads: 2, primaryFirst: true)
    }

    func testPrimaryFirstPutsTheAlternativeInTheLoss() {
        // Example 1 lists [1, 4]: masked, keyword 4 is left out of its softmax; with primaryFirst it competes,
        // so the loss can only grow.
        let (_, weights, vectors, keywords, examples) = makeProblem(shared: true, seed: 42)
        let masked = BatchObjective(vectors: vectors, keywords: keywords)
            .evaluate(weights, batch: [examples[1]], candidates: Array(0..<6))
        let ranked = BatchObjective(vectors: vectors, keywords: keywords, primaryFirst: true)
            .evaluate(weights, batch: [examples[1]], candidates: Array(0..<6))
        XCTAssertGreaterThan(ranked.loss, masked.loss)
        let single = BatchObjective(vectors: vectors, keywords: keywords, primaryFirst: true)
            .evaluate(weights, batch: [examples[0]], candidates: Array(0..<6))
        let singleMasked = BatchObjective(vectors: vectors, keywords: keywords)
            .evaluate(weights, batch: [examples[0]], candidates: Array(0..<6))
        XCTAssertEqual(single.loss, singleMasked.loss, accuracy: 1e-12, "one keyword: nothing to unmask")
    }

    func testGradientsWithPerExampleCandidateSubsets() {
        check(shared: false, attention: true, threads: 2, subsets: [[0, 1, 5], [1, 2, 4], [2, 3, 0, 1]])
    }

    func testThreadCountDoesNotChangeTheGradientBeyondRounding() {
        let (_, weights, vectors, keywords, examples) = makeProblem(shared: false, seed: 7)
        let one = BatchObjective(vectors: vectors, keywords: keywords, threads: 1)
            .evaluate(weights, batch: examples, candidates: Array(0..<6))
        let two = BatchObjective(vectors: vectors, keywords: keywords, threads: 2)
            .evaluate(weights, batch: examples, candidates: Array(0..<6))
        XCTAssertEqual(one.loss, two.loss, accuracy: 1e-12)
        for i in 0..<one.gradient.count { XCTAssertEqual(one.gradient[i], two.gradient[i], accuracy: 1e-12) }
    }
}
