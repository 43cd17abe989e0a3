import Foundation
import KeywordModel
@testable import ModelStorage
import XCTest

/// Keywords and names must tokenize alike: every spelling of every shipped keyword that the lexicon and the
/// synonym groups know, written alone as a product name, must reach that keyword's exact-match evidence
/// (its rows, its text or a variety/spelling entry of varieties.tsv). A compound the lexicon keeps whole (締め鯖)
/// must still match the keyword spelled in parts (しめさば → しめ / さば), and the other way round.
final class KeywordSpellingTests: XCTestCase {
    static let modelDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("models/default").path

    /// Variety names are read by their text alone (`PipelineAnalyzer.varietyText`, no segmentation): for every
    /// shipped variety name and keyword it is the folded text the full keyword analysis gives.
    func testVarietyTextIsTheKeywordAnalysisText() throws {
        let components = try ModelDirectory.load(path: Self.modelDirectory, requireEncoder: false)
        let analyzer = try XCTUnwrap(components.analyzer as? PipelineAnalyzer)
        let names = components.varieties.map(\.variety) + components.keywords + ["ザ★シュウマイ", "Cook Do", "コカ・コーラ", "【】", ""]
        var differ: [String] = []
        for name in names where analyzer.varietyText(name).folded != analyzer.analyzeKeyword(name).lexical.folded {
            differ.append(name)
        }
        XCTAssertEqual(differ, [], "\(names.count) names read")
        XCTAssertGreaterThan(names.count, 6000)
    }

    func testEveryKeywordSpellingReachesTheKeyword() throws {
        let components = try ModelDirectory.load(path: Self.modelDirectory, requireEncoder: false)
        let analyzer = try XCTUnwrap(components.analyzer as? PipelineAnalyzer)
        let pipeline = analyzer.pipeline
        let keywords = components.keywords
        let texts = keywords.map { analyzer.analyzeKeyword($0).lexical }
        let matcher = LexicalMatcher(keywords: texts, varieties: components.varietyEntries())
        var scratch = LexicalScratch(keywordCount: keywords.count)
        let byForm = pipeline.spellingsByNormalizedForm()
        // A spelling that is itself another keyword, or that the lexicon shares with another keyword's form
        // (the same word spelled two ways in the list), is that keyword's business, not a failure.
        let folded = Set(texts.map(\.folded))
        var formOwners: [String: Int] = [:]
        for keyword in keywords { if let form = pipeline.normalizedForm(keyword) { formOwners[form, default: 0] += 1 } }
        var checked = 0
        var failures: [String] = []
        for (k, keyword) in keywords.enumerated() {
            var spellings: Set<String> = [keyword, Self.katakana(keyword), Self.hiragana(keyword)]
            if let form = pipeline.normalizedForm(keyword), formOwners[form] == 1 {
                spellings.formUnion(byForm[form] ?? [])
            }
            for (variety, target) in components.varieties where target == keyword { spellings.insert(variety) }
            for spelling in spellings.sorted() {
                let name = analyzer.analyzeName(spelling).lexical
                if name.folded.isEmpty { continue }
                if name.folded != texts[k].folded && folded.contains(name.folded) { continue }
                // Out of scope: Latin-script spellings (no transliteration), spellings the name cleaner shortens
                // (セット, sizes and numbers are stripped from names) and one- or two-letter kana spellings other
                // than the keyword's own (だい for 鯛 is too ambiguous to be evidence).
                if spelling.unicodeScalars.contains(where: { $0.properties.isAlphabetic && $0.isASCII }) { continue }
                if name.folded != analyzer.analyzeKeyword(spelling).lexical.folded { continue }
                // varieties.tsv keeps no one-character names (鰤, 鱰): too short to be evidence in a name.
                if spelling.unicodeScalars.count == 1, name.folded != texts[k].folded { continue }
                if spelling.unicodeScalars.count <= 2, name.folded != texts[k].folded,
                   spelling.unicodeScalars.allSatisfy({ (0x3041...0x30FF).contains($0.value) }) { continue }
                checked += 1
                matcher.match(name, into: &scratch)
                let values = scratch.featureValues(of: k)
                let base = values.startIndex
                let reached = values[base + LexicalFeature.rows.rawValue] > 0
                    || values[base + LexicalFeature.text.rawValue] > 0
                    || values[base + LexicalFeature.variety.rawValue] > 0
                if !reached { failures.append("\(spelling) → \(keyword)") }
            }
        }
        XCTAssertGreaterThan(checked, keywords.count)
        XCTAssertEqual(failures, [], "\(failures.count) of \(checked) spellings miss their keyword")
        if let path = ProcessInfo.processInfo.environment["KWSUGGEST_SPELLING_FAILURES"] {
            try failures.map { $0.replacingOccurrences(of: " → ", with: "\t") + "\n" }.joined()
                .write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    func testCompoundKeptWholeMatchesKeywordSpelledInParts() throws {
        let components = try ModelDirectory.load(path: Self.modelDirectory, requireEncoder: false)
        let analyzer = try XCTUnwrap(components.analyzer as? PipelineAnalyzer)
        let keyword = analyzer.analyzeKeyword("しめさば")
        XCTAssertEqual(keyword.surfaces, ["さば"], "the lattice splits しめさば into しめ / さば (only さば is content)")
        let name = analyzer.analyzeName("締め鯖 2枚入").lexical
        let matcher = LexicalMatcher(keywords: [keyword.lexical])
        let features = matcher.features(of: name)
        XCTAssertEqual(features.first?.keyword, 0)
        XCTAssertGreaterThan(features.first?.values[LexicalFeature.rows.rawValue] ?? 0, 0)
    }

    static func katakana(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { s in
            (0x3041...0x3096).contains(s.value) ? Unicode.Scalar(s.value + 0x60) ?? s : s
        }))
    }

    static func hiragana(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { s in
            (0x30A1...0x30F6).contains(s.value) ? Unicode.Scalar(s.value - 0x60) ?? s : s
        }))
    }
}
