// Kana spellings from the varieties table that name a keyword's word: the rows an unknown kana token reads as.
import Foundation
import KeywordModel
import KeywordText

/// Receipts and flyers write words in kana, often half-width (ﾃﾊﾞｻｷ, ｷﾞｭｳﾆｭｳ, ﾚｲﾄｳ): readings and spellings the
/// lexicon does not hold, which the lattice reads as an unknown word with the row of some sub-word. The varieties
/// table lists many of them (JMdict readings, SudachiDict and hand spellings, store abbreviations). A row of it
/// whose variety is written in kana alone, at least `minimumLength` characters, and whose keyword is one word with
/// a vector row, gives that kana spelling (katakana folded to hiragana) the keyword's row. The spelling of a
/// keyword of several words (ｵﾁｬ, お茶: お / 茶) reads as no row (−1): the sub-word row the lattice would give it
/// (チャ) names some other word, and the variety evidence speaks for the keyword. A spelling that rows of two
/// different words claim gives nothing (the lattice's row stays).
public struct KanaReadings: Sendable {
    /// Shorter kana spellings are too often part of other words (のり, もも).
    public static let minimumLength = 3
    private let rows: [[UInt32]: Int32]

    public init() { rows = [:] }

    public init(pipeline: TextPipeline, varieties: [(variety: String, keyword: String)]) {
        var found: [[UInt32]: Int32] = [:], ambiguous: Set<[UInt32]> = []
        var wordRows: [String: Int32?] = [:]
        func wordRow(_ keyword: String) -> Int32? {
            if let known = wordRows[keyword] { return known }
            let words = pipeline.tokenizeKeyword(keyword).filter(\.isContent)
            let row = words.count == 1 ? words[0].row.map(Int32.init) : words.count > 1 ? -1 : nil
            wordRows[keyword] = row
            return row
        }
        for (variety, keyword) in varieties {
            // NFKC (half-width katakana to full-width), then folded as name tokens are; only kana rows reach the
            // tokenizer, which keeps loading cheap.
            let folded = LexicalText.fold(variety.precomposedStringWithCompatibilityMapping)
            guard folded.count >= Self.minimumLength, folded.allSatisfy(Self.isKana) else { continue }
            guard let row = wordRow(keyword) else { continue }
            if let previous = found[folded], previous != row { ambiguous.insert(folded) }
            found[folded] = row
        }
        for key in ambiguous { found[key] = nil }
        rows = found
    }

    /// The row a token spelled `surface` reads as (−1: none), if its kana spelling is a listed reading.
    public func row(of surface: String) -> Int32? {
        rows.isEmpty ? nil : rows[LexicalText.fold(surface)]
    }

    public var count: Int { rows.count }

    /// Hiragana (katakana are folded to it) and the long-vowel mark.
    static func isKana(_ scalar: UInt32) -> Bool {
        (0x3041 ... 0x3096).contains(scalar) || scalar == 0x30FC
    }
}
