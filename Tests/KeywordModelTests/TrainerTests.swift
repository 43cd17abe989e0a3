import XCTest
import KeywordModel

/// Training on a tiny synthetic task: it must learn, and be deterministic for a seed.
final class TrainerTests: XCTestCase {
    /// Names are a keyword's rows surrounded by noise rows; the keyword universe has 12 two-row keywords.
    static func syntheticProblem(seed: UInt64) -> (InputVectors, [LexicalText], [TrainingExample]) {
        var generator = SeededGenerator(seed: seed)
        let vectors = InputVectors.random(rows: 40, dimension: 8, seed: seed)
        var keywords: [LexicalText] = []
        for k in 0..<12 {
            let first = Int32(2 * k)
            keywords.append(LexicalText(folded: [UInt32(1000 + k)], rows: [first, first + 1]))
        }
        var examples: [TrainingExample] = []
        for e in 0..<48 {
            let k = e % 12
            var rows = [Int32(24 + generator.below(16))]
            rows.append(contentsOf: keywords[k].rows)
            rows.append(Int32(24 + generator.below(16)))
            examples.append(TrainingExample(name: LexicalText(folded: [], rows: rows), keywords: [k]))
        }
        return (vectors, keywords, examples)
    }

    func options(seed: UInt64) -> TrainingOptions {
        var options = TrainingOptions()
        options.epochs = 6
        options.batchSize = 8
        options.hardNegatives = 2
        options.randomNegatives = 4
        options.learningRate = 1e-2
        options.seed = seed
        return options
    }

    func testLossFallsOnASyntheticTask() {
        let (vectors, keywords, examples) = Self.syntheticProblem(seed: 3)
        let config = ModelConfig(inputDimension: 8, hiddenDimension: 6)
        var losses: [Double] = []
        _ = Trainer(vectors: vectors, keywords: keywords, examples: examples, options: options(seed: 5))
            .train(from: ModelWeights(config: config, seed: 5), onEpoch: { report, _ in losses.append(report.loss) })
        XCTAssertEqual(losses.count, 6)
        XCTAssertLessThan(losses.last!, losses.first! * 0.7, "loss did not fall: \(losses)")
    }

    func testTrainingIsDeterministicForASeed() {
        let (vectors, keywords, examples) = Self.syntheticProblem(seed: 3)
        let config = ModelConfig(inputDimension: 8, hiddenDimension: 6)
        func run(_ seed: UInt64) -> ModelWeights {
            Trainer(vectors: vectors, keywords: keywords, examples: examples, options: options(seed: seed))
                .train(from: ModelWeights(config: config, seed: seed))
        }
        XCTAssertEqual(run(9), run(9))
        XCTAssertNotEqual(run(9), run(10))
    }

    func testCheckpointRoundTripsThroughFloat32() throws {
        let config = ModelConfig(inputDimension: 8, hiddenDimension: 6)
        let weights = ModelWeights(config: config, seed: 11)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kw-ckpt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Checkpoint.save(weights, directory: directory.path)
        let loaded = try Checkpoint.load(directory: directory.path)
        XCTAssertEqual(loaded.config, config)
        // Float32 storage: relative rounding ≤ 2⁻²⁴ ≈ 6e-8.
        for (a, b) in zip(weights.values, loaded.values) { XCTAssertEqual(a, b, accuracy: 1e-7 * max(1, abs(a))) }
    }

    func testCheckpointRejectsATruncatedWeightsFile() throws {
        let config = ModelConfig(inputDimension: 8, hiddenDimension: 6)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kw-ckpt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Checkpoint.save(ModelWeights(config: config, seed: 1), directory: directory.path)
        let bin = directory.appendingPathComponent(Checkpoint.valuesName)
        let data = try Data(contentsOf: bin)
        try data.prefix(data.count - 4).write(to: bin)
        XCTAssertThrowsError(try Checkpoint.load(directory: directory.path)) { error in
            XCTAssertTrue("\(error)".contains("encoder.bin"), "\(error)")
        }
    }
}
