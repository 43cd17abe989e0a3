// The text side of exact-match evidence: a kana-folded scalar string, the token rows and the token boundaries.

/// A name or keyword prepared for matching: `folded` is the normalised text with katakana folded to hiragana,
/// ASCII lower-cased and spaces removed; `rows` are its tokens' vector rows (−1 without a vector);
/// `boundaries` marks the folded offsets where a token of the tokenizer starts or ends.
public struct LexicalText: Sendable, Equatable {
    public var folded: [UInt32]
    public var rows: RowSequence
    /// `boundaries[i]` is true when a token starts or ends at folded offset i (count `folded.count + 1`).
    /// Empty when the tokens are unknown: then every offset counts as a boundary.
    public var boundaries: [Bool]
    /// Further row sequences that spell the same word (keywords only): the row of the whole keyword as one
    /// lexicon word where the tokenizer splits it (しめさば: しめ / さば, and as one word 締め鯖's row), so a name
    /// whose tokenizer keeps the word whole still matches by rows.
    public var alternativeRows: [RowSequence]
    /// The sub-word pieces of each token of `rows` (see `SubwordPieces`); empty when not computed.
    public var subwords = SubwordPieces()
    /// `phraseEnds[i]` is true when a phrase of the text ends at folded offset i: the text ends there, or a space or
    /// separator that `fold` drops stands there (count `folded.count + 1`). Empty when unknown: then every offset
    /// counts as a phrase end. A Japanese product name's phrases end in their head, the kind of product.
    public var phraseEnds: [Bool] = []
    /// Tokens whose dictionary form is spelled otherwise than the token (塩さけ → 塩鮭), and runs of up to
    /// `longestRun` tokens that hold one (ゆず胡椒 → 柚子胡椒): where each stands in `folded` and its form, folded.
    /// A keyword or variety name spelled like such a form is written there, whatever vector row the token shares
    /// with other words (chiVe gives 塩鮭 and 味噌汁 one row).
    public var spellings: [Spelling] = []

    /// A token's dictionary form (see `spellings`).
    public struct Spelling: Sendable, Equatable {
        public var start: Int
        public var end: Int
        public var folded: [UInt32]

        public init(start: Int, end: Int, folded: [UInt32]) {
            self.start = start
            self.end = end
            self.folded = folded
        }
    }

    public init(folded: [UInt32], rows: RowSequence, boundaries: [Bool] = [], alternativeRows: [RowSequence] = []) {
        self.folded = folded
        self.rows = rows
        self.boundaries = boundaries.count == folded.count + 1 ? boundaries : []
        self.alternativeRows = alternativeRows
    }

    public init(text: String, rows: RowSequence) {
        let (folded, phraseEnds) = LexicalText.foldMarkingPhrases(text)
        self.init(folded: folded, rows: rows)
        self.phraseEnds = phraseEnds
    }

    /// From every token surface of the text in order (content or not; the text is their concatenation up to
    /// the spaces and separators `fold` drops), so that the tokens' edges become `boundaries`. `forms`, when
    /// given (one per token, "" for none), are the tokens' dictionary forms that differ from them (`spellings`).
    /// - Complexity: O(total length of the surfaces and forms).
    public init(tokens: [String], rows: RowSequence, forms: [String] = []) {
        var folded: [UInt32] = []
        var boundaries = [true]
        var spellings: [Spelling] = []
        // Each kept token: where it starts in `folded`, and its form (its own folded text when the form is not
        // spelled otherwise).
        var starts: [Int] = [], written: [[UInt32]] = [], differs: [Bool] = []
        let withForms = forms.count == tokens.count
        for (i, surface) in tokens.enumerated() {
            let piece = LexicalText.fold(surface)
            if piece.isEmpty { continue }
            var form = piece
            if withForms && !forms[i].isEmpty {
                let own = LexicalText.fold(forms[i])
                if !own.isEmpty && own != piece {
                    spellings.append(Spelling(start: folded.count, end: folded.count + piece.count, folded: own))
                    form = own
                }
            }
            starts.append(folded.count)
            written.append(form)
            differs.append(form != piece)
            folded.append(contentsOf: piece)
            boundaries.append(contentsOf: repeatElement(false, count: piece.count - 1))
            boundaries.append(true)
        }
        starts.append(folded.count)
        // Runs of tokens spelled by their forms, where one of them is spelled otherwise: 「ゆず胡椒」 is 柚子 + 胡椒.
        for first in written.indices {
            var run = written[first], changed = differs[first]
            for last in (first + 1)..<min(first + Self.longestRun, written.count) {
                run.append(contentsOf: written[last])
                changed = changed || differs[last]
                if changed { spellings.append(Spelling(start: starts[first], end: starts[last + 1], folded: run)) }
            }
        }
        self.init(folded: folded, rows: rows, boundaries: boundaries)
        self.spellings = spellings
    }

