import XCTest
@testable import KeywordText

final class NameKeyTests: XCTestCase {
    func key(_ raw: String) -> String { Shipped.modelPipeline.nameKey(raw) }

    func testShopDecorationsShareTheProductsKey() {
        let plain = key("おーいお茶")
        XCTAssertEqual(plain, "おーいお茶")
        XCTAssertEqual(key("おーいお茶 2L"), plain)
        XCTAssertEqual(key("【まとめ買い】おーいお茶 525ml ×2"), plain)
        XCTAssertEqual(key("おーいお茶 525ml x3"), plain)
        XCTAssertEqual(key("おーいお茶 ５２５ｍｌ ＊２"), plain)
        XCTAssertEqual(key("【送料無料】【訳あり】おーいお茶"), plain)
    }

    func testCosmeticChangesShareAKey() {
        XCTAssertEqual(key("国産 豚バラ肉 500g"), key("国産豚バラ肉５００ｇ"))
        XCTAssertEqual(key("国産  豚バラ肉"), key("国産 豚バラ肉"))
        XCTAssertEqual(key("ｷｬﾍﾞﾂ 1玉"), key("キャベツ"))
        XCTAssertEqual(key("国産豚バラ肉 500g 2個セット"), key("国産豚バラ肉"))
    }

    func testTheProductStaysInTheKey() {
        XCTAssertNotEqual(key("ごま担々麺"), key("担々麺"))
        XCTAssertNotEqual(key("りんご酢"), key("りんご"))
        // A letter x inside a word is not a multiplier.
        XCTAssertEqual(key("ミックスナッツ mix2"), "ミックスナッツmix2")
        // What brackets hold stays: shops bracket the product as often as a campaign.
        XCTAssertEqual(key("【国産豚バラ肉】"), key("国産豚バラ肉"))
        XCTAssertNotEqual(key("大阪産・〈ムラサキウニ〉"), key("大阪産 《あぶらつのざめ》"))
        XCTAssertEqual(key("送料無料 1kg"), "")
    }
}
