import DecisionMemory
import FileStore
import Foundation
import KeywordModel
import ModelStorage
import SuggestionRuntime
import StoreInterface
import StrictJSON
import XCTest

/// Words w0 … w29 with rows 0 … 29, split at spaces; names drop words with a digit (pack sizes) from their key.
/// A name whose words all start with @ stands for one that names only places.
private struct WordAnalyzer: TextAnalyzer {
    func analyze(_ raw: String) -> AnalyzedText {
        let words = raw.split(separator: " ").map(String.init)
        var analyzed = AnalyzedText(normalized: words.joined(separator: " "), surfaces: words,
                                    rows: words.map { Int32($0.dropFirst()).map { $0 < 30 ? $0 : -1 } ?? -1 })
        analyzed.onlyPlaces = !words.isEmpty && words.allSatisfy { $0.hasPrefix("@") }
        return analyzed
    }
    func analyzeName(_ raw: String) -> AnalyzedText { analyze(raw) }
    func analyzeKeyword(_ raw: String) -> AnalyzedText { analyze(raw) }
    func nameKey(_ raw: String) -> String { DecisionMemoryTests.keyer(raw) }
    var nameKeyIdentity: String { "words" }
}

final class RememberingEngineTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "remembering-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func makeEngine(memory: DecisionMemory) throws -> RememberingEngine {
        try Self.makeEngine(directory: directory, memory: memory)
    }

    /// An engine on the words w0 … w29 (keywords w1, w2, w3, w5) whose exact-match evidence ranks a contained
    /// keyword first, over a file store in `directory`.
    static func makeEngine(directory: String, memory: DecisionMemory) throws -> RememberingEngine {
        let config = ModelConfig(inputDimension: 16, hiddenDimension: 8)
        var weights = ModelWeights(config: config, seed: 3)
        weights.values[weights.layout.features + LexicalFeature.rows.rawValue] = 40
        let components = LoadedModel(directory: directory, analyzer: WordAnalyzer(),
                                     vectors: InputVectors.random(rows: 30, dimension: 16, seed: 4), weights: weights,
                                     keywords: ["w1", "w2", "w3", "w5"], varieties: [], manifest: ModelManifest(modelVersion: "test-1"))
        let store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
        return RememberingEngine(base: try ModelEngine(components: components, store: store), memory: memory)
    }

    func decision(_ id: Int64, _ name: String, _ keyword: String, by annotator: String = "alice") -> FeedbackRecord {
        FeedbackRecord(id: id, receivedAt: "", item: FeedbackItem(name: name, keyword: keyword, action: .correct, annotator: annotator))
    }

    func testADecidedNameAnswersWithItsDecisionFirst() throws {
        let memory = DecisionMemory()
        let engine = try makeEngine(memory: memory)
        let before = engine.suggest("w1 w9 500g", k: 3, explain: false)
        XCTAssertEqual(before.suggestions.first?.keyword, "w1")
        XCTAssertEqual(before.suggestions.map(\.source), [.model, .model, .model])
        memory.ingest([decision(1, "w1 w9 1kg", "w3")])
        let after = engine.suggest("w1 w9 500g", k: 3, explain: true)
        XCTAssertEqual(after.suggestions.map(\.keyword), ["w3"] + before.suggestions.map(\.keyword).filter { $0 != "w3" }.prefix(2))
        XCTAssertEqual(after.suggestions.map(\.source), [.memory, .model, .model])
        XCTAssertEqual(after.suggestions[0].remembered, RememberedDecision(name: "w1 w9 1kg", annotators: 1))
        XCTAssertEqual(after.suggestions[0].confidence ?? 0, 0.95, accuracy: 1e-12)
        XCTAssertGreaterThan(after.suggestions[0].score, after.suggestions[1].score)
        XCTAssertEqual(after.memory?.name, "w1 w9 1kg")
        // Without calibration the model auto-accepts nothing, and neither does the memory.
        XCTAssertFalse(after.autoAccept)
        // k = 1 is the decision alone; a name with another key is the model's.
        XCTAssertEqual(engine.suggest("w1 w9", k: 1, explain: false).suggestions.map(\.keyword), ["w3"])
        XCTAssertEqual(engine.suggest("w1 w8", k: 3, explain: false).suggestions.map(\.source), [.model, .model, .model])
    }

    func testOnlyKeywordsOfTheServedListAreRemembered() throws {
        let memory = DecisionMemory()
        let engine = try makeEngine(memory: memory)
        memory.ingest([decision(1, "w2 w9", "w7")])
        XCTAssertEqual(engine.suggest("w2 w9", k: 2, explain: false).suggestions.map(\.source), [.model, .model])
        _ = try engine.updateKeywords(add: ["w7"], remove: [])
        XCTAssertEqual(engine.suggest("w2 w9", k: 2, explain: false).suggestions.first?.keyword, "w7")
        _ = try engine.updateKeywords(add: [], remove: ["w7"])
        XCTAssertNotEqual(engine.suggest("w2 w9", k: 2, explain: false).suggestions.first?.keyword, "w7")
    }

    func testTheMemoryTakesTheNormalisationOfTheEngineThatAnswersAndAShadowSeesTheModelAlone() throws {
        let memory = DecisionMemory()
        memory.ingest([decision(1, "w1 w9 1kg", "w3")])
        let engine = try makeEngine(memory: memory)
        // Keyed by white space alone until an engine answers: the pack size keeps the keys apart.
        XCTAssertNil(memory.recall("w1 w9 500g"))
        XCTAssertEqual(engine.suggest("w1 w9 500g", k: 1, explain: false).suggestions.first?.source, .memory)
        XCTAssertEqual(memory.recall("w1 w9 500g")?.keywords.map(\.keyword), ["w3"])
        XCTAssertTrue((engine.modelOnly as? ModelEngine) === engine.base)
        XCTAssertEqual(engine.modelOnly.suggest("w1 w9 500g", k: 1, explain: false).suggestions.first?.source, .model)
    }

    func testTheWireMarksTheSourceAndExplainsTheDecidedName() throws {
        let memory = DecisionMemory()
        let engine = try makeEngine(memory: memory)
        memory.ingest([decision(1, "w1 w9", "w3"), decision(2, "w1 w9 2kg", "w3", by: "bob")])
        let result = engine.suggest("w1 w9", k: 2, explain: true)
        var json = JSONWriter()
        json.object { json in SuggestionWire.writeMembers(result, name: result.name, explain: true, into: &json) }
        let text = String(decoding: json.bytes, as: UTF8.self)
        XCTAssertTrue(text.contains(#""source":"memory","remembered":{"name":"w1 w9 2kg","annotators":2}"#), text)
        XCTAssertTrue(text.contains(#""source":"model""#), text)
        var plain = JSONWriter()
        plain.object { json in SuggestionWire.writeMembers(result, name: result.name, explain: false, into: &json) }
        XCTAssertFalse(String(decoding: plain.bytes, as: UTF8.self).contains("remembered"))
    }
}

extension RememberingEngineTests {
    /// A name the model leaves empty because it names only places is answered by the team's decision on it.
    func testADecisionAnswersANameOfPlacesAlone() throws {
        let memory = DecisionMemory()
        let engine = try makeEngine(memory: memory)
        let before = engine.suggest("@awaji", k: 3, explain: false)
        XCTAssertEqual(before.suggestions, [])
        XCTAssertEqual(before.reason, .onlyPlaceNames)
        memory.ingest([decision(1, "@awaji", "w2")])
        let after = engine.suggest("@awaji", k: 3, explain: false)
        XCTAssertEqual(after.suggestions.first?.keyword, "w2")
        XCTAssertEqual(after.suggestions.first?.source, .memory)
        XCTAssertNil(after.reason)
    }
}