    /// The most tokens one spelling of `spellings` joins.
    public static let longestRun = 3

    /// Whether a token starts or ends at folded offset `offset` (always true when the tokens are unknown).
    @inline(__always)
    public func isBoundary(_ offset: Int) -> Bool {
        boundaries.isEmpty || boundaries[offset]
    }

    /// Whether a phrase of the text ends at folded offset `offset` (always true when the phrases are unknown).
    @inline(__always)
    public func isPhraseEnd(_ offset: Int) -> Bool {
        phraseEnds.isEmpty || phraseEnds[offset]
    }

    /// Whether a phrase of the text ends strictly between folded offsets `start` and `end` (never when the phrases
    /// are unknown: a text without them is one phrase).
    public func hasPhraseEnd(within start: Int, _ end: Int) -> Bool {
        guard !phraseEnds.isEmpty, end - start > 1 else { return false }
        for offset in (start + 1)..<end where phraseEnds[offset] { return true }
        return false
    }

    /// `fold(text)`, and for each folded offset whether a phrase ends there: at the end, and wherever fold drops a
    /// space or separator between two kept characters.
    /// - Complexity: O(length).
    public static func foldMarkingPhrases(_ text: String) -> (folded: [UInt32], phraseEnds: [Bool]) {
        var folded: [UInt32] = []
        var ends: [Bool] = [false]
        folded.reserveCapacity(text.unicodeScalars.count)
        ends.reserveCapacity(text.unicodeScalars.count + 1)
        for scalar in text.unicodeScalars {
            guard let v = foldScalar(scalar.value) else {
                ends[ends.count - 1] = !folded.isEmpty
                continue
            }
            folded.append(v)
            ends.append(false)
        }
        ends[ends.count - 1] = true
        return (folded, ends)
    }

    /// Folds text for matching: katakana → hiragana, full-width ASCII → ASCII, upper → lower case; drops spaces,
    /// middle dots and other separators so that 「ラ・フランス」 matches 「らふらんす」.
    /// - Complexity: O(length).
    public static func fold(_ text: String) -> [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if let v = foldScalar(scalar.value) { result.append(v) }
        }
        return result
    }

    /// One scalar folded, or nil for a space or separator that folding drops.
    @inline(__always)
    static func foldScalar(_ value: UInt32) -> UInt32? {
        var v = value
        if v >= 0xFF01 && v <= 0xFF5E { v -= 0xFEE0 }               // full-width ASCII
        if v >= 0x30A1 && v <= 0x30F6 { v -= 0x60 }                  // katakana → hiragana
        if v >= 0x41 && v <= 0x5A { v += 0x20 }                      // ASCII upper → lower
        switch v {
        case 0x20, 0x09, 0x0A, 0x0D, 0x3000, 0x30FB, 0xFF65, 0xB7, 0x2F, 0x5F, 0x2D, 0x2010, 0x2011, 0x2012,
             0x2013, 0x2014, 0x2015, 0x2212, 0x3001, 0x3002, 0x2C, 0x2E:
            return nil
        default:
            return v
        }
    }
}
