import Foundation
import KeywordService
import XCTest

final class LexicalEngineTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "lexical-engine-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "# comment\nにんじん\nカラーにんじん\nたまねぎ\n卵\n豚バラ肉\nＡＢＣ\n\n".write(toFile: directory + "/keywords.txt", atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func makeEngine() throws -> LexicalEngine { try LexicalEngine(modelDirectory: directory) }

    func testContainedKeywordsComeFirstLongestFirst() throws {
        let result = try makeEngine().suggest("淡路島産 カラーにんじん 3本", k: 3, explain: false)
        XCTAssertEqual(result.suggestions.map(\.keyword), ["カラーにんじん", "にんじん"])
        XCTAssertGreaterThan(result.suggestions[0].score, result.suggestions[1].score)
        XCTAssertGreaterThanOrEqual(result.suggestions[1].score, 0.5)
    }

    func testBigramOverlapRanksTheRestBelowContainment() throws {
        let result = try makeEngine().suggest("豚バラ 焼肉用", k: 5, explain: false)
        XCTAssertEqual(result.suggestions.first?.keyword, "豚バラ肉")
        XCTAssertLessThan(result.suggestions.first?.score ?? 1, 0.5)
    }

    func testSingleCharacterKeywordAndNFKC() throws {
        let engine = try makeEngine()
        XCTAssertEqual(engine.suggest("国産 卵 10個", k: 1, explain: false).suggestions.first?.keyword, "卵")
        XCTAssertEqual(engine.suggest("abc セット", k: 1, explain: false).suggestions.first?.keyword, "ＡＢＣ")
    }

    func testExplainGivesTokenWeights() throws {
        let result = try makeEngine().suggest("新物 にんじん", k: 1, explain: true)
        XCTAssertEqual(result.tokens, ["新物", "にんじん"])
        let weights = try XCTUnwrap(result.suggestions.first?.weights)
        XCTAssertEqual(weights.map(\.token), ["新物", "にんじん"])
        XCTAssertEqual(weights[1].weight, 1, accuracy: 1e-6)  // tolerance: exact ratio of small integers
    }

    func testUpdatesPersistAndReload() throws {
        let engine = try makeEngine()
        let before = engine.keywordList()
        XCTAssertEqual(before.keywords.count, 6)
        let after = try engine.updateKeywords(add: ["ごぼう"], remove: ["たまねぎ"])
        XCTAssertTrue(after.keywords.contains("ごぼう"))
        XCTAssertFalse(after.keywords.contains("たまねぎ"))
        XCTAssertNotEqual(after.version, before.version)
        // A second engine (a restart, or another replica) sees the change.
        let restarted = try makeEngine()
        XCTAssertEqual(restarted.keywordList(), after)
        // Another replica's change is picked up by reload.
        _ = try restarted.updateKeywords(add: ["れんこん"], remove: [])
        XCTAssertTrue(try engine.reloadKeywords().keywords.contains("れんこん"))
    }

    func testMissingKeywordListIsAClearError() {
        XCTAssertThrowsError(try LexicalEngine(modelDirectory: directory + "/nope")) { error in
            XCTAssertTrue("\(error)".contains("keywords.txt"), "\(error)")
        }
    }
}
