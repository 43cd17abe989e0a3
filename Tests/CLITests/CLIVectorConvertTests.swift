import Foundation
import XCTest

/// `vectors convert` run as the built binary, against the vector fixtures.
final class CLIVectorConvertTests: ScratchTestCase {
    override var scratchPrefix: String { "cli-vectors" }
    static let fixtures = CLIVectorTests.fixtures

    func testHelpIsExact() throws {
        let outcome = try CLITests.run(["vectors", "--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, """
            OVERVIEW: Converts fastText word vectors to the .kwv format models load.

            From a .vec file every word keeps its row. From a .bin model each dictionary word gets the vector
            fastText gives it (its own row and its character n-gram rows averaged, as print-word-vectors prints);
            labels and n-gram rows are not kept, so words outside the dictionary have no vector in the output.
            float16 rounds each value to nearest even. A word .kwv cannot hold (empty, not UTF-8, or given twice)
            or a value that does not fit is an error, and nothing is written. The output is replaced atomically.

            USAGE: kwsuggest vectors [--precision <precision>] <action> <input> <output>

            ARGUMENTS:
              <action>                convert.
              <input>                 A fastText .vec or .bin file (or a .kwv file).
              <output>                The .kwv file to write.

            OPTIONS:
              --precision <precision> How values are stored: float16 (rounded, half the size) or float32 (exact) (default: float16).
              -h, --help              Show help information.

            """)
    }

    /// The reference writer (tools/vectors/vec_to_kwv.py) wrote model.kwv from model.vec.
    func testVecConvertsToTheReferenceWritersBytes() throws {
        let output = scratch + "/model.kwv"
        let outcome = try CLITests.run(["vectors", "convert", "\(Self.fixtures)/model.vec", output])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout, "")
        XCTAssertEqual(outcome.stderr, "wrote \(output): 129974 bytes, 2611 words, dimension 16, float16\n")
        let expected = try Data(contentsOf: CLITests.packageRoot.appendingPathComponent("\(Self.fixtures)/model.kwv"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), expected)
    }

    /// Converted at float32, a .bin model prints the same vectors for its dictionary words as the model.
    func testBinConvertsToTheVectorsTheModelPrints() throws {
        let output = scratch + "/bin.kwv"
        let outcome = try CLITests.run(["vectors", "convert", "--precision", "float32", "\(Self.fixtures)/model.bin", output])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let queries = try String(contentsOf: CLITests.packageRoot.appendingPathComponent("\(Self.fixtures)/queries.txt"),
                                 encoding: .utf8).split(separator: "\n").prefix(60).joined(separator: "\n") + "\n"
        let fromModel = try CLITests.run(["print-word-vectors", "\(Self.fixtures)/model.bin"], stdin: queries)
        let fromConverted = try CLITests.run(["print-word-vectors", output], stdin: queries)
        XCTAssertEqual(fromConverted.status, 0, fromConverted.stderr)
        XCTAssertEqual(fromConverted.stdout.split(separator: "\n").count, 60)
        XCTAssertEqual(fromConverted.stdout, fromModel.stdout)
    }

    func testBadInputFailsAndWritesNothing() throws {
        let input = try file("twice.vec", "2 2\na 1 2\na 3 4\n")
        let output = scratch + "/twice.kwv"
        let outcome = try CLITests.run(["vectors", "convert", input, output])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.stderr, "Error: \(input): word 2 (row 1) 'a' is given twice: .kwv cannot hold it\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        let missing = try CLITests.run(["vectors", "convert", scratch + "/none.vec", output])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr, "Error: \(scratch)/none.vec: no such file\n")
    }

    func testMissingArgumentsAreUsageErrors() throws {
        let usage = "Usage: kwsuggest vectors [--precision <precision>] <action> <input> <output>\n"
            + "  See 'kwsuggest vectors --help' for more information.\n"
        for (arguments, message) in [([], "Missing expected argument '<action>'"),
                                     (["convert", "in.vec"], "Missing expected argument '<output>'"),
                                     (["merge", "a", "b"], "The value 'merge' is invalid for '<action>': expected convert."),
                                     (["convert", "a", "b", "--precision", "float8"],
                                      "The value 'float8' is invalid for '--precision <precision>': expected one of float16, float32.")] {
            let outcome = try CLITests.run(["vectors"] + arguments)
            XCTAssertEqual(outcome.status, 64, message)
            XCTAssertEqual(outcome.stderr, "Error: \(message)\n" + usage)
        }
    }
}
