@testable import FileStore
import Foundation
import KeywordIndex
import KeywordModel
@testable import ModelStorage
import Platform
@testable import SuggestionRuntime
@testable import StoreInterface
@testable import Training
import TrainingData
import XCTest

/// A whitespace tokenizer over a fixed word → row table: enough text pipeline for engine tests.
struct TableAnalyzer: TextAnalyzer {
    var rows: [String: Int32]
    func analyze(_ raw: String) -> AnalyzedText {
        let words = raw.split(whereSeparator: { $0 == " " || $0 == "　" }).map(String.init)
        return AnalyzedText(normalized: words.joined(separator: " "), surfaces: words, rows: words.map { rows[$0] ?? -1 })
    }
    func analyzeName(_ raw: String) -> AnalyzedText { analyze(raw) }
    func analyzeKeyword(_ raw: String) -> AnalyzedText { analyze(raw) }
}

final class ModelEngineTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "engine-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Words w0 … w29 have rows 0 … 29; keywords are some of them; the encoder is random but the exact-match
    /// and variety evidence weights are large, so a name containing a keyword (or a variety of it) ranks it first.
    func makeComponents(keywords: [String] = ["w1", "w2", "w3 w4", "w5"]) -> LoadedModel {
        let config = ModelConfig(inputDimension: 16, hiddenDimension: 8)
        var weights = ModelWeights(config: config, seed: 3)
        weights.values[weights.layout.features + LexicalFeature.rows.rawValue] = 40
        weights.values[weights.layout.features + LexicalFeature.variety.rawValue] = 40
        var table: [String: Int32] = [:]
        for i in 0..<30 { table["w\(i)"] = Int32(i) }
        return LoadedModel(directory: directory, analyzer: TableAnalyzer(rows: table),
                               vectors: InputVectors.random(rows: 30, dimension: 16, seed: 4), weights: weights,
                               keywords: keywords, varieties: [("v9", "w5")], manifest: ModelManifest(modelVersion: "test-1"))
    }

    func testSuggestRanksTheContainedKeywordFirstAndExplains() throws {
        let engine = try ModelEngine(components: makeComponents())
        let result = engine.suggest("w7 w3 w4 w8", k: 2, explain: true)
        XCTAssertEqual(result.suggestions.count, 2)
        XCTAssertEqual(result.suggestions.first?.keyword, "w3 w4")
        XCTAssertEqual(result.tokens, ["w7", "w3", "w4", "w8"])
        let weights = try XCTUnwrap(result.suggestions.first?.weights)
        XCTAssertEqual(weights.map(\.token), ["w7", "w3", "w4", "w8"])
        XCTAssertEqual(weights.map(\.weight).reduce(0, +), 1, accuracy: 1e-5)
        XCTAssertNil(engine.suggest("w1", k: 1, explain: false).suggestions.first?.weights)
        XCTAssertEqual(engine.modelVersion, "test-1")
    }

    func testVarietyNamesMapToTheirKeyword() throws {
        let engine = try ModelEngine(components: makeComponents())
        XCTAssertEqual(engine.suggest("w20 v9", k: 1, explain: false).suggestions.first?.keyword, "w5")
        // v9 and x9 have no vector, so both names encode alike: the score difference of each keyword is exactly
        // the variety evidence (w5 only), whatever the random encoder ranks. A cosine lies in [-1, 1], so a
        // variety weight above 2 ranks w5 first for any seed or encoder layout.
        let variety = engine.index.model.featureWeights[LexicalFeature.variety.rawValue] * engine.options.evidenceScale
        XCTAssertGreaterThan(variety, 2)
        func scores(_ name: String) -> [String: Float] {
            Dictionary(uniqueKeysWithValues: engine.suggest(name, k: 4, explain: false).suggestions.map { ($0.keyword, $0.score) })
        }
        let with = scores("w20 v9"), without = scores("w20 x9")
        for keyword in ["w1", "w2", "w3 w4", "w5"] {
            let gain = try XCTUnwrap(with[keyword]) - XCTUnwrap(without[keyword])
            // tolerance: the same cosine is computed twice, then a bonus of ~2.5 is added in Float32.
            XCTAssertEqual(gain, keyword == "w5" ? variety : 0, accuracy: 1e-5, keyword)
        }
    }

    func testAddedKeywordsAreServedAtOnceAndPersisted() throws {
        let engine = try ModelEngine(components: makeComponents())
        let before = engine.keywordList()
        XCTAssertEqual(before.keywords.count, 4)
        let after = try engine.updateKeywords(add: ["w12", " w12 "], remove: ["w1"])
        XCTAssertEqual(after.keywords, ["w2", "w3 w4", "w5", "w12"])
        XCTAssertNotEqual(after.version, before.version)
        XCTAssertEqual(engine.suggest("w12 w20", k: 1, explain: false).suggestions.first?.keyword, "w12")
        XCTAssertFalse(engine.suggest("w1", k: 4, explain: false).suggestions.contains { $0.keyword == "w1" })
        // A second engine on the same directory sees the persisted overlay.
        let replica = try ModelEngine(components: makeComponents())
        XCTAssertEqual(replica.keywordList(), after)
        _ = try engine.updateKeywords(add: ["w1"], remove: [])
        XCTAssertEqual(Array(try replica.reloadKeywords().keywords), ["w1", "w2", "w3 w4", "w5", "w12"].sorted { a, b in
            ["w1", "w2", "w3 w4", "w5", "w12"].firstIndex(of: a)! < ["w1", "w2", "w3 w4", "w5", "w12"].firstIndex(of: b)! })
    }

    /// A hand-edited overlay that breaks the keyword rules is refused on reload, and the engine keeps serving
    /// the list it had.
    func testInvalidOverlayOnReloadKeepsThePreviousList() throws {
        let engine = try ModelEngine(components: makeComponents())
        let served = try engine.updateKeywords(add: ["w12"], remove: [])
        let overlay = KeywordOverlayFile.defaultPath(modelDirectory: directory)
        try Data(#"{"added": ["w12", "bad\u0007"], "removed": []}"#.utf8).write(to: URL(fileURLWithPath: overlay))
        XCTAssertThrowsError(try engine.reloadKeywords()) { error in
            XCTAssertTrue("\(error)".contains("'added[1]' contains a control character"), "\(error)")
        }
        XCTAssertEqual(engine.keywordList(), served)
    }

    /// If-Match: the version is checked against the store's current list, under the store's lock, so a replica
    /// that has not heard of another's change yet still refuses a stale version.
    func testExpectedVersionIsCheckedAgainstTheStore() throws {
        let engine = try ModelEngine(components: makeComponents())
        let replica = try ModelEngine(components: makeComponents())
        let start = engine.keywordList().version
        let changed = try engine.updateKeywords(KeywordChange(add: ["w14"], expectedVersion: start))
        XCTAssertEqual(replica.keywordList().version, start, "the replica has not reloaded")
        XCTAssertThrowsError(try replica.updateKeywords(KeywordChange(add: ["w15"], expectedVersion: start))) { error in
            XCTAssertEqual(error as? KeywordStoreError, .versionMismatch(current: changed.version))
        }
        XCTAssertFalse(try replica.reloadKeywords().keywords.contains("w15"), "a refused change is not applied")
        XCTAssertEqual(try replica.updateKeywords(KeywordChange(add: ["w15"], expectedVersion: changed.version)).keywords.suffix(2),
                       ["w14", "w15"])
    }

    func testIgnoringTheOverlayStartsFromTheGivenList() throws {
        let engine = try ModelEngine(components: makeComponents())
        _ = try engine.updateKeywords(add: ["w13"], remove: [])
        let fresh = try ModelEngine(components: makeComponents(keywords: ["w2"]), applyOverlay: false)
        XCTAssertEqual(fresh.keywordList().keywords, ["w2"])
    }

    func testConcurrentSuggestionsDuringUpdatesNeverMixLists() throws {
        let engine = try ModelEngine(components: makeComponents())
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            if i == 0 {
                for j in 0..<5 { _ = try? engine.updateKeywords(add: ["w\(20 + j)"], remove: []) }
            } else {
                for _ in 0..<50 {
                    let result = engine.suggest("w3 w4 w21", k: 3, explain: i % 2 == 0)
                    XCTAssertEqual(result.suggestions.count, 3)
                }
            }
        }
        XCTAssertEqual(engine.keywordList().keywords.count, 9)
    }

    func testEvaluatorRanksAndMetrics() throws {
        let components = makeComponents()
        let index = try components.makeIndex(keywords: components.keywords)
        let data = [LabelledName(name: "w3 w4 w9", keywords: ["w3 w4"], source: "a"),
                    LabelledName(name: "w9 w1", keywords: ["w1"], source: "b"),
                    LabelledName(name: "w9", keywords: ["not-a-candidate"], source: "b")]
        let ranks = Evaluator.ranks(data, index: index, analyzer: components.analyzer, roles: .none)
        XCTAssertEqual(ranks[0], 1)
        XCTAssertEqual(ranks[1], 1)
        XCTAssertNil(ranks[2])
        let (all, bySource) = Evaluator.metrics(data, ranks: ranks)
        XCTAssertEqual(all.n, 3)
        XCTAssertEqual(all.accuracyAt1, 2.0 / 3.0, accuracy: 1e-12)
        XCTAssertEqual(all.mrr, 2.0 / 3.0, accuracy: 1e-12)
        XCTAssertEqual(bySource["b"]?.n, 2)
        let lexical = Evaluator.ranks(data, index: index, analyzer: components.analyzer, roles: .none, mode: .containment)
        XCTAssertEqual(lexical[0], 1)
    }

    func testPrimaryMetricsCountOnlyTheFirstKeyword() throws {
        let components = makeComponents()
        let index = try components.makeIndex(keywords: components.keywords)
        // "w1" is in the name and ranks first; "w2" is listed first but not in the name.
        let data = [LabelledName(name: "w1 w9", keywords: ["w2", "w1"], source: "a"),
                    LabelledName(name: "w1 w9", keywords: ["w1", "w2"], source: "a"),
                    LabelledName(name: "w1", keywords: ["not-a-candidate", "w1"], source: "b")]
        let rankings = Evaluator.rankings(data, index: index, analyzer: components.analyzer, roles: .none)
        XCTAssertEqual(rankings.map(\.best), Evaluator.ranks(data, index: index, analyzer: components.analyzer, roles: .none))
        XCTAssertEqual(rankings[0].best, 1)
        XCTAssertEqual(rankings[0].primary.map { $0 > 1 }, true)
        XCTAssertEqual(rankings[1], NameRank(best: 1, primary: 1))
        XCTAssertEqual(rankings[2], NameRank(best: 1, primary: nil))
        let (all, bySource) = Evaluator.metrics(data, rankings: rankings)
        XCTAssertEqual(all.accuracyAt1, 1, accuracy: 1e-12)
        XCTAssertEqual(all.primaryAccuracyAt1, 1.0 / 3.0, accuracy: 1e-12)
        let r0 = Double(try XCTUnwrap(rankings[0].primary))
        XCTAssertEqual(all.primaryMRR, (1 / r0 + 1) / 3, accuracy: 1e-12)
        XCTAssertEqual(bySource["a"]?.primaryHitsAt1, 1)
        XCTAssertEqual(bySource["b"]?.primaryHitsAt1, 0)
    }
}

