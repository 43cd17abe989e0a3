@testable import FileStore
import Foundation
import KeywordIndex
import KeywordModel
@testable import ModelStorage
@testable import SuggestionRuntime
@testable import StoreInterface
import XCTest

/// Random changes to a list of about 600 keywords (several 256-slot chunks of single-token keywords and of longer
/// ones, slots freed and reused; some changes take out half the list and put hundreds in) with brand-weighted
/// varieties serve exactly what a from-scratch build serves, and an index handed out earlier still serves what it
/// served then while later versions share and copy its chunks.
final class LargeIncrementalUpdateTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "large-incremental-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testRandomChangesOverSeveralChunksServeWhatAFreshBuildServes() throws {
        var generator = SeededGenerator(seed: 23)
        // w-words have rows 0 … 59, s-words none.
        let singles = (0..<60).map { "w\($0)" } + (0..<340).map { "s\($0)" }
        var multiples: [String] = []
        var seen = Set<String>()
        while multiples.count < 400 {
            let parts = (0..<Int.random(in: 2...3, using: &generator)).map { _ in singles.randomElement(using: &generator)! }
            let keyword = parts.joined(separator: " ")
            if seen.insert(keyword).inserted { multiples.append(keyword) }
        }
        let base = Array(singles.prefix(300)) + Array(multiples.prefix(300))
        let pool = singles + multiples
        var varieties: [(variety: String, keyword: String)] = [], sources: [String] = []
        for i in 0..<48 {
            varieties.append(("v\(i % 40)", pool.randomElement(using: &generator)!))
            sources.append(i % 3 == 0 ? "brand" : "variety")
        }
        let config = ModelConfig(inputDimension: 16, hiddenDimension: 8)
        var weights = ModelWeights(config: config, seed: 9)
        for feature in LexicalFeature.allCases { weights.values[weights.layout.features + feature.rawValue] = Double(feature.rawValue + 1) }
        var table: [String: Int32] = [:]
        for i in 0..<60 { table["w\(i)"] = Int32(i) }
        var manifest = ModelManifest(modelVersion: "test-1")
        manifest.brandEvidenceScale = 2.5
        let components = LoadedModel(directory: directory, analyzer: TableAnalyzer(rows: table),
                                         vectors: InputVectors.random(rows: 60, dimension: 16, seed: 10), weights: weights,
                                         keywords: base, varieties: varieties, varietySources: sources, manifest: manifest)
        XCTAssertEqual(Set(components.varietyEntries().map(\.weight)), [1, 2.5])
        let overlay = directory + "/keywords.overlay.json"
        let engine = try ModelEngine(components: components, store: FileKeywordStore(overlayPath: overlay))
        let words = singles + (0..<40).map { "v\($0)" }
        func names() -> [String] {
            (0..<20).map { _ in
                (0..<Int.random(in: 1...5, using: &generator)).map { _ in words.randomElement(using: &generator)! }
                    .joined(separator: " ")
            } + (0..<20).map { _ in engine.keywordList().keywords.randomElement(using: &generator)! }
        }
        var earlier: (index: KeywordIndex, names: [String], scores: [[Float]])?
        var cut: [String] = [], cutting = SeededGenerator(seed: 29)
        for step in 0..<60 {
            var adds = (0..<Int.random(in: 0...45, using: &generator)).map { _ in pool.randomElement(using: &generator)! }
            var removes = (0..<Int.random(in: 0...25, using: &generator)).map { _ in pool.randomElement(using: &generator)! }
            if step % 20 == 4 && step < 40 {
                // A large change: about half the list out, spread over it, and a hundred in.
                cut = engine.keywordList().keywords.filter { _ in Bool.random(using: &cutting) }
                (removes, adds) = (cut, (0..<100).map { _ in pool.randomElement(using: &cutting)! })
            } else if step % 20 == 6 {
                // And back in, with others out.
                (adds, cut) = (cut, [])
            }
            var change = KeywordChange(add: adds, remove: removes)
            if step % 7 == 0 { change.expectedVersion = engine.keywordList().version }
            _ = try engine.updateKeywords(change)
            guard step % 10 == 9 || step % 20 == 5 else { continue }
            let fresh = try ModelEngine(components: components, store: FileKeywordStore(overlayPath: overlay))
            let checked = names()
            XCTAssertEqual(engine.keywordList(), fresh.keywordList(), "step \(step)")
            for name in checked {
                let a = engine.suggest(name, k: 8, explain: true), b = fresh.suggest(name, k: 8, explain: true)
                XCTAssertEqual(a.suggestions.map(\.keyword), b.suggestions.map(\.keyword), "step \(step): \(name)")
                XCTAssertEqual(a.suggestions.map(\.score), b.suggestions.map(\.score), "step \(step): \(name)")
                XCTAssertEqual(a.suggestions.map { $0.weights?.map(\.weight) }, b.suggestions.map { $0.weights?.map(\.weight) },
                               "step \(step): \(name)")
                let lexical = components.analyzer.analyzeName(name).lexical
                XCTAssertEqual(engine.index.scores(lexical), fresh.index.scores(lexical), "step \(step): \(name)")
                let evidence = engine.index.exactMatchEvidence(lexical), expected = fresh.index.exactMatchEvidence(lexical)
                XCTAssertEqual(evidence.map(\.keyword), expected.map(\.keyword), "step \(step): \(name)")
                XCTAssertEqual(evidence.map(\.values), expected.map(\.values), "step \(step): \(name)")
            }
            if let earlier {
                for (name, scores) in zip(earlier.names, earlier.scores) {
                    XCTAssertEqual(earlier.index.scores(components.analyzer.analyzeName(name).lexical), scores,
                                   "an index served before step \(step) changed: \(name)")
                }
            }
            earlier = (engine.index, checked, checked.map { engine.index.scores(components.analyzer.analyzeName($0).lexical) })
        }
        let final = engine.keywordList().keywords
        XCTAssertGreaterThan(final.filter { !$0.contains(" ") }.count, 256, "more than one chunk of single-token keywords")
        XCTAssertGreaterThan(final.filter { $0.contains(" ") }.count, 256, "more than one chunk of longer keywords")
        XCTAssertEqual(engine.editedChanges.load(ordering: .relaxed), 60, "every change was applied as an edit")
    }
}
