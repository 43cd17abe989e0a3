import Foundation
import XCTest

/// `kwsuggest bench` with tiny iteration counts: output shape and argument errors, not speed
/// (speed is measured by running the release binary, see bench/README.md).
final class CLIBenchTests: ScratchTestCase {
    override var scratchPrefix: String { "cli-bench" }

    /// The shipped keyword count, by the loader's rules (trimmed, non-empty, no comments, first occurrence).
    func shippedKeywordCount() throws -> Int {
        let text = try String(contentsOf: CLITests.packageRoot.appendingPathComponent("models/default/keywords.txt"), encoding: .utf8)
        var seen = Set<String>()
        for line in text.split(separator: "\n") {
            let keyword = line.trimmingCharacters(in: .whitespaces)
            if !keyword.isEmpty && !keyword.hasPrefix("#") { seen.insert(keyword) }
        }
        return seen.count
    }

    func testJSONLastLineHasExactlyTheDocumentedKeysAndCountsExtraKeywords() throws {
        let names = try file("names.txt", "淡路島産 にんじん 3本\n\n# a comment\n北海道産 玉ねぎ 10kg\n")
        let outcome = try CLITests.run(["bench", "--names", names, "--rounds", "1", "--loads", "1",
                                        "--keywords", "20", "--json"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let lines = outcome.stdout.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("suggest p50 (median)") }, outcome.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("names") && $0.contains("2 × 1 rounds") }, outcome.stdout)
        let last = try XCTUnwrap(lines.last)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["keywords", "suggest_p50_ms", "suggest_p99_ms", "tokenize_per_s", "load_ms", "rss_mb"])
        XCTAssertEqual(object["keywords"] as? Int, try shippedKeywordCount() + 20)
        for key in ["suggest_p50_ms", "suggest_p99_ms", "tokenize_per_s", "load_ms", "rss_mb"] {
            let value = try XCTUnwrap(object[key] as? Double, key)
            XCTAssertGreaterThan(value, 0, key)
        }
        let p50 = try XCTUnwrap(object["suggest_p50_ms"] as? Double), p99 = try XCTUnwrap(object["suggest_p99_ms"] as? Double)
        XCTAssertLessThanOrEqual(p50, p99)
    }

    /// The default large run fills the list as far as the cap allows and still has room for the keyword each
    /// round adds.
    func testUpdatesRunWithTheirDefaultsStaysWithinTheKeywordCap() throws {
        let outcome = try CLITests.run(["bench", "--updates", "--rounds", "1"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let header = try XCTUnwrap(outcome.stdout.split(separator: "\n").first { $0.hasPrefix("change") }, outcome.stdout)
        XCTAssertTrue(header.contains("\(try shippedKeywordCount()) keywords"), String(header))
        XCTAssertTrue(header.contains("49999 keywords"), String(header))
    }

    func testBadCountsAreUsageErrors() throws {
        for (option, value) in [("--keywords", "-1"), ("--rounds", "0"), ("--loads", "many")] {
            let outcome = try CLITests.run(["bench", option, value])
            XCTAssertEqual(outcome.status, 64, "\(option) \(value): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.hasPrefix("Error: The value '\(value)' is invalid for '\(option) <"), outcome.stderr)
            XCTAssertEqual(outcome.stdout, "")
        }
    }

    func testUnknownKernelIsAUsageErrorWithTheExactMessage() throws {
        let outcome = try CLITests.run(["bench", "--kernel", "sse9"])
        XCTAssertEqual(outcome.status, 64, outcome.stderr)
        XCTAssertTrue(outcome.stderr.hasPrefix("Error: The value 'sse9' is invalid for '--kernel <name>': expected one of portable, avx2.\n"),
                      outcome.stderr)
        XCTAssertEqual(outcome.stdout, "")
    }

    func testTheTableNamesTheKernelItRan() throws {
        let names = try file("names.txt", "淡路島産 にんじん 3本\n")
        let outcome = try CLITests.run(["bench", "--names", names, "--rounds", "1", "--loads", "1", "--kernel", "portable"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.hasPrefix("scoring kernel                portable\n"), outcome.stdout)
    }

    func testMissingNamesFileIsAFailureNamingTheFile() throws {
        let missing = scratch + "/absent.txt"
        let outcome = try CLITests.run(["bench", "--names", missing, "--rounds", "1", "--loads", "1"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.stderr.contains("\(missing): cannot read the names file"), outcome.stderr)
    }

    func testHelpDocumentsTheOptions() throws {
        let outcome = try CLITests.run(["bench", "--help"])
        XCTAssertEqual(outcome.status, 0)
        for text in ["kwsuggest bench [--model <dir>] [--keywords <n>] [--names <file>] [--rounds <r>] [--loads <l>] [--kernel <name>] [--json]", "--rounds <r>",
                     "--loads <l>", "--names <file>", "EXTRA keywords",
                     "  --kernel <name>         Scoring kernel: avx2 or portable (default: the fastest this CPU runs).\n"] {
            XCTAssertTrue(outcome.stdout.contains(text), text)
        }
    }
}
