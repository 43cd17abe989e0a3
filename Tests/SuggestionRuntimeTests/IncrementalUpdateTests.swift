@testable import FileStore
import Foundation
import KeywordIndex
import KeywordModel
@testable import ModelStorage
@testable import SuggestionRuntime
@testable import StoreInterface
import XCTest

/// Keyword changes applied to the served index as edits serve exactly what a from-scratch build of the same
/// list serves: the list and its version, suggestions with scores and attention, every score, and the
/// exact-match evidence.
final class IncrementalUpdateTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "incremental-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Words w0 … w29 have rows 0 … 29 (x-words have none); varieties target keywords that come and go.
    private func components(base: [String]) -> LoadedModel {
        let config = ModelConfig(inputDimension: 16, hiddenDimension: 8)
        var weights = ModelWeights(config: config, seed: 7)
        for feature in LexicalFeature.allCases { weights.values[weights.layout.features + feature.rawValue] = Double(feature.rawValue + 1) }
        var table: [String: Int32] = [:]
        for i in 0..<30 { table["w\(i)"] = Int32(i) }
        return LoadedModel(directory: directory, analyzer: TableAnalyzer(rows: table),
                               vectors: InputVectors.random(rows: 30, dimension: 16, seed: 8), weights: weights,
                               keywords: base, varieties: [("v1", "w5"), ("v2", "w26 w27"), ("v3", "w28"), ("v3", "x2")],
                               manifest: ModelManifest(modelVersion: "test-1"))
    }

    private func assertServesAlike(_ engine: ModelEngine, _ fresh: ModelEngine, names: [String], _ context: String) {
        XCTAssertEqual(engine.keywordList(), fresh.keywordList(), context)
        let analyzer = engine.components.analyzer
        for name in names {
            let a = engine.suggest(name, k: 8, explain: true), b = fresh.suggest(name, k: 8, explain: true)
            XCTAssertEqual(a.suggestions.map(\.keyword), b.suggestions.map(\.keyword), "\(context): \(name)")
            XCTAssertEqual(a.suggestions.map(\.score), b.suggestions.map(\.score), "\(context): \(name)")
            XCTAssertEqual(a.suggestions.map { $0.weights?.map(\.weight) }, b.suggestions.map { $0.weights?.map(\.weight) },
                           "\(context): \(name)")
            let lexical = analyzer.analyzeName(name).lexical
            XCTAssertEqual(engine.index.scores(lexical), fresh.index.scores(lexical), "\(context): \(name)")
            let evidence = engine.index.exactMatchEvidence(lexical), expected = fresh.index.exactMatchEvidence(lexical)
            XCTAssertEqual(evidence.map(\.keyword), expected.map(\.keyword), "\(context): \(name)")
            XCTAssertEqual(evidence.map(\.values), expected.map(\.values), "\(context): \(name)")
        }
    }

    func testRandomChangesServeWhatAFreshBuildServes() throws {
        var generator = SeededGenerator(seed: 11)
        let base = (0..<20).map { "w\($0)" } + ["w1 w2", "w3 w4", "x1", "w6 w6", "w7 w8 w9"]
        let pool = base + ["w20", "w21 w22", "w26 w27", "w28", "x2", "x3 w5", "w5 w5", "w23", "w24 w25", "w29 w1",
                           "w3 w4 w5", "x4", "w10 w11"]
        let components = components(base: base)
        let overlay = directory + "/keywords.overlay.json"
        let engine = try ModelEngine(components: components, store: FileKeywordStore(overlayPath: overlay))
        let words = (0..<30).map { "w\($0)" } + ["v1", "v2", "v3", "x1", "x2", "x3", "x4"]
        for step in 0..<120 {
            let adds = (0..<Int.random(in: 0...3, using: &generator)).map { _ in pool.randomElement(using: &generator)! }
            let removes = (0..<Int.random(in: 0...2, using: &generator)).map { _ in pool.randomElement(using: &generator)! }
            var change = KeywordChange(add: adds, remove: removes)
            if step % 7 == 0 { change.expectedVersion = engine.keywordList().version }
            _ = try engine.updateKeywords(change)
            guard step % 12 == 11 else { continue }
            let fresh = try ModelEngine(components: components, store: FileKeywordStore(overlayPath: overlay))
            let names = (0..<25).map { _ in
                (0..<Int.random(in: 1...5, using: &generator)).map { _ in words.randomElement(using: &generator)! }
                    .joined(separator: " ")
            } + engine.keywordList().keywords
            assertServesAlike(engine, fresh, names: names, "step \(step)")
        }
        XCTAssertEqual(engine.editedChanges.load(ordering: .relaxed), 120, "every change was applied as an edit")
    }

    func testAChangeOnTopOfAnotherWritersChangeRebuildsAndStillMatches() throws {
        let components = components(base: ["w1", "w2", "w3 w4"])
        let overlay = directory + "/keywords.overlay.json"
        let engine = try ModelEngine(components: components, store: FileKeywordStore(overlayPath: overlay))
        _ = try engine.updateKeywords(add: ["w5"], remove: [])
        // Another process adds w6 through its own store; this engine's next change starts from that overlay.
        _ = try FileKeywordStore(overlayPath: overlay).apply(KeywordChange(add: ["w6"]))
        _ = try engine.updateKeywords(add: ["w7"], remove: ["w1"])
        XCTAssertEqual(engine.keywordList().keywords, ["w2", "w3 w4", "w5", "w6", "w7"])
        XCTAssertEqual(engine.editedChanges.load(ordering: .relaxed), 1, "the second change was a rebuild")
        let fresh = try ModelEngine(components: components, store: FileKeywordStore(overlayPath: overlay))
        assertServesAlike(engine, fresh, names: ["w5 w6 w7", "v1 w2", "w3 w4"], "after a rebuild")
        _ = try engine.updateKeywords(add: ["w1"], remove: ["w6"])
        XCTAssertEqual(engine.editedChanges.load(ordering: .relaxed), 2, "edits resume after the rebuild")
        let again = try ModelEngine(components: components, store: FileKeywordStore(overlayPath: overlay))
        assertServesAlike(engine, again, names: ["w5 w6 w7", "v1 w1", "w3 w4"], "after an edit")
    }

    func testVersionHashFollowsEditsAndDependsOnOrder() {
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<200 {
            let old = (0..<Int.random(in: 0...8, using: &generator)).map { "k\($0)" }
            var edit = KeywordListEdit()
            edit.removals = old.indices.filter { _ in Int.random(in: 0..<3, using: &generator) == 0 }.sorted(by: >)
            var new = old.enumerated().filter { !edit.removals.contains($0.offset) }.map(\.element)
            for n in 0..<Int.random(in: 0...4, using: &generator) {
                let k = Int.random(in: 0...new.count, using: &generator)
                new.insert("n\(n)", at: k)
            }
            edit.insertions = new.enumerated().filter { $0.element.hasPrefix("n") }.map { ($0.offset, $0.element) }
            var hash = KeywordListHash(old)
            hash.apply(edit, old: old, new: new)
            XCTAssertEqual(hash, KeywordListHash(new), "\(old) → \(new)")
        }
        XCTAssertNotEqual(KeywordListHash(["d", "b"]), KeywordListHash(["b", "d"]))
        XCTAssertNotEqual(KeywordListHash([String]()), KeywordListHash([""]))
    }
}

/// The overlay file's bytes are those of Foundation's JSONEncoder with the store's settings.
final class OverlayEncodingTests: XCTestCase {
    func testEncodingMatchesJSONEncoder() throws {
        var tricky = "a\"b\\c/d"
        for c in UInt8(1)..<0x20 { tricky.append(Character(Unicode.Scalar(c))) }
        tricky += "\u{7f}\u{2028}é日本\u{1F955}"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        for overlay in [KeywordOverlay(), KeywordOverlay(added: ["にんじん", tricky], removed: []),
                        KeywordOverlay(added: [], removed: ["x"]), KeywordOverlay(added: ["a", "b"], removed: ["c", tricky])] {
            var expected = try encoder.encode(overlay)
            expected.append(0x0A)
            XCTAssertEqual(KeywordOverlayFile.encode(overlay), [UInt8](expected))
        }
    }
}
