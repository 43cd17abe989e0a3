import Foundation
import KeywordIndex
import KeywordModel
@testable import ModelStorage
import Synchronization
import XCTest

/// Counts keyword analyses, to show an update analyses only the keywords it adds.
final class CountingAnalyzer: TextAnalyzer, @unchecked Sendable {
    let inner: TableAnalyzer
    let keywordAnalyses = Atomic<Int>(0)
    init(_ inner: TableAnalyzer) { self.inner = inner }
    func analyzeName(_ raw: String) -> AnalyzedText { inner.analyzeName(raw) }
    func analyzeKeyword(_ raw: String) -> AnalyzedText {
        keywordAnalyses.add(1, ordering: .relaxed)
        return inner.analyzeKeyword(raw)
    }
}

final class IncrementalIndexTests: XCTestCase {
    func testAnUpdateAnalysesOnlyNewKeywordsAndScoresAsAFreshIndex() throws {
        var table: [String: Int32] = [:]
        for i in 0..<30 { table["w\(i)"] = Int32(i) }
        let analyzer = CountingAnalyzer(TableAnalyzer(rows: table))
        let config = ModelConfig(inputDimension: 16, hiddenDimension: 8)
        let components = LoadedModel(directory: NSTemporaryDirectory(), analyzer: analyzer,
                                         vectors: InputVectors.random(rows: 30, dimension: 16, seed: 4),
                                         weights: ModelWeights(config: config, seed: 3), keywords: [], varieties: [],
                                         manifest: ModelManifest(modelVersion: "test-1"))
        let before = (0..<20).map { "w\($0)" } + ["w1 w2", "w3 w4"]
        let first = try components.makeIndex(keywords: before, varieties: [])
        XCTAssertEqual(analyzer.keywordAnalyses.load(ordering: .relaxed), before.count)
        let after = before.filter { $0 != "w5" } + ["w20 w21", "w22"]
        let updated = try components.makeIndex(keywords: after, varieties: [], reusing: first)
        XCTAssertEqual(analyzer.keywordAnalyses.load(ordering: .relaxed), before.count + 2, "only the two new keywords")
        let fresh = try components.makeIndex(keywords: after, varieties: [])
        XCTAssertEqual(updated.entries, fresh.entries)
        let name = components.analyzer.analyzeName("w3 w20 w21 w7").lexical
        XCTAssertEqual(updated.scores(name), fresh.scores(name))
    }
}
