import Foundation
import XCTest

/// `serve --annotators FILE` and `--lease-cap`: a file that breaks the format stops the start, naming the file and
/// the line; both options are in the help.
final class CLIServeAnnotatorsTests: ScratchTestCase {
    override var scratchPrefix: String { "cli-annotators" }

    func testABrokenAnnotatorsFileStopsTheStartNamingTheLine() throws {
        let digest = String(repeating: "ab", count: 32)
        for (text, message) in [("alice\t\(digest)\nbob \(digest)\n", ":2: expected 'name<TAB>sha256 hex of the token'"),
                                ("b\u{200B}ob\t\(digest)\n", ":1: 'name' contains the invisible format character U+200B")] {
            let path = scratch + "/annotators.tsv"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let outcome = try CLITests.run(["serve", "--port", "0", "--annotators", path])
            XCTAssertEqual(outcome.status, 1, outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains(path + message), outcome.stderr)
        }
        let missing = try CLITests.run(["serve", "--port", "0", "--annotators", scratch + "/none.tsv"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("cannot read the annotators file"), missing.stderr)
    }

    func testTheHelpNamesBothOptions() throws {
        let help = try CLITests.run(["serve", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("--annotators <file>"), help.stdout)
        XCTAssertTrue(help.stdout.contains("--lease-cap <n>"), help.stdout)
        XCTAssertTrue(help.stdout.contains("(default: 100)"), help.stdout)
    }
}
