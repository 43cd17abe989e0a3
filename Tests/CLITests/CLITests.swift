import Foundation
import XCTest

/// Runs the built `kwsuggest` binary and compares its output and exit status exactly.
final class CLITests: XCTestCase {
    static var binary: URL {
        // The test bundle sits in the build products folder (or is that folder); the binary sits beside it.
        let bundle = Bundle(for: CLITests.self).bundleURL
        let candidates = [bundle.appendingPathComponent("kwsuggest"),
                          bundle.deletingLastPathComponent().appendingPathComponent("kwsuggest"),
                          bundle.appendingPathComponent("debug/kwsuggest")]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[1]
    }

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus,
                       stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData, as: UTF8.self))
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    func testVersion() throws {
        let outcome = try Self.run(["--version"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, "0.1.0\n")
    }

    func testUnknownOptionIsUsageError() throws {
        let outcome = try Self.run(["--frobnicate"])
        XCTAssertEqual(outcome.status, 64)
        XCTAssertEqual(outcome.stdout, "")
        XCTAssertEqual(outcome.stderr, """
            Error: Unknown option '--frobnicate'
            Usage: kwsuggest <subcommand>
              See 'kwsuggest --help' for more information.

            """)
    }

    func testUnknownSubcommandOptionIsUsageError() throws {
        let outcome = try Self.run(["nn", "--bogus"])
        XCTAssertEqual(outcome.status, 64)
        XCTAssertEqual(outcome.stderr, """
            Error: Unknown option '--bogus'
            Usage: kwsuggest nn <file> [-k <k>]
              See 'kwsuggest nn --help' for more information.

            """)
    }

    func testRootHelpListsSubcommands() throws {
        let outcome = try Self.run(["--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertTrue(outcome.stdout.hasPrefix("OVERVIEW: Suggests ingredient keywords for grocery product names.\n\nUSAGE: kwsuggest <subcommand>\n"))
        for name in ["serve", "suggest", "eval", "train", "tokenize", "print-word-vectors", "nn", "bench"] {
            XCTAssertTrue(outcome.stdout.contains("\n  \(name) "), "help lacks \(name)")
        }
    }
}
