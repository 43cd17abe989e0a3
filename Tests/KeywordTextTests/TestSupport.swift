import Foundation
import XCTest
@testable import KeywordText

/// The shipped pipeline (models/default), loaded once for all tests.
enum Shipped {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let modelDirectory = packageRoot.appendingPathComponent("models/default").path
    /// The lexicon's own lattice (what the Sudachi-parity tests measure), without the keyword preference.
    static let pipeline: TextPipeline = TextPipeline(lexicon: modelPipeline.lexicon, stopPhrases: modelPipeline.stopPhrases)
    /// The pipeline as the model loads it: the lattice prefers the words of the directory's keywords.txt.
    static let modelPipeline: TextPipeline = {
        do {
            return try TextPipeline.load(directory: modelDirectory)
        } catch {
            fatalError("cannot load the shipped text pipeline: \(error)")
        }
    }()
}

/// A scratch file that deletes itself.
func temporaryFile(_ bytes: [UInt8], name: String = "file") throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kwtext-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent(name).path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}
