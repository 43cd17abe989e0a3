import Foundation
@testable import KeywordText
import XCTest

/// The lattice must not split a name into a rarer word plus a stray kana where a word that matches a keyword
/// covers the same span: the pipeline loaded from a model directory prefers the words of its keyword list.
final class KeywordLatticeTests: XCTestCase {
    static let keywords: [String] = {
        let path = Shipped.modelDirectory + "/" + TextPipeline.keywordsFileName
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }()

    /// Keywords (three characters or more) that the lexicon holds as a noun the lattice may use.
    static func latticeNouns(_ pipeline: TextPipeline) -> [String] {
        let lexicon = pipeline.lexicon
        return keywords.filter { keyword in
            let scalars = Normalizer.normalize(keyword).scalars
            guard scalars.count >= 3, let key = lexicon.key(scalars[...]) else { return false }
            return (Int(lexicon.entryStart[key]) ..< Int(lexicon.entryStart[key + 1])).contains { entry in
                let paramClass = lexicon.entryClass[entry]
                return paramClass != Lexicon.rowOnlyClass
                    && lexicon.partsOfSpeech[Int(lexicon.classPOS[Int(paramClass)])].hasPrefix("名詞")
            }
        }
    }

    static func isStrayKana(_ surface: String) -> Bool {
        surface.unicodeScalars.count == 1 && surface.unicodeScalars.allSatisfy { (0x3041...0x30FF).contains($0.value) }
    }

    func testKeywordWordsAreNotSplitIntoAWordAndAStrayKana() throws {
        XCTAssertGreaterThan(Self.keywords.count, 1000)
        let nouns = Self.latticeNouns(Shipped.modelPipeline)
        XCTAssertGreaterThan(nouns.count, 500)
        var failures: [String] = []
        for keyword in nouns {
            for name in [keyword, "国産 \(keyword) 1袋", "【\(keyword)】お徳用"] {
                let surfaces = Shipped.modelPipeline.tokenize(name).map(\.surface)
                let normalized = Normalizer.normalize(keyword).scalars
                let whole = surfaces.contains { Normalizer.normalize($0).scalars == normalized }
                if !whole && surfaces.contains(where: Self.isStrayKana) {
                    failures.append("\(name): \(surfaces.joined(separator: " / "))")
                }
            }
        }
        XCTAssertEqual(failures, [])
    }

    func testWithoutTheKeywordListTheLexiconAloneSplitsSomeOfThem() throws {
        // The class exists: the plain lexicon lattice splits at least one of these words with a stray kana
        // (みょうがたけ → みょう / が / たけ), so the test above checks the preference, not a lattice that never splits.
        let plain = TextPipeline(lexicon: Shipped.modelPipeline.lexicon, stopPhrases: Shipped.modelPipeline.stopPhrases)
        let split = Self.latticeNouns(plain).filter { keyword in
            let surfaces = plain.tokenize(keyword).map(\.surface)
            return surfaces.count > 1 && surfaces.contains(where: Self.isStrayKana)
        }
        XCTAssertFalse(split.isEmpty)
        XCTAssertTrue(plain.tokenize("みょうがたけ").map(\.surface).contains(where: Self.isStrayKana))
        XCTAssertFalse(Shipped.modelPipeline.tokenize("高知県産 みょうがたけ 1袋").map(\.surface).contains(where: Self.isStrayKana))
    }
}
