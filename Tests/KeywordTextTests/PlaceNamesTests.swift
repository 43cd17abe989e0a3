import XCTest
@testable import KeywordText

/// A name made of places and origin words, one of which marks the origin, says where a product comes from,
/// never what it is.
final class PlaceNamesTests: XCTestCase {
    private func onlyPlaces(_ name: String) -> Bool {
        PlaceNames.namesOnlyPlaces(Shipped.modelPipeline.analyze(name).tokens)
    }

    func testAnOriginAloneSaysOnlyWhere() {
        for name in ["大阪産", "長野県産", "国産", "北海道産", "アメリカ産", "ノルウェー産", "淡路島産 3個", "長崎県",
                     "産地：新潟", "十勝産 【北海道】"] {
            XCTAssertTrue(onlyPlaces(name), name)
        }
    }

    /// Many places named alone are the product's own name (tea, wine, udon): without an origin word the name is
    /// the model's to read.
    func testAPlaceNamedAloneIsLeftToTheModel() {
        for name in ["淡路島", "十勝", "北海道十勝", "ダージリン", "ボルドー", "宇治", "讃岐", "京都"] {
            XCTAssertFalse(onlyPlaces(name), name)
        }
    }

    func testAnythingElseBesideThePlaceKeepsTheName() {
        for name in ["淡路島産 玉ねぎ", "十勝産 小豆", "ノルウェー産 サーモン", "夕張メロン", "京都 九条ねぎ", "国産 豚バラ肉"] {
            XCTAssertFalse(onlyPlaces(name), name)
        }
    }

    func testNothingLeftIsNotAPlace() {
        XCTAssertFalse(onlyPlaces("送料無料"))
        XCTAssertFalse(onlyPlaces("★★★"))
        XCTAssertFalse(PlaceNames.namesOnlyPlaces([]))
    }
}
