import Foundation
import XCTest

/// A test case with a fresh scratch directory per test and a helper to write files into it. Shared by the CLI
/// tests that need data files.
class ScratchTestCase: XCTestCase {
    var scratch = ""

    /// A word for the scratch directory's name, so leftovers say which tests made them.
    var scratchPrefix: String { "cli" }

    override func setUpWithError() throws {
        scratch = NSTemporaryDirectory() + "\(scratchPrefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// Writes `text` to `name` in the scratch directory and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        let path = scratch + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
