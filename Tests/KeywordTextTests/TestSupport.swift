import Foundation
import XCTest
@testable import KeywordText

/// The shipped pipeline (models/default), loaded once for all tests.
enum Shipped {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let modelDirectory = packageRoot.appendingPathComponent("models/default").path
    static let pipeline: TextPipeline = {
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
