import Foundation
import XCTest

/// Where commands find the model without --model: an installed layout (<prefix>/bin/kwsuggest with the model
/// under <prefix>/share/kwsuggest/models/default), and ./models/default before anything else.
final class CLIModelSearchTests: ScratchTestCase {
    override var scratchPrefix: String { "cli-model-search" }

    private func tokenize(binary: URL, in workingDirectory: String) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["tokenize", "--json"]
        process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
        var environment = ProcessInfo.processInfo.environment
        environment["KWSUGGEST_MODEL"] = nil
        process.environment = environment
        let out = Pipe(), err = Pipe(), input = Pipe()
        (process.standardOutput, process.standardError, process.standardInput) = (out, err, input)
        try process.run()
        input.fileHandleForWriting.write(Data("にんじん 3本\n".utf8))
        try input.fileHandleForWriting.close()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    func testInstalledBinaryFindsTheModelUnderShare() throws {
        let prefix = scratch + "/prefix", elsewhere = scratch + "/elsewhere"
        for path in [prefix + "/bin", prefix + "/share/kwsuggest/models", elsewhere] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        let binary = URL(fileURLWithPath: prefix + "/bin/kwsuggest")
        try FileManager.default.copyItem(at: CLITests.binary, to: binary)
        // Before the model is installed the copy finds none.
        let (missing, _, error) = try tokenize(binary: binary, in: elsewhere)
        XCTAssertEqual(missing, 1, error)
        try FileManager.default.createSymbolicLink(
            atPath: prefix + "/share/kwsuggest/models/default",
            withDestinationPath: CLITests.packageRoot.appendingPathComponent("models/default").path)
        let (status, output, errors) = try tokenize(binary: binary, in: elsewhere)
        XCTAssertEqual(status, 0, errors)
        XCTAssertTrue(output.contains(#""normalized": "人参""#), output)
    }

    func testWorkingDirectoryModelComesBeforeTheOneAboveTheExecutable() throws {
        // A model directory whose lexicon is missing: tokenize fails, which shows it was the one chosen.
        try FileManager.default.createDirectory(atPath: scratch + "/models/default", withIntermediateDirectories: true)
        let (status, _, errors) = try tokenize(binary: CLITests.binary, in: scratch)
        XCTAssertEqual(status, 1, errors)
        XCTAssertTrue(errors.contains("models/default/"), errors)
    }
}
