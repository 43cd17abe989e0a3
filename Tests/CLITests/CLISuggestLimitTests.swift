import Foundation
import XCTest

/// `suggest` applies the server's input limits, and never echoes terminal controls or reads unbounded files.
final class CLISuggestLimitTests: ScratchTestCase {
    override var scratchPrefix: String { "cli-limits" }

    func testOverlongAndNULLinesAreClearErrors() throws {
        let long = try CLITests.run(["suggest"], stdin: "にんじん\n" + "a" + String(repeating: "\u{0301}", count: 1000) + "\n")
        XCTAssertEqual(long.status, 1)
        XCTAssertTrue(long.stderr.contains("standard input line 2: 'name' is longer than 1000 characters"), long.stderr)
        XCTAssertTrue(long.stdout.hasPrefix("にんじん\t") || long.stdout.hasPrefix("にんじん\n"), "earlier lines are answered: \(long.stdout)")
        // A 3 MB line is refused at 1 MiB, before it is buffered whole.
        let hugeInput = try file("huge.txt", String(repeating: "あ", count: 1_000_000))
        let huge = try runWithInputFile(["suggest"], hugeInput)
        XCTAssertEqual(huge.status, 1)
        XCTAssertTrue(huge.stderr.contains("standard input line 1 is longer than 1048576 bytes"), huge.stderr)
        let nul = try CLITests.run(["suggest"], stdin: "a\u{0}b\n")
        XCTAssertEqual(nul.status, 1)
        XCTAssertTrue(nul.stderr.contains("standard input line 1: 'name' contains a NUL character"), nul.stderr)
        let argument = try CLITests.run(["suggest", "にんじん", String(repeating: "x", count: 1001)])
        XCTAssertEqual(argument.status, 1)
        XCTAssertTrue(argument.stderr.contains("argument 2: 'name' is longer than 1000 characters"), argument.stderr)
    }

    /// Runs the binary with a file as standard input (it may stop reading early without a broken pipe).
    private func runWithInputFile(_ arguments: [String], _ path: String) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = arguments
        process.currentDirectoryURL = CLITests.packageRoot
        process.standardInput = try XCTUnwrap(FileHandle(forReadingAtPath: path))
        process.standardOutput = Pipe()
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    func testTerminalControlsAreNotEchoedRaw() throws {
        let outcome = try CLITests.run(["suggest", "-k", "1"], stdin: "\u{1B}]0;owned\u{7}にんじん \u{9B}31m\n")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertFalse(outcome.stdout.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7}" || $0 == "\u{9B}" }, outcome.stdout)
        XCTAssertTrue(outcome.stdout.hasPrefix(#"\u{1b}]0;owned\u{7}にんじん \u{9b}31m"#), outcome.stdout)
        let json = try CLITests.run(["suggest", "--json", "-k", "1"], stdin: "にんじん \u{9B}31m\n")
        XCTAssertTrue(json.stdout.contains(#"にんじん \u009b31m"#), json.stdout)
    }

    func testKeywordsFileMustBeABoundedRegularFile() throws {
        let link = scratch + "/random.txt"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/urandom")
        let device = try CLITests.run(["suggest", "--keywords", link, "にんじん"])
        XCTAssertEqual(device.status, 1)
        XCTAssertTrue(device.stderr.contains("random.txt: not a regular file or a pipe"), device.stderr)
        let big = scratch + "/big.txt"
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: big))
        try handle.truncate(atOffset: 17 * 1024 * 1024)
        try handle.close()
        let tooBig = try CLITests.run(["suggest", "--keywords", big, "にんじん"])
        XCTAssertEqual(tooBig.status, 1)
        XCTAssertTrue(tooBig.stderr.contains("at most 16777216 are read"), tooBig.stderr)
        // Pipes (bash process substitution) still work.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "\"$0\" suggest --keywords <(printf 'りんご\\nにんじん\\n') -k 1 にんじん", CLITests.binary.path]
        process.currentDirectoryURL = CLITests.packageRoot
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertTrue(printed.contains("1. にんじん"), printed)
        XCTAssertEqual(process.terminationStatus, 0)
    }
}
