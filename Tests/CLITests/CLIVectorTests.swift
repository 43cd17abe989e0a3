import Foundation
import XCTest

/// `print-word-vectors` and `nn` run as the built binary, against the vector fixtures.
final class CLIVectorTests: XCTestCase {
    static let fixtures = "Tests/KeywordVectorsTests/Fixtures/fasttext"

    /// `word<TAB>values` from expected.txt, written by the reference fastText.
    func expectedVectors() throws -> [String: [Double]] {
        let url = CLITests.packageRoot.appendingPathComponent("\(Self.fixtures)/expected.txt")
        var result: [String: [Double]] = [:]
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            result[String(parts[0])] = parts[1].split(separator: " ").map { Double($0)! }
        }
        return result
    }

    /// Parses `word v1 … vD ` lines.
    func parse(_ output: String) -> [(String, [Double])] {
        output.split(separator: "\n").map { line in
            let fields = line.split(separator: " ")
            return (String(fields[0]), fields.dropFirst().map { Double($0)! })
        }
    }

    func testPrintWordVectorsMatchesFastTextForBinaryModel() throws {
        let expected = try expectedVectors()
        let words = ["生", "ﾆﾝｼﾞﾝ", "🥕", "carrot", "北海道産じゃがいも"]
        let outcome = try CLITests.run(["print-word-vectors", "\(Self.fixtures)/model.bin"], stdin: words.joined(separator: "\n") + "\n")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let lines = parse(outcome.stdout)
        XCTAssertEqual(lines.map(\.0), words)
        // Tolerance 1e-5: both sides print 9 significant digits of the same float32 values.
        for (word, values) in lines {
            let reference = try XCTUnwrap(expected[word], word)
            XCTAssertEqual(values.count, 16)
            XCTAssertLessThanOrEqual(zip(values, reference).map { abs($0 - $1) }.max() ?? 1, 1e-5, word)
        }
        XCTAssertTrue(outcome.stdout.hasSuffix(" \n"), "fastText ends each line with a space")
    }

    func testPrintWordVectorsReadsWhitespaceSeparatedWordsFromTextFile() throws {
        let outcome = try CLITests.run(["print-word-vectors", "\(Self.fixtures)/model.vec"], stdin: "生  unknownword\r\n")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let lines = parse(outcome.stdout)
        XCTAssertEqual(lines.map(\.0), ["生", "unknownword"])
        XCTAssertEqual(lines[1].1, [Double](repeating: 0, count: 16))
    }

    func testNearestNeighboursPrintsQueryAndKLines() throws {
        let outcome = try CLITests.run(["nn", "\(Self.fixtures)/model.bin", "-k", "3"], stdin: "生\nﾆﾝｼﾞﾝ\n")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let lines = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.count, 9)
        XCTAssertEqual(lines[0], "Query word? 生")
        XCTAssertEqual(lines[4], "Query word? ﾆﾝｼﾞﾝ")
        for line in lines[1 ... 3] + lines[5 ... 7] {
            let fields = line.split(separator: " ")
            XCTAssertEqual(fields.count, 2, line)
            let similarity = try XCTUnwrap(Double(fields[1]), line)
            XCTAssertTrue(similarity <= 1.0001 && similarity >= -1.0001, line)
        }
        XCTAssertFalse(lines[1 ... 3].contains { $0.hasPrefix("生 ") }, "the query itself is not its own neighbour")
    }

    func testMissingFileFailsWithExitOne() throws {
        let outcome = try CLITests.run(["print-word-vectors", "no/such/file.bin"], stdin: "a\n")
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.stdout, "")
        XCTAssertEqual(outcome.stderr, "Error: no/such/file.bin: no such file\n")
    }

    func testDamagedFileNamesTheLine() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kwsuggest-cli-\(UUID().uuidString).vec")
        try Data("2 2\na 1 2\nb 1 oops\n".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let outcome = try CLITests.run(["nn", url.path], stdin: "a\n")
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.stderr, "Error: \(url.path):3: value 2 of 'oops' is not a finite number\n")
    }

    func testMissingFileArgumentIsUsageError() throws {
        let outcome = try CLITests.run(["nn"], stdin: "")
        XCTAssertEqual(outcome.status, 64)
        XCTAssertEqual(outcome.stderr, """
            Error: Missing expected argument '<file>'
            Usage: kwsuggest nn [-k <k>] <file>
              See 'kwsuggest nn --help' for more information.

            """)
    }

    func testNonPositiveKIsUsageError() throws {
        let outcome = try CLITests.run(["nn", "\(Self.fixtures)/model.vec", "-k", "0"], stdin: "")
        XCTAssertEqual(outcome.status, 64)
        XCTAssertTrue(outcome.stderr.hasPrefix("Error: The value '0' is invalid for '-k <k>'"), outcome.stderr)
    }
}
