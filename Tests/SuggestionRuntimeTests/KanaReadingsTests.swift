import Foundation
import KeywordText
@testable import ModelStorage
import XCTest

/// Kana spellings from the varieties table give an unknown kana token of a name its keyword's word row.
final class KanaReadingsTests: XCTestCase {
    static let modelDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("models/default").path
    static let pipeline: TextPipeline? = try? TextPipeline.load(directory: modelDirectory)

    private func rowOfWord(_ word: String, _ pipeline: TextPipeline) -> Int32? {
        pipeline.tokenizeKeyword(word).first?.row.map(Int32.init)
    }

    func testAReadingGivesItsKeywordsRowInAnyKanaScript() throws {
        let pipeline = try XCTUnwrap(Self.pipeline)
        let readings = KanaReadings(pipeline: pipeline, varieties: [("てばさき", "手羽先")])
        let row = try XCTUnwrap(rowOfWord("手羽先", pipeline))
        XCTAssertEqual(readings.row(of: "てばさき"), row)
        XCTAssertEqual(readings.row(of: "テバサキ"), row)
        XCTAssertNil(readings.row(of: "てばさ"))
    }

    func testShortSpellingsAndOtherScriptsGiveNothing() throws {
        let pipeline = try XCTUnwrap(Self.pipeline)
        let readings = KanaReadings(pipeline: pipeline, varieties: [
            ("もも", "桃"),                 // shorter than the minimum
            ("香菜", "パクチー"),            // not kana
        ])
        XCTAssertEqual(readings.count, 0)
    }

    /// The spelling of a keyword of several words reads as no row, so that an unknown token spelled so carries no
    /// sub-word row of some other word (ｵﾁｬ would read チャ's).
    func testASpellingOfSeveralWordsReadsAsNoRow() throws {
        let pipeline = try XCTUnwrap(Self.pipeline)
        let readings = KanaReadings(pipeline: pipeline, varieties: [("ぶたばら", "豚バラ肉"), ("おちゃ", "お茶")])
        XCTAssertEqual(readings.row(of: "ブタバラ"), -1)
        let analyzer = PipelineAnalyzer(pipeline: pipeline, readings: readings)
        XCTAssertNotEqual(PipelineAnalyzer(pipeline: pipeline).analyzeName("ｵﾁｬ").rows, [-1], "the lattice's sub-word")
        XCTAssertEqual(analyzer.analyzeName("ｵﾁｬ").rows, [-1])
    }

    func testASpellingTwoWordsClaimGivesNone() throws {
        let pipeline = try XCTUnwrap(Self.pipeline)
        let readings = KanaReadings(pipeline: pipeline, varieties: [("こうさい", "パクチー"), ("コウサイ", "にんじん")])
        XCTAssertNil(readings.row(of: "こうさい"))
        let same = KanaReadings(pipeline: pipeline, varieties: [("こうさい", "パクチー"), ("コウサイ", "パクチー")])
        XCTAssertEqual(same.row(of: "コウサイ"), rowOfWord("パクチー", pipeline))
    }

    /// In a name, only a token the lexicon does not know takes the reading's row; a lexicon word keeps its own.
    func testOnlyUnknownTokensOfANameReadSo() throws {
        let pipeline = try XCTUnwrap(Self.pipeline)
        let plain = PipelineAnalyzer(pipeline: pipeline)
        let reading = PipelineAnalyzer(pipeline: pipeline, readings: KanaReadings(pipeline: pipeline, varieties: [
            ("てばさき", "手羽先"), ("にんじん", "大根"),
        ]))
        let row = try XCTUnwrap(rowOfWord("手羽先", pipeline))
        XCTAssertNotEqual(plain.analyzeName("ﾃﾊﾞｻｷ").rows, [row], "the lattice's own guess differs")
        XCTAssertEqual(reading.analyzeName("ﾃﾊﾞｻｷ").rows, [row])
        XCTAssertEqual(reading.analyzeName("にんじん").rows, plain.analyzeName("にんじん").rows)
    }
}

extension KanaReadingsTests {
    /// An unknown token the pipeline resolved to a known word keeps that word's row, whatever a reading says.
    func testATokenResolvedToAWordKeepsItsRow() throws {
        let pipeline = try XCTUnwrap(Self.pipeline)
        let plain = PipelineAnalyzer(pipeline: pipeline)
        let reading = PipelineAnalyzer(pipeline: pipeline, readings: KanaReadings(pipeline: pipeline, varieties: [("あかごめ", "米")]))
        XCTAssertEqual(reading.analyzeName("アカゴメ").rows, plain.analyzeName("アカゴメ").rows)
        XCTAssertEqual(plain.analyzeName("アカゴメ").rows, [try XCTUnwrap(rowOfWord("赤米", pipeline))])
    }
}
