import Foundation
import ModelStorage
import SuggestionRuntime
import XCTest

/// With the shipped model: a name of places alone gets no suggestion and the reason, unless a keyword is
/// written in it; a place beside a product changes nothing.
final class PlaceOnlyNameTests: XCTestCase {
    static let modelDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("models/default").path
    static let engine: ModelEngine? = try? ModelEngine(components: ModelDirectory.load(path: modelDirectory),
                                                       overlayPath: scratchOverlay(), applyOverlay: false)

    /// An overlay path of its own, so the shipped directory is never written.
    static func scratchOverlay() -> String {
        NSTemporaryDirectory() + "place-names-\(UUID().uuidString).json"
    }

    func testPlacesAloneGetTheReason() throws {
        let engine = try XCTUnwrap(Self.engine)
        for name in ["大阪産", "淡路島", "北海道十勝", "長野県産", "十勝", "国産 【北海道産】"] {
            let result = engine.suggest(name, k: 5, explain: false)
            XCTAssertEqual(result.suggestions, [], name)
            XCTAssertEqual(result.reason, .onlyPlaceNames, name)
            XCTAssertFalse(result.autoAccept, name)
        }
    }

    func testAProductBesideThePlaceIsSuggested() throws {
        let engine = try XCTUnwrap(Self.engine)
        let onion = engine.suggest("淡路島産 玉ねぎ 3個", k: 5, explain: false)
        XCTAssertNil(onion.reason)
        XCTAssertEqual(onion.suggestions.first?.keyword, "玉ねぎ")
        let beans = engine.suggest("十勝 小豆", k: 5, explain: false)
        XCTAssertEqual(beans.suggestions.first?.keyword, "小豆")
        // The lexicon tags カマンベール as a place (a village); a variety row maps it to カマンベールチーズ, so the
        // keyword is written in the name.
        let components = try ModelDirectory.load(path: Self.modelDirectory, requireEncoder: false)
        XCTAssertTrue(components.analyzer.analyzeName("カマンベール").onlyPlaces)
        XCTAssertEqual(engine.suggest("カマンベール", k: 5, explain: false).suggestions.first?.keyword, "カマンベールチーズ")
    }

    /// A keyword added to the list that is written in a place-only name is suggested: the rule only withholds
    /// the keywords the name does not write.
    func testAWrittenKeywordStillCounts() throws {
        let engine = try ModelEngine(components: ModelDirectory.load(path: Self.modelDirectory),
                                     overlayPath: Self.scratchOverlay(), applyOverlay: false)
        XCTAssertEqual(engine.suggest("十勝", k: 5, explain: false).reason, .onlyPlaceNames)
        _ = try engine.updateKeywords(add: ["十勝"], remove: [])
        let result = engine.suggest("十勝", k: 5, explain: false)
        XCTAssertNil(result.reason)
        XCTAssertEqual(result.suggestions.first?.keyword, "十勝")
    }
}

extension PlaceOnlyNameTests {
    /// A receipt's half-width reading the lexicon does not know reads as its keyword through the varieties table.
    func testAReceiptReadingReachesItsKeyword() throws {
        let engine = try XCTUnwrap(Self.engine)
        XCTAssertEqual(engine.suggest("ﾃﾊﾞｻｷ", k: 5, explain: false).suggestions.first?.keyword, "手羽先")
    }
}
