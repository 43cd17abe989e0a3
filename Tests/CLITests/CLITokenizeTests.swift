import Foundation
import XCTest

/// `kwsuggest tokenize` against the built binary and the shipped model.
final class CLITokenizeTests: XCTestCase {
    func run(_ arguments: [String], stdin: String? = nil) throws -> CLITests.Outcome {
        try CLITests.run(["tokenize", "--model", "models/default"] + arguments, stdin: stdin)
    }

    func testJSONLine() throws {
        let outcome = try run(["--json", "淡路島産 カラーにんじん 3本"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout, """
            {"input": "淡路島産 カラーにんじん 3本", "normalized": "淡路島産 カラーにんじん", "tokens": [\
            {"surface": "淡路島", "normalized": "淡路島", "row": 10002, "oov": false, "content": true, "start": 0, "end": 3}, \
            {"surface": "産", "normalized": "産", "row": 2232, "oov": false, "content": true, "start": 3, "end": 4}, \
            {"surface": "カラー", "normalized": "カラー", "row": 1067, "oov": false, "content": true, "start": 5, "end": 8}, \
            {"surface": "にんじん", "normalized": "人参", "row": 3656, "oov": false, "content": true, "start": 8, "end": 12}]}

            """)
    }

    /// Keywords carry the row of their whole text as one lexicon word: しめさば splits into しめ / さば, and as one
    /// word it is 締め鯖 with a row of its own; a word the lexicon lacks gets null.
    func testKeywordJSONCarriesTheWholeWordRow() throws {
        let outcome = try run(["--json", "--keyword"], stdin: "しめさば\nにんじんさばしめ\n")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let lines = outcome.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(lines.count, 2)
        let split = try XCTUnwrap(lines[0])
        let tokens = try XCTUnwrap(split["tokens"] as? [[String: Any]])
        XCTAssertEqual(tokens.map { $0["surface"] as? String }, ["しめ", "さば"])
        let whole = try XCTUnwrap(split["whole_word_row"] as? Int)
        XCTAssertFalse(tokens.contains { $0["row"] as? Int == whole }, "the whole word's row is neither part's")
        let unknown = try XCTUnwrap(lines[1])
        XCTAssertTrue(unknown["whole_word_row"] is NSNull, outcome.stdout)
    }

    func testPlainLines() throws {
        let outcome = try run(["淡路島産 カラーにんじん 3本", "【送料無料】ﾆﾝｼﾞﾝ 1kg"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout, """
            淡路島産 カラーにんじん\t淡路島#10002 産#2232 カラー#1067 にんじん(人参)#3656
            ニンジン\tニンジン(人参)#3656

            """)
    }

    func testStandardInputWithOddLines() throws {
        let outcome = try run(["--json"], stdin: "にんじん\n\n🍎りんご\u{1}\r\n")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout, """
            {"input": "にんじん", "normalized": "にんじん", "tokens": [{"surface": "にんじん", "normalized": "人参", "row": 3656, "oov": false, "content": true, "start": 0, "end": 4}]}
            {"input": "", "normalized": "", "tokens": []}
            {"input": "🍎りんご\\u0001", "normalized": "りんご", "tokens": [{"surface": "りんご", "normalized": "林檎", "row": 2584, "oov": false, "content": true, "start": 1, "end": 4}]}

            """)
    }

    func testInvalidUTF8OnStandardInput() throws {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = ["tokenize", "--model", "models/default", "--json"]
        process.currentDirectoryURL = CLITests.packageRoot
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data([0xFF, 0xFE] + Array("たまねぎ\n".utf8)))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), """
            {"input": "\u{FFFD}\u{FFFD}たまねぎ", "normalized": "たまねぎ", "tokens": [{"surface": "たまねぎ", "normalized": "玉葱", "row": 4074, "oov": false, "content": true, "start": 2, "end": 6}]}

            """)
    }

    func testVeryLongLine() throws {
        let line = String(repeating: "国産にんじん", count: 16_667)  // 100,002 characters
        let outcome = try run(["--stats"], stdin: line + "\n")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.hasPrefix("lines: 1\ntokens: 33334\n"), outcome.stdout)
    }

    func testMissingModelIsAFailure() throws {
        let outcome = try CLITests.run(["tokenize", "--model", "/nonexistent-model", "x"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.stdout, "")
        XCTAssertEqual(outcome.stderr, "Error: /nonexistent-model/lexicon.kwlex: no such file\n")
    }

    func testJSONAndStatsConflict() throws {
        let outcome = try run(["--json", "--stats"])
        XCTAssertEqual(outcome.status, 64)
        XCTAssertTrue(outcome.stderr.hasPrefix("Error: '--json' and '--stats' cannot be used together\n"), outcome.stderr)
    }

    func testKeywordModeKeepsEverything() throws {
        let outcome = try run(["--keyword", "限定 トマト"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout, "限定 トマト\t限定#773 トマト#2547\n")
    }
}
