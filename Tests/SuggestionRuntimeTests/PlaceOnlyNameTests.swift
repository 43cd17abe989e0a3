import Foundation
import ModelStorage
import SuggestionRuntime
import XCTest

/// With the shipped model: a name that says only where the product comes from gets no suggestion and the reason,
/// unless one of the best keywords is written in it as whole tokens (its text or a variety); a place beside a product
/// changes nothing.
final class PlaceOnlyNameTests: XCTestCase {
    static let modelDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("models/default").path
    /// The overlay files of this class's engines, in a directory removed when the class is done.
    static let scratch = NSTemporaryDirectory() + "place-names-\(UUID().uuidString)"
    static let engine: ModelEngine? = try? ModelEngine(components: ModelDirectory.load(path: modelDirectory),
                                                       overlayPath: scratchOverlay(), applyOverlay: false)

    static func scratchOverlay() -> String {
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        return scratch + "/\(UUID().uuidString).json"
    }

    override class func tearDown() {
        try? FileManager.default.removeItem(atPath: scratch)
        super.tearDown()
    }

    func testAnOriginAloneGetsTheReason() throws {
        let engine = try XCTUnwrap(Self.engine)
        for name in ["大阪産", "長野県産", "国産 【北海道産】", "産地：新潟", "米沢産"] {
            for k in [1, 5] {
                let result = engine.suggest(name, k: k, explain: false)
                XCTAssertEqual(result.suggestions, [], name)
                XCTAssertEqual(result.reason, .onlyPlaceNames, name)
                XCTAssertFalse(result.autoAccept, name)
            }
        }
    }

    func testAProductBesideThePlaceIsSuggested() throws {
        let engine = try XCTUnwrap(Self.engine)
        let onion = engine.suggest("淡路島産 玉ねぎ 3個", k: 5, explain: false)
        XCTAssertNil(onion.reason)
        XCTAssertEqual(onion.suggestions.first?.keyword, "玉ねぎ")
        XCTAssertEqual(engine.suggest("十勝産 小豆", k: 5, explain: false).suggestions.first?.keyword, "小豆")
        XCTAssertNil(engine.suggest("ダージリン", k: 5, explain: false).reason, "a place named alone is the model's to read")
    }

    /// A keyword written in an origin-only name is suggested, at any k: the rule withholds only what the name
    /// does not write.
    func testAWrittenKeywordStillCounts() throws {
        let engine = try ModelEngine(components: ModelDirectory.load(path: Self.modelDirectory),
                                     overlayPath: Self.scratchOverlay(), applyOverlay: false)
        XCTAssertEqual(engine.suggest("十勝産", k: 5, explain: false).reason, .onlyPlaceNames)
        _ = try engine.updateKeywords(add: ["十勝"], remove: [])
        for k in [1, 5] {
            let result = engine.suggest("十勝産", k: k, explain: false)
            XCTAssertNil(result.reason)
            XCTAssertEqual(result.suggestions.count, k)
            XCTAssertTrue(result.suggestions.contains { $0.keyword == "十勝" })
        }
    }

    /// A receipt's half-width reading the lexicon does not know reads as its keyword through the varieties table.
    func testAReceiptReadingReachesItsKeyword() throws {
        let engine = try XCTUnwrap(Self.engine)
        XCTAssertEqual(engine.suggest("ﾃﾊﾞｻｷ", k: 5, explain: false).suggestions.first?.keyword, "手羽先")
    }
}
