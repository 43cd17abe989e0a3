import Foundation
import XCTest
@testable import KeywordVectors

/// Fixture paths and temporary files for the vector tests.
enum Fixture {
    static var directory: URL { fixtures.appendingPathComponent("fasttext") }
    static var supervisedDirectory: URL { fixtures.appendingPathComponent("fasttext-supervised") }
    static var fixtures: URL { Bundle.module.url(forResource: "Fixtures", withExtension: nil)! }

    static var binPath: String { directory.appendingPathComponent("model.bin").path }
    static var vecPath: String { directory.appendingPathComponent("model.vec").path }

    /// `expected.txt`: fastText's vector for each query word, in file order.
    static func expected(in directory: URL = directory) throws -> [(word: String, vector: [Float])] {
        let text = try String(contentsOf: directory.appendingPathComponent("expected.txt"), encoding: .utf8)
        return text.split(separator: "\n").map { line in
            let parts = line.split(separator: "\t", maxSplits: 1)
            return (String(parts[0]), parts[1].split(separator: " ").map { Float($0)! })
        }
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The fixture `.bin` as bytes, to damage in tests.
    static func binBytes() throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: binPath)))
    }
}

/// Largest absolute difference between two equally long vectors.
func maxAbsDifference(_ a: [Float], _ b: [Float]) -> Float {
    precondition(a.count == b.count)
    return zip(a, b).map { abs($0 - $1) }.max() ?? 0
}

/// Asserts that `body` throws a `VectorFileError` of `kind` at `location`, naming the file.
func assertVectorError(_ kind: VectorFileError.Kind, _ location: VectorFileError.Location?, path: String,
                       file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
    do {
        try body()
        XCTFail("expected a \(kind) error", file: file, line: line)
    } catch let error as VectorFileError {
        XCTAssertEqual(error.kind, kind, error.description, file: file, line: line)
        if let location { XCTAssertEqual(error.location, location, error.description, file: file, line: line) }
        XCTAssertTrue(error.description.hasPrefix(path), error.description, file: file, line: line)
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
}

/// A test case that can write temporary files and removes them when each test ends.
class VectorTestCase: XCTestCase {
    private var temporaryPaths: [String] = []

    /// Writes `bytes` to a fresh temporary file with the given extension and returns its path.
    func temporaryFile(_ bytes: [UInt8], extension ext: String) throws -> String {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("kwvectors-\(UUID().uuidString).\(ext)")
        try Data(bytes).write(to: url)
        temporaryPaths.append(url.path)
        return url.path
    }

    func temporaryFile(_ text: String, extension ext: String) throws -> String {
        try temporaryFile(Array(text.utf8), extension: ext)
    }

    override func tearDown() {
        for path in temporaryPaths { try? FileManager.default.removeItem(atPath: path) }
        temporaryPaths.removeAll()
        super.tearDown()
    }
}