final class ModelFilesTests: XCTestCase {
    func write(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "model-files-\(UUID().uuidString)"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testLabelledDataErrorsNameFileAndLine() throws {
        let path = try write("{\"name\": \"にんじん 3本\", \"keywords\": [\"にんじん\"]}\n\n{\"name\": \"x\", \"keywords\": []}\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try LabelledData.load(path: path)) { error in
            XCTAssertEqual("\(error)", "\(path):3: missing or empty array field 'keywords'")
        }
        let broken = try write("{\"name\": \"a\", \"keywords\": [\"b\"]}\nnot json\n")
        defer { try? FileManager.default.removeItem(atPath: broken) }
        XCTAssertThrowsError(try LabelledData.load(path: broken)) { error in
            XCTAssertEqual("\(error)", "\(broken):2: not valid JSON: invalid literal at byte 1")
        }
    }

    func testLabelledDataReadsKeywordsAndSource() throws {
        let path = try write("{\"name\": \"淡路島産 玉ねぎ\", \"keywords\": [\"玉ねぎ\", \"新玉ねぎ\"], \"source\": \"hand\"}\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertEqual(try LabelledData.load(path: path),
                       [LabelledName(name: "淡路島産 玉ねぎ", keywords: ["玉ねぎ", "新玉ねぎ"], source: "hand", line: 1)])
    }

    func testKeywordListDropsBlanksCommentsAndDuplicates() throws {
        let path = try write("# keywords\nにんじん\n\n 玉ねぎ \nにんじん\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertEqual(try ModelFiles.keywords(path: path), ["にんじん", "玉ねぎ"])
    }

    func testInvalidUTF8IsAnErrorWithItsLine() throws {
        let path = NSTemporaryDirectory() + "model-files-\(UUID().uuidString)"
        try Data([0x61, 0x0A, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try ModelFiles.keywords(path: path)) { error in
            XCTAssertEqual("\(error)", "\(path):2: invalid UTF-8")
        }
    }

    func testVarietiesSkipHeaderAndNeedTwoColumns() throws {
        let path = try write("name\tkeyword\tsource\nメークイン\tじゃがいも\thand\nbroken line\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try ModelFiles.varieties(path: path)) { error in
            XCTAssertEqual("\(error)", "\(path):3: expected 'variety<TAB>keyword'")
        }
    }

    func testSHA256KnownAnswers() {
        XCTAssertEqual(SHA256.hex(Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Array(String(repeating: "a", count: 1000).utf8)),
                       "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }
}

extension ModelEngineTests {
    /// A name with no content tokens gets no suggestions and says why, instead of the list's first keywords at 0.
    func testNameWithoutContentTokensGetsAReason() throws {
        let engine = try ModelEngine(components: makeComponents(), overlayPath: directory + "/overlay.json")
        let result = engine.suggest("   ", k: 5, explain: false)
        XCTAssertEqual(result.suggestions, [])
        XCTAssertEqual(result.reason, .noContentTokens)
        XCTAssertFalse(result.autoAccept)
        XCTAssertNil(engine.suggest("w1", k: 5, explain: false).reason)
    }

    /// With a calibration every suggestion has a confidence in [0, 1], and auto-accept follows the threshold;
    /// without one there is no confidence and nothing is auto-accepted.
    func testConfidenceAndAutoAccept() throws {
        var components = makeComponents()
        let plain = try ModelEngine(components: components, overlayPath: directory + "/overlay.json")
        XCTAssertNil(plain.suggest("w1 w9", k: 3, explain: false).suggestions.first?.confidence)
        XCTAssertFalse(plain.suggest("w1 w9", k: 3, explain: false).autoAccept)
        let index = try components.makeIndex(keywords: components.keywords)
        let data = (0..<40).map { LabelledName(name: "w\($0 % 6) w\(10 + $0 % 7)", keywords: ["w\($0 % 6)"]) }
        let samples = CalibrationFitting.collect(data, index: index, analyzer: components.analyzer, roles: .none, depth: 3)
        components.calibration = CalibrationFitting.fit(samples, encoderSHA256: "x", description: "test")
        let calibrated = try ModelEngine(components: components, overlayPath: directory + "/overlay.json",
                                         autoAcceptPrecision: 0.5)
        let result = calibrated.suggest("w1 w12", k: 3, explain: false)
        let confidences = result.suggestions.compactMap(\.confidence)
        XCTAssertEqual(confidences.count, 3)
        XCTAssertTrue(confidences.allSatisfy { (0...1).contains($0) })
        let threshold = try XCTUnwrap(calibrated.autoAcceptThreshold)
        XCTAssertEqual(result.autoAccept, confidences[0] >= threshold)
    }

    /// A change on top of another writer's is rebuilt; when the rebuild fails, the list's order (which the
    /// keyword-cap check asks through `listed`) still describes the list being served.
    func testAFailedRebuildLeavesTheOrderWithTheServedList() throws {
        let components = makeComponents()
        let engine = try ModelEngine(components: components)
        _ = try FileKeywordStore(overlayPath: KeywordOverlayFile.defaultPath(modelDirectory: components.directory))
            .apply(KeywordChange(add: ["other"]))
        let added = (0..<50).map { "n\($0)" }
        struct Injected: Error {}
        engine.rebuildFault.withLock { $0 = Injected() }
        XCTAssertThrowsError(try engine.updateKeywords(KeywordChange(add: added))) { XCTAssertTrue($0 is Injected) }
        XCTAssertEqual(Set(engine.keywordList().keywords), ["w1", "w2", "w3 w4", "w5"])
        XCTAssertEqual(engine.listed(added + ["w1", "w5"]), ["w1", "w5"])
        // A small change after it is served and listed alike.
        _ = try engine.updateKeywords(KeywordChange(remove: ["w2"]))
        let now = Set(engine.keywordList().keywords)
        XCTAssertEqual(engine.listed(added + ["w1", "w2", "w3 w4", "w5", "other"]), now)
        XCTAssertTrue(now.isSuperset(of: added + ["other"]))
    }
}
