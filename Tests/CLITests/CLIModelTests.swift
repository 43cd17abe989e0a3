import Foundation
import XCTest

/// `suggest`, `eval` and `train` against the built binary and the shipped model (models/default).
/// Nothing here trains a model: `train` is exercised only through its argument and data-file errors.
final class CLIModelTests: ScratchTestCase {
    override var scratchPrefix: String { "cli-model" }

    func testSuggestJSONPutsTheNamedIngredientFirst() throws {
        let outcome = try CLITests.run(["suggest", "--json", "-k", "3", "淡路島産 にんじん 3本 農家直送", "北海道産 玉ねぎ 10kg"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let lines = outcome.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        XCTAssertEqual(first?["name"] as? String, "淡路島産 にんじん 3本 農家直送")
        let suggestions = try XCTUnwrap(first?["suggestions"] as? [[String: Any]])
        XCTAssertEqual(suggestions.count, 3)
        XCTAssertEqual(suggestions.first?["keyword"] as? String, "にんじん")
        XCTAssertNotNil(suggestions.first?["score"] as? Double)
        let second = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]
        XCTAssertEqual((second?["suggestions"] as? [[String: Any]])?.first?["keyword"] as? String, "玉ねぎ")
    }

    func testDamagedModelFileIsAChecksumErrorAndExitOne() throws {
        let copy = scratch + "/damaged"
        try FileManager.default.copyItem(atPath: CLITests.packageRoot.appendingPathComponent("models/default").path, toPath: copy)
        let encoder = URL(fileURLWithPath: copy + "/encoder.bin")
        var data = try Data(contentsOf: encoder)
        data.replaceSubrange(1000..<1200, with: [UInt8](repeating: 0x5A, count: 200))
        try data.write(to: encoder)
        let outcome = try CLITests.run(["suggest", "--model", copy, "にんじん"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.stderr.contains("encoder.bin: SHA-256 is "), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("the file is damaged or was replaced"), outcome.stderr)
        XCTAssertEqual(outcome.stdout, "")
    }

    func testSuggestReadsStdinAndExplains() throws {
        let outcome = try CLITests.run(["suggest", "--json", "--explain", "-k", "1"], stdin: "じゃがいも 男爵 5kg\n\n")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
        XCTAssertNotNil(object?["tokens"] as? [String])
        let suggestion = try XCTUnwrap((object?["suggestions"] as? [[String: Any]])?.first)
        let weights = try XCTUnwrap(suggestion["weights"] as? [[String: Any]])
        let total = weights.compactMap { $0["weight"] as? Double }.reduce(0, +)
        XCTAssertEqual(total, 1, accuracy: 1e-3, "attention weights sum to 1 (printed with 6 digits)")
    }

    func testSuggestKeywordsFileReplacesTheCandidates() throws {
        let keywords = try file("keywords.txt", "りんご\nみかん\nぶどう\n")
        let outcome = try CLITests.run(["suggest", "--keywords", keywords, "-k", "5", "--json", "青森県産 サンふじ 5kg"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
        let names = (object?["suggestions"] as? [[String: Any]])?.compactMap { $0["keyword"] as? String }
        XCTAssertEqual(names?.count, 3)
        XCTAssertEqual(names?.first, "りんご")
    }

    func testEvalJSONLastLineIsOneObject() throws {
        let data = try file("dev.jsonl", """
            {"name": "鹿児島県産 さつまいも 紅はるか 2kg", "keywords": ["さつまいも"]}
            {"name": "国産 豚バラ肉 スライス 500g", "keywords": ["豚バラ肉", "豚肉"]}

            """)
        for ablation in ["none", "no-attention", "untrained", "lexical"] {
            let outcome = try CLITests.run(["eval", "--data", data, "--json", "--ablation", ablation])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            let last = try XCTUnwrap(outcome.stdout.split(separator: "\n").last)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
            XCTAssertEqual(Set(object.keys), ["n", "accuracy_at_1", "accuracy_at_5", "mrr", "primary_accuracy_at_1", "primary_mrr",
                                              "calibration"])
            XCTAssertEqual(object["n"] as? Int, 2)
            for key in ["accuracy_at_1", "accuracy_at_5", "mrr", "primary_accuracy_at_1", "primary_mrr"] {
                let value = try XCTUnwrap(object[key] as? Double)
                XCTAssertTrue((0...1).contains(value), "\(ablation) \(key) = \(value)")
            }
        }
        let full = try CLITests.run(["eval", "--data", data])
        XCTAssertTrue(full.stdout.hasPrefix("n: 2\nAccuracy@1: "), full.stdout)
        XCTAssertTrue(full.stdout.contains("\nPrimary Accuracy@1: "), full.stdout)
    }

    func testEvalDataErrorsNameFileAndLine() throws {
        let data = try file("bad.jsonl", "{\"name\": \"a\", \"keywords\": [\"b\"]}\n{\"name\": 3}\n")
        let outcome = try CLITests.run(["eval", "--data", data, "--ablation", "lexical"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.stderr, "Error: \(data):2: missing or empty string field 'name'\n")
        let missing = try CLITests.run(["eval", "--data", scratch + "/nope.jsonl"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr, "Error: \(scratch)/nope.jsonl: cannot read the file\n")
    }

    func testUsageErrorsExit64() throws {
        let cases: [([String], String)] = [
            (["eval"], "Missing expected option '--data <file>'"),
            (["eval", "--data", "x", "--ablation", "magic"],
             "The value 'magic' is invalid for '--ablation <ablation>': expected one of none, no-attention, untrained, lexical."),
            (["suggest", "-k", "0", "x"], "The value '0' is invalid for '-k <k>': expected an integer from 1 to 50."),
            (["train", "--data", "x"], "Missing expected option '--out <dir>'"),
            (["train", "--data", "x", "--out", "y", "--epochs", "0"], "The value '0' is invalid for '--epochs <n>': expected an integer from 1 to 1000."),
        ]
        for (arguments, message) in cases {
            let outcome = try CLITests.run(arguments)
            XCTAssertEqual(outcome.status, 64, arguments.joined(separator: " "))
            XCTAssertTrue(outcome.stderr.hasPrefix("Error: \(message)\nUsage: kwsuggest \(arguments[0]) "), outcome.stderr)
        }
    }

    func testTrainReportsABadDataLine() throws {
        let data = try file("train.jsonl", "{\"name\": \"a\", \"keywords\": [\"b\"]}\n[1, 2]\n")
        let outcome = try CLITests.run(["train", "--data", data, "--out", scratch + "/model"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.stderr, "Error: \(data):2: expected a JSON object\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/model"))
    }
}
