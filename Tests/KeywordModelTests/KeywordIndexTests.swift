import XCTest
#if canImport(Glibc)
import Glibc
#endif
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

    /// The kernels this CPU runs (the portable one always; AVX2 + FMA where present).
    static let kernels = ScoringKernel.allCases.filter(\.isAvailable)

    static func options(_ kernel: ScoringKernel, attention: Bool = true, evidence: Bool = true) -> ScoringOptions {
        var options = ScoringOptions(attention: attention, evidence: evidence)
        options.kernel = kernel
        return options
    }

    func testIndexScoresMatchTheTrainingScorer() {
        for kernel in Self.kernels {
            checkIndexScoresMatchTheTrainingScorer(kernel)
        }
    }

    func checkIndexScoresMatchTheTrainingScorer(_ kernel: ScoringKernel) {
        let (weights, vectors, index) = makeIndex(seed: 1, options: Self.options(kernel))
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
            XCTAssertEqual(scores[k], Float(expected), accuracy: Self.tolerance, "keyword \(k), kernel \(kernel)")
        }
    }

    func testEveryNameLengthMatchesTheTrainingScorerWithAndWithoutAttention() {
        for kernel in Self.kernels {
            checkEveryNameLength(kernel)
        }
    }

    func checkEveryNameLength(_ kernel: ScoringKernel) {
        for attention in [true, false] {
            let (weights, vectors, index) = makeIndex(seed: 9, options: Self.options(kernel, attention: attention, evidence: false))
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
                    XCTAssertEqual(scores[k], Float(expected), accuracy: Self.tolerance, "n \(length) keyword \(k) attention \(attention) kernel \(kernel)")
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
        // Scores in a permuted order: indices come from `order`, and ties still go to the lower keyword index.
        XCTAssertEqual(KeywordIndex.top([3, 1, 3, 2], k: 3, order: [2, 0, 1, 3], heap: &heap).map(\.index), [1, 2, 3])
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
        var entries = Array(index.entries)
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

    /// Uniform values in [−1, 1) from a seeded generator.
    static func random(_ count: Int, _ generator: inout SeededGenerator) -> [Float] {
        (0..<count).map { _ in Float.random(in: -1..<1, using: &generator) }
    }

    /// Runs `FloatKernels.score` on random inputs: n tokens of width `hidden`, `blocks` keyword blocks.
    static func score(kernel: ScoringKernel, threads: Int, n: Int, hidden: Int, blocks: Int, singleBlocks: Int,
                      attention: Bool, seed: UInt64) -> [Float] {
        var generator = SeededGenerator(seed: seed)
        let states = random(n * hidden, &generator)
        var units = states
        for i in 0..<n {
            let norm = (0..<hidden).reduce(Float(1e-12)) { $0 + states[i * hidden + $1] * states[i * hidden + $1] }.squareRoot()
            for q in 0..<hidden { units[i * hidden + q] = states[i * hidden + q] / norm }
        }
        var gram = [Float](repeating: 0, count: n * n)
        for i in 0..<n { for j in 0..<n { for q in 0..<hidden { gram[i * n + j] += states[i * hidden + q] * states[j * hidden + q] } } }
        let means = random(blocks * hidden * 8, &generator), directions = random(blocks * hidden * 8, &generator)
        let buffers = [states, units, gram, means, directions].map { ScratchBuffer(copying: $0, filler: 0) }
        let work = ScratchBuffer(count: 3 * n * threads, repeating: SIMD8<Float>())
        let out = ScratchBuffer(count: blocks * 8, repeating: Float.nan)
        let arguments = FloatKernels.arguments(
            n: n, hidden: hidden, blocks: blocks, singleBlocks: singleBlocks, temperature: 7, attention: attention,
            states: buffers[0].elements, units: buffers[1].elements, gram: buffers[2].elements,
            unitMeans: buffers[3].elements, directions: buffers[4].elements, out: out.mutableElements)
        FloatKernels.score(kernel: kernel, arguments, threads: threads, work: work.mutableElements)
        return out.prefix(out.count)
    }

    /// AVX2 + FMA against the portable kernel: the same formula with other rounding (fused multiply-adds,
    /// other summation order), so scores of size ~1 agree within 2e-5 absolute (observed: a few 1e-7).
    func testAVX2KernelMatchesThePortableKernel() throws {
        try XCTSkipUnless(ScoringKernel.avx2.isAvailable, "this CPU has no AVX2 + FMA")
        for (n, hidden) in [(1, 64), (2, 8), (5, 12), (8, 64), (13, 63), (64, 64)] {
            for attention in [true, false] {
                let blocks = 5, single = attention ? 2 : 0
                let seed = UInt64(n * 100 + hidden)
                let portable = Self.score(kernel: .portable, threads: 1, n: n, hidden: hidden, blocks: blocks,
                                          singleBlocks: single, attention: attention, seed: seed)
                let avx2 = Self.score(kernel: .avx2, threads: 1, n: n, hidden: hidden, blocks: blocks,
                                      singleBlocks: single, attention: attention, seed: seed)
                for k in 0..<(blocks * 8) {
                    XCTAssertTrue(portable[k].isFinite, "n \(n) h \(hidden) keyword \(k)")
                    XCTAssertEqual(avx2[k], portable[k], accuracy: 2e-5, "n \(n) h \(hidden) attention \(attention) keyword \(k)")
                }
            }
        }
    }

    /// Splitting the blocks over two threads gives bit-identical scores (disjoint ranges, same kernel).
    func testTwoThreadsGiveTheSameScoresAsOne() {
        for kernel in KeywordIndexTests.kernels {
            let one = Self.score(kernel: kernel, threads: 1, n: 6, hidden: 16, blocks: 9, singleBlocks: 3,
                                 attention: true, seed: 11)
            let two = Self.score(kernel: kernel, threads: 2, n: 6, hidden: 16, blocks: 9, singleBlocks: 3,
                                 attention: true, seed: 11)
            XCTAssertEqual(one, two, "kernel \(kernel)")
            XCTAssertFalse(one.contains { $0.isNaN }, "every block is written")
        }
    }

    /// The AVX2 matrix-vector product against the portable one, for row and column counts around the
    /// 4-row and 8-lane steps; within 1e-5 relative to the sum of |terms| (rounding of ≤ 40-term sums).
    func testAVX2MatrixVectorProductMatchesThePortableOne() throws {
        try XCTSkipUnless(ScoringKernel.avx2.isAvailable, "this CPU has no AVX2 + FMA")
        var generator = SeededGenerator(seed: 3)
        for rows in [1, 3, 4, 5, 9] {
            for cols in [1, 7, 8, 9, 17, 40] {
                let matrix = Self.random(rows * cols, &generator), vector = Self.random(cols, &generator)
                let start = Self.random(rows, &generator)
                var portable = start, avx2 = start
                FloatKernels.matvecAdd(kernel: .portable, matrix, rows: rows, cols: cols, vector, &portable)
                FloatKernels.matvecAdd(kernel: .avx2, matrix, rows: rows, cols: cols, vector, &avx2)
                for r in 0..<rows {
                    let scale = (0..<cols).reduce(abs(start[r])) { $0 + abs(matrix[r * cols + $1] * vector[$1]) }
                    XCTAssertEqual(avx2[r], portable[r], accuracy: 1e-5 * scale, "rows \(rows) cols \(cols) row \(r)")
                }
            }
        }
    }

    /// The AVX2 residual tanh against Glibc's `tanhf`, within 2e-7 absolute, on [−30, 30] with a fine grid near
    /// 0 (where the series takes over from the exponential form at |v| = 1/16) and at ±0.
    func testAVX2TanhMatchesGlibc() throws {
        try XCTSkipUnless(ScoringKernel.avx2.isAvailable, "this CPU has no AVX2 + FMA")
        var values: [Float] = [0, -0.0, 1e-30, -1e-7, 0.0625, -0.0625, 0.062_499_996, 30, -30, 100]
        var v: Float = -30
        while v <= 30 { values.append(v); v += 0.0137 }
        v = -0.2
        while v <= 0.2 { values.append(v); v += 0.000_31 }
        let x = (0..<values.count).map { Float($0 % 7) - 3 }
        var out = values
        FloatKernels.addTanh(kernel: .avx2, x, &out, count: values.count)
        for i in values.indices {
            XCTAssertEqual(out[i] - x[i], tanhf(values[i]), accuracy: 2e-7, "tanh(\(values[i]))")
        }
    }
}
