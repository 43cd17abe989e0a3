import XCTest
@testable import KeywordText

/// A name made of places and origin words says where a product comes from, never what it is.
final class PlaceNamesTests: XCTestCase {
    private func onlyPlaces(_ name: String) -> Bool {
        PlaceNames.namesOnlyPlaces(Shipped.modelPipeline.analyze(name).tokens)
    }

    func testPlacesAndOriginWordsAlone() {
        for name in ["大阪産", "淡路島", "北海道十勝", "長野県産", "庄内の", "十勝", "国産", "北海道産", "アメリカ産",
                     "ノルウェー産", "【魚沼】", "淡路島産 3個"] {
            XCTAssertTrue(onlyPlaces(name), name)
        }
    }

    func testAnythingElseBesideThePlaceKeepsTheName() {
        for name in ["淡路島産 玉ねぎ", "十勝 小豆", "ノルウェー産 サーモン", "夕張メロン", "京都 九条ねぎ"] {
            XCTAssertFalse(onlyPlaces(name), name)
        }
    }

    func testNothingLeftIsNotAPlace() {
        XCTAssertFalse(onlyPlaces("送料無料"))
        XCTAssertFalse(onlyPlaces("★★★"))
        XCTAssertFalse(PlaceNames.namesOnlyPlaces([]))
    }
}
