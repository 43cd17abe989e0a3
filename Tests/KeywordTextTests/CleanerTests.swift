import XCTest
@testable import KeywordText

final class CleanerTests: XCTestCase {
    func kept(_ raw: String) -> String { Shipped.pipeline.normalize(raw).text }
    func reasons(_ raw: String) -> [String: RemovalReason] {
        Dictionary(Shipped.pipeline.normalize(raw).removals.map { ($0.text, $0.reason) }, uniquingKeysWith: { first, _ in first })
    }

    func testQuantitiesAndUnits() {
        XCTAssertEqual(kept("にんじん 3本"), "にんじん")
        XCTAssertEqual(kept("豚バラ 500g×2パック"), "豚バラ")
        XCTAssertEqual(kept("さんま 10尾 約1kg"), "さんま")
        XCTAssertEqual(kept("トマト 2l 4kg箱"), "トマト")
        XCTAssertEqual(kept("新玉ねぎ Lサイズ"), "新玉ねぎ")
        XCTAssertEqual(kept("卵 10個入り"), "卵")
        XCTAssertEqual(kept("みかん S〜Mサイズ"), "みかん")
        XCTAssertEqual(kept("ホタテ 貝柱 3Sサイズ"), "ホタテ 貝柱")
        XCTAssertEqual(kept("なっとう 3個パック"), "なっとう")
        XCTAssertEqual(kept("玄米 令和5年産"), "玄米")
        XCTAssertEqual(kept("マンゴー 2Lサイズ 2玉入り 化粧箱"), "マンゴー")
        XCTAssertEqual(kept("＼ポイント5倍／ ぶり"), "ぶり")
        XCTAssertEqual(reasons("豚バラ 500g×2パック")["500g×2パック"], .quantity)
    }

    func testPricesAndDiscounts() {
        XCTAssertEqual(kept("1,980円 豚肉"), "豚肉")
        XCTAssertEqual(kept("10%オフ 鶏もも"), "鶏もも")
        XCTAssertEqual(kept("¥500 えび"), "えび")
        XCTAssertEqual(reasons("1,980円 豚肉")["1,980円"], .price)
        XCTAssertEqual(reasons("10%オフ 鶏もも")["10%オフ"], .discount)
    }

    func testDecorationsAndStopPhrases() {
        XCTAssertEqual(kept("【送料無料】★訳あり★ 農家直送 りんご"), "りんご")
        XCTAssertEqual(kept("「産地直送」お徳用 限定 ねぎ"), "ねぎ")
        XCTAssertEqual(reasons("【送料無料】りんご")["送料無料"], .stopPhrase)
        XCTAssertEqual(kept("ﾀｲﾑｾｰﾙ ねぎ"), "ねぎ", "stop phrases are matched after normalisation")
    }

    /// 小ぶり is a size, not the fish; 特大ぶり is the fish.
    func testSizesWrittenAsWords() {
        XCTAssertEqual(kept("紅あずま 小ぶり 5玉"), "紅あずま")
        XCTAssertEqual(kept("特大ぶり 切り身"), "特大ぶり 切り身")
    }

    func testOriginsAreKept() {
        XCTAssertEqual(kept("淡路島産 玉ねぎ"), "淡路島産 玉ねぎ")
    }

    func testModelNumbersStayWhole() {
        XCTAssertEqual(kept("2b 和牛"), "2b 和牛")
        XCTAssertEqual(kept("a5ランク 和牛"), "和牛", "grades are stop phrases")
    }

    func testStopPhraseFileErrorsNameTheLine() throws {
        let path = try temporaryFile(Array("限定\n# comment\n".utf8) + [0xFF, 0xFE, 0x0A], name: "stop-phrases.txt")
        XCTAssertThrowsError(try StopPhrases.load(path: path)) { error in
            XCTAssertEqual((error as? TextFileError)?.location, .line(3))
            XCTAssertTrue("\(error)".contains("stop-phrases.txt:3: invalid UTF-8"), "\(error)")
        }
        let good = try temporaryFile(Array("限定 # comment\n\n送料無料\n".utf8), name: "stop-phrases.txt")
        XCTAssertEqual(try StopPhrases.load(path: good).count, 2)
    }
}
