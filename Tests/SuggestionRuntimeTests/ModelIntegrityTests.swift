import Foundation
import KeywordModel
@testable import ModelStorage
import XCTest

/// A damaged model directory is a clear load error, never silently wrong answers.
final class ModelIntegrityTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("models/default").path
        directory = NSTemporaryDirectory() + "integrity-\(UUID().uuidString)"
        try FileManager.default.copyItem(atPath: shipped, toPath: directory)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    private func patch(_ name: String, at offset: Int, _ bytes: [UInt8]) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path(name)))
        data.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        try data.write(to: URL(fileURLWithPath: path(name)))
    }

    /// Records the current files' checksums, as a model built with the damage would have them.
    private func rerecordChecksums() throws {
        var manifest = try ModelManifest.load(path: path(ModelDirectory.manifestName))
        manifest.fileSHA256 = try ModelDirectory.checksums(directory: directory)
        try manifest.save(path: path(ModelDirectory.manifestName))
    }

    private func loadError() -> String? {
        do {
            _ = try ModelDirectory.load(path: directory)
            return nil
        } catch {
            return "\(error)"
        }
    }

    func testShippedManifestCoversEveryLoadedFileAndMatches() throws {
        let manifest = try ModelManifest.load(path: path(ModelDirectory.manifestName))
        XCTAssertEqual(manifest.fileSHA256, try ModelDirectory.checksums(directory: directory))
        XCTAssertNoThrow(try ModelDirectory.verify(directory: directory, manifest: manifest))
    }

    /// A directory whose manifest was written before the loader read `keyword-categories.tsv` loads, without its
    /// categories (its calibrator was fitted without them); once the manifest lists the file, it is read and
    /// checked like any other.
    func testAnUnlistedCategoriesFileIsNotRead() throws {
        var manifest = try ModelManifest.load(path: path(ModelDirectory.manifestName))
        manifest.fileSHA256?[ModelFiles.keywordCategoriesName] = nil
        try manifest.save(path: path(ModelDirectory.manifestName))
        XCTAssertEqual(try ModelDirectory.load(path: directory).categories, [:])
        XCTAssertFalse(try ModelDirectory.categoriesToWrite(directory: directory).isEmpty, "what a rewritten manifest serves")
        try rerecordChecksums()
        XCTAssertEqual(try ModelDirectory.load(path: directory).categories["ポテトチップス"], "菓子・デザート")
        try patch(ModelFiles.keywordCategoriesName, at: 0, Array("X".utf8))
        let message = try XCTUnwrap(loadError())
        XCTAssertTrue(message.contains(ModelFiles.keywordCategoriesName) && message.contains("SHA-256"), message)
    }

    func testFlippedBytesAreAChecksumError() throws {
        try patch(Checkpoint.valuesName, at: 1000, [UInt8](repeating: 0x5A, count: 200))
        let message = try XCTUnwrap(loadError())
        XCTAssertTrue(message.contains("encoder.bin"), message)
        XCTAssertTrue(message.contains("SHA-256"), message)
    }

    func testNaNVectorsAreAnErrorEvenWithMatchingChecksums() throws {
        let header = try Data(contentsOf: URL(fileURLWithPath: path(ModelDirectory.vectorsName))).prefix(64)
        let rowsOffset = header.withUnsafeBytes { Int(UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 32, as: UInt64.self))) }
        let dimension = header.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 16, as: UInt32.self))) }
        try patch(ModelDirectory.vectorsName, at: rowsOffset + 2 * dimension * 5, [0x00, 0x7E])  // Float16 NaN in row 5
        try rerecordChecksums()
        let message = try XCTUnwrap(loadError())
        XCTAssertTrue(message.contains("row 5 holds a non-finite value"), message)
    }

    func testHugeOrNaNWeightsAreAnErrorEvenWithMatchingChecksums() throws {
        try patch(Checkpoint.valuesName, at: 40, Array(withUnsafeBytes(of: Float(3e38).bitPattern.littleEndian) { Array($0) }))
        try rerecordChecksums()
        let huge = try XCTUnwrap(loadError())
        XCTAssertTrue(huge.contains("beyond ±10000"), huge)
        try patch(Checkpoint.valuesName, at: 40, Array(withUnsafeBytes(of: Float.nan.bitPattern.littleEndian) { Array($0) }))
        try rerecordChecksums()
        let nan = try XCTUnwrap(loadError())
        XCTAssertTrue(nan.contains("non-finite weight"), nan)
    }

    func testUnlistedFileIsAnError() throws {
        var manifest = try ModelManifest.load(path: path(ModelDirectory.manifestName))
        manifest.fileSHA256?[ModelDirectory.keywordsName] = nil
        try manifest.save(path: path(ModelDirectory.manifestName))
        let message = try XCTUnwrap(loadError())
        XCTAssertTrue(message.contains("not covered by the checksums"), message)
    }
}
