/// One token of a product name or keyword.
public struct Token: Sendable, Equatable, Hashable {
    /// How `row` was found.
    public enum RowSource: String, Sendable, Equatable, Hashable {
        /// The lexicon entry's own row (its Sudachi normalised form, or a synonym chosen at build time).
        case lexicon
        /// An unknown word whose spelling is a known word (a normalised form or a synonym-group spelling).
        case word
        /// Found after folding hiragana ↔ katakana.
        case folded
        /// The longest known sub-word (the rightmost one on ties: Japanese compounds end in their head).
        case subword
        /// No row.
        case none
    }

    /// The token as it appears in the normalised text.
    public var surface: String
    /// Sudachi's normalised form for lexicon words (にんじん → 人参); the found word for unknown words;
    /// otherwise the surface.
    public var normalized: String
    /// The chiVe vector row (0 ..< 20000), or nil.
    public var row: Int?
    public var rowSource: RowSource
    /// Whether the lattice used an unknown-word node (not a lexicon word).
    public var isOOV: Bool
    /// Whether the token can name an ingredient: not a symbol, number, particle or auxiliary.
    public var isContent: Bool
    /// Sudachi part of speech, six comma-separated fields.
    public var partOfSpeech: String
    /// Where the token came from in the ORIGINAL string, in Unicode scalar offsets
    /// (`Array(original.unicodeScalars)[range]`; the same unit as Python string indices).
    public var range: Range<Int>

    public init(surface: String, normalized: String, row: Int?, rowSource: RowSource, isOOV: Bool, isContent: Bool,
                partOfSpeech: String, range: Range<Int>) {
        self.surface = surface
        self.normalized = normalized
        self.row = row
        self.rowSource = rowSource
        self.isOOV = isOOV
        self.isContent = isContent
        self.partOfSpeech = partOfSpeech
        self.range = range
    }
}

/// A product name after normalisation and cleaning.
public struct NormalizedText: Sendable, Equatable {
    /// A run of kept text, tokenized on its own.
    public struct Segment: Sendable, Equatable {
        public var text: String
        /// Original Unicode scalar offsets.
        public var range: Range<Int>
    }

    /// A removed part, for explanations.
    public struct Removal: Sendable, Equatable {
        /// The removed part, normalised.
        public var text: String
        public var reason: RemovalReason
        /// Original Unicode scalar offsets.
        public var range: Range<Int>
    }

    public var original: String
    /// The kept segments joined by one space: what the tokenizer sees.
    public var text: String
    public var segments: [Segment]
    /// Removed parts, except plain spaces and symbols between words.
    public var removals: [Removal]
}

/// A product name's normalisation and tokens together.
public struct Analysis: Sendable, Equatable {
    public var normalized: NormalizedText
    public var tokens: [Token]
}
