import Foundation
import KeywordModel
@testable import ModelStorage
import XCTest

/// Brand and product-line rows of varieties.tsv give the variety evidence the model's dev-chosen brand scale
/// (manifest.json `brand_evidence_scale`); other rows, and a model without the field, give 1.
final class BrandEvidenceTests: XCTestCase {
    static let modelDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("models/default").path

    func testBrandRowsCarryTheManifestScale() throws {
        var components = try ModelDirectory.load(path: Self.modelDirectory, requireEncoder: false)
        let scale = try XCTUnwrap(components.manifest?.brandEvidenceScale, "the shipped manifest names its brand scale")
        XCTAssertGreaterThanOrEqual(scale, 1)
        XCTAssertEqual(components.varietySources.count, components.varieties.count)
        let entries = components.varietyEntries()
        var brands = 0
        for (i, entry) in entries.enumerated() {
            let expected: Float = components.varietySources[i] == "brand" ? Float(scale) : 1
            if components.varietySources[i] == "brand" { brands += 1 }
            XCTAssertEqual(entry.weight, expected, components.varieties[i].variety)
        }
        XCTAssertGreaterThan(brands, 100)
        XCTAssertTrue(components.varietyEntries(brandScale: 1).allSatisfy { $0.weight == 1 }, "training sees every row alike")
        components.manifest?.brandEvidenceScale = nil
        XCTAssertEqual(components.brandEvidenceScale, 1)
        XCTAssertTrue(components.varietyEntries().allSatisfy { $0.weight == 1 })
    }
}
