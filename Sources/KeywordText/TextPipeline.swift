/// Product name or keyword → normalised text → tokens with chiVe vector rows.
///
/// Immutable after loading, so one instance serves every thread.
public final class TextPipeline: Sendable {
    public static let lexiconFileName = "lexicon.kwlex"
    public static let stopPhrasesFileName = "stop-phrases.txt"
    /// The model directory's keyword list; optional here (see `preferring`).
    public static let keywordsFileName = "keywords.txt"

    public let lexicon: Lexicon
    public let stopPhrases: StopPhrases
    let lattice: Lattice

    public init(lexicon: Lexicon, stopPhrases: StopPhrases) {
        self.lexicon = lexicon
        self.stopPhrases = stopPhrases
        lattice = Lattice(lexicon: lexicon)
    }

    private init(lexicon: Lexicon, stopPhrases: StopPhrases, preferred: [UInt64]) {
        self.lexicon = lexicon
        self.stopPhrases = stopPhrases
        lattice = Lattice(lexicon: lexicon, preferred: preferred)
    }

    /// The same pipeline with `words` preferred by the lattice: their noun entries (the word itself or its hiragana ↔
    /// katakana folding, three characters or more) cost `Lattice.preferredBonus` less per character (3000 for three,
    /// as the kana food words get in the lexicon build). Given the keyword list, a name is not split into a rarer word plus a stray
    /// kana where a keyword's word covers the span. Shorter words are left alone: ます or いか would split
    /// マスカット or スイカ.
    /// - Complexity: O(words) lookups.
    public func preferring(words: [String]) -> TextPipeline {
        var bitmap = [UInt64](repeating: 0, count: (lexicon.entryCount + 63) / 64)
        var any = false
        for word in words {
            let scalars = Normalizer.normalize(word).scalars
            guard scalars.count >= 3 else { continue }
            var seen: Set<Int> = []
            for form in [scalars, scalars.map(Self.toHiragana), scalars.map(Self.toKatakana)] {
                guard let key = key(form[...]), seen.insert(key).inserted else { continue }
                for entry in Int(lexicon.entryStart[key]) ..< Int(lexicon.entryStart[key + 1]) {
                    let paramClass = lexicon.entryClass[entry]
                    guard paramClass != Lexicon.rowOnlyClass,
                          lexicon.partsOfSpeech[Int(lexicon.classPOS[Int(paramClass)])].hasPrefix("名詞") else { continue }
                    bitmap[entry >> 6] |= 1 << UInt64(entry & 63)
                    any = true
                }
            }
        }
        return TextPipeline(lexicon: lexicon, stopPhrases: stopPhrases, preferred: any ? bitmap : [])
    }

    /// Loads `lexicon.kwlex` and `stop-phrases.txt` from a model directory.
    /// - Throws: `TextFileError` naming the file and the byte offset or line.
    public static func load(directory: String) throws -> TextPipeline {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        let lexicon = try Lexicon.load(path: base + lexiconFileName)
        let stopPhrases = try StopPhrases.load(path: base + stopPhrasesFileName)
        let pipeline = TextPipeline(lexicon: lexicon, stopPhrases: stopPhrases)
        // The lattice prefers the words of the directory's keyword list (see `preferring`), so names, keywords,
        // `kwsuggest tokenize` and the model all segment alike.
        // A missing or unreadable keyword list leaves the lattice as the lexicon has it (the model loader reports
        // keyword-file errors itself).
        guard let bytes = try? ByteReader.readFile(base + keywordsFileName) else { return pipeline }
        let words = bytes.split(separator: UInt8(ascii: "\n")).compactMap { String(validating: $0, as: UTF8.self) }
            .map { String($0.filter { $0 != "\r" }).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return pipeline.preferring(words: words)
    }

    // MARK: Public API

    /// Normalises and cleans a product name (no tokenizing).
    /// - Complexity: O(n) in the length of `raw`.
    public func normalize(_ raw: String) -> NormalizedText {
        let prepared = prepare(raw, clean: true)
        return describe(raw, prepared)
    }

    /// The tokens of a product name: normalised, cleaned of quantities, prices, decorations and stop
    /// phrases, then segmented.
    /// - Complexity: O(n) in the length of `raw` (each position looks at ≤ 16 scalars).
    public func tokenize(_ raw: String) -> [Token] {
        tokens(of: prepare(raw, clean: true))
    }

    /// `normalize` and `tokenize` together, sharing the work.
    public func analyze(_ raw: String) -> Analysis {
        let prepared = prepare(raw, clean: true)
        return Analysis(normalized: describe(raw, prepared), tokens: tokens(of: prepared))
    }

    /// The tokens of a keyword: normalised (NFKC, lower case, dashes) and split at spaces and
    /// symbols, but with nothing else removed, so 2l or 限定 in a keyword stay.
    public func tokenizeKeyword(_ keyword: String) -> [Token] {
        tokens(of: prepare(keyword, clean: false))
    }

    /// The text `tokenizeKeyword` segments, without segmenting it: the normalised keyword without its separators,
    /// which is the concatenation of its tokens' surfaces. For spellings that are matched as text only (variety
    /// and brand names).
    public func keywordText(_ keyword: String) -> String {
        let prepared = prepare(keyword, clean: false)
        return prepared.segments.map { Self.string(prepared.text.scalars[$0]) }.joined()
    }

    /// The vector row of a single word, with the same fallbacks as unknown tokens: the word itself,
    /// hiragana ↔ katakana folding, then the longest known sub-word.
    public func row(forWord word: String) -> Int? {
        let scalars = Normalizer.normalize(word).scalars
        guard !scalars.isEmpty else { return nil }
        if let key = key(scalars[...]), let entry = firstEntry(key), lexicon.entryRow[entry] != Lexicon.noRow {
            return Int(lexicon.entryRow[entry])
        }
        return resolve(scalars[...]).row
    }

    /// The vector row of `word` as one whole lexicon word (itself, else its hiragana ↔ katakana folding), with no
    /// sub-word fallback: しめさば → the row of its normalised form 締め鯖, even where the lattice splits it in a
    /// text (しめ / さば). Nil when the whole word is not in the lexicon or has no row.
    public func wholeWordRow(_ word: String) -> Int? {
        let scalars = Normalizer.normalize(word).scalars
        guard !scalars.isEmpty else { return nil }
        if let found = rowEntry(scalars[...]) { return found.row }
        for folded in [scalars.map(Self.toHiragana), scalars.map(Self.toKatakana)] where folded != scalars {
            if let found = rowEntry(folded[...]) { return found.row }
        }
        return nil
    }

    /// Every lexicon key (surface or row-only spelling) by the normalised form of its noun and row-only entries:
    /// 締め鯖 → [しめさば, しめ鯖, 〆鯖, 締めさば, 締め鯖, …]. Verb and other forms are left out (あさり is also a form
    /// of the verb 漁る). For consistency checks; it walks the whole lexicon.
    /// - Complexity: O(entries).
    public func spellingsByNormalizedForm() -> [String: [String]] {
        var result: [String: [String]] = [:]
        for key in 0..<lexicon.keyCount {
            let surface = lexicon.string(key: key)
            var seen: Set<String> = []
            for entry in Int(lexicon.entryStart[key]) ..< Int(lexicon.entryStart[key + 1]) {
                let paramClass = lexicon.entryClass[entry]
                if paramClass != Lexicon.rowOnlyClass,
                   !lexicon.partsOfSpeech[Int(lexicon.classPOS[Int(paramClass)])].hasPrefix("名詞") { continue }
                let normalizedKey = lexicon.entryNormalized[entry]
                let normalized = normalizedKey == Lexicon.sameAsSurface ? surface : lexicon.string(key: Int(normalizedKey))
                if seen.insert(normalized).inserted { result[normalized, default: []].append(surface) }
            }
        }
        return result
    }

    /// The normalised form of `word` as the tokenizer reads it when it is one token, else as one whole lexicon
    /// word (the entry `wholeWordRow` uses); nil when neither applies.
    public func normalizedForm(_ word: String) -> String? {
        let tokens = tokenizeKeyword(word)
        if tokens.count == 1 { return tokens[0].normalized }
        let scalars = Normalizer.normalize(word).scalars
        guard !scalars.isEmpty else { return nil }
        if let found = rowEntry(scalars[...]) { return found.normalized }
        for folded in [scalars.map(Self.toHiragana), scalars.map(Self.toKatakana)] where folded != scalars {
            if let found = rowEntry(folded[...]) { return found.normalized }
        }
        return nil
    }

    // MARK: Preparation

    struct Prepared {
        var text: ScalarText
        var marks: [RemovalReason?]
        /// Kept runs, in normalised scalar indices.
        var segments: [Range<Int>]
    }

    func prepare(_ raw: String, clean: Bool) -> Prepared {
        let text = Normalizer.normalize(raw)
        let marks: [RemovalReason?]
        if clean {
            marks = Cleaner.mark(text.scalars, stopPhrases: stopPhrases)
        } else {
            marks = text.scalars.map { Cleaner.isSeparator($0) ? RemovalReason.separator : nil }
        }
        var segments: [Range<Int>] = []
        var start: Int? = nil
        for index in 0 ..< marks.count {
            if marks[index] == nil {
                if start == nil { start = index }
            } else if let begin = start {
                segments.append(begin ..< index)
                start = nil
            }
        }
        if let begin = start { segments.append(begin ..< marks.count) }
        return Prepared(text: text, marks: marks, segments: segments)
    }

    private func originalRange(_ text: ScalarText, _ range: Range<Int>) -> Range<Int> {
        guard !range.isEmpty else { return 0 ..< 0 }
        let lower = Int(text.origin[range.lowerBound])
        let upper = Int(text.origin[range.upperBound - 1]) + 1
        return lower ..< max(lower, upper)
    }

    private func describe(_ raw: String, _ prepared: Prepared) -> NormalizedText {
        let text = prepared.text
        let segments = prepared.segments.map {
            NormalizedText.Segment(text: Self.string(text.scalars[$0]), range: originalRange(text, $0))
        }
        var removals: [NormalizedText.Removal] = []
        var index = 0
        while index < prepared.marks.count {
            guard let reason = prepared.marks[index] else { index += 1; continue }
            var end = index + 1
            while end < prepared.marks.count && prepared.marks[end] == reason { end += 1 }
            let piece = Self.string(text.scalars[index ..< end])
            if reason != .separator || piece.unicodeScalars.contains(where: { $0 != " " }) {
                removals.append(NormalizedText.Removal(text: piece, reason: reason, range: originalRange(text, index ..< end)))
            }
            index = end
        }
        return NormalizedText(original: raw, text: segments.map(\.text).joined(separator: " "), segments: segments,
                              removals: removals)
    }

    // MARK: Tokens

    private func tokens(of prepared: Prepared) -> [Token] {
        var result: [Token] = []
        let scalars = prepared.text.scalars
        var lastRange = 0 ..< 0
        var state = Lattice.State(lexicon: lexicon)
        for segment in prepared.segments {
            let path = lattice.segment(scalars: scalars[segment], state: &state)
            for node in path {
                let range = segment.lowerBound + node.start ..< segment.lowerBound + node.end
                result.append(token(for: node, scalars: scalars[range], original: originalRange(prepared.text, range)))
                lastRange = range
            }
        }
        if result.count == 1, !result[0].isContent, let word = contentWord(result[0], scalars: scalars[lastRange]) {
            return [word]
        }
        return result
    }

    /// A text that is one word, a particle or an auxiliary for the lattice, is read as the content word (a noun)
    /// the lexicon also knows by that spelling: written alone, たい and ます are the fish 鯛 and 鱒. A word with no
    /// such entry (の, です), or one beside other words (「です ます」), stays what it is.
    private func contentWord(_ token: Token, scalars: ArraySlice<UInt32>) -> Token? {
        guard let key = key(scalars) else { return nil }
        for entry in Int(lexicon.entryStart[key]) ..< Int(lexicon.entryStart[key + 1]) {
            // Row-only spellings have no class of their own (they never enter the lattice).
            let paramClass = lexicon.entryClass[entry]
            guard paramClass != Lexicon.rowOnlyClass else { continue }
            let pos = Int(lexicon.classPOS[Int(paramClass)])
            guard lexicon.posIsContent[pos], lexicon.entryRow[entry] != Lexicon.noRow else { continue }
            var word = token
            word.isContent = true
            word.row = Int(lexicon.entryRow[entry])
            word.rowSource = .lexicon
            word.partOfSpeech = lexicon.partsOfSpeech[pos]
            return word
        }
        return nil
    }

    private func token(for node: PathNode, scalars: ArraySlice<UInt32>, original: Range<Int>) -> Token {
        let surface = Self.string(scalars)
        let pos = Int(lexicon.classPOS[Int(node.paramClass)])
        let partOfSpeech = lexicon.partsOfSpeech[pos]
        var isContent = lexicon.posIsContent[pos]
        if node.isOOV {
            let first = CharCategories.of(scalars[scalars.startIndex])
            isContent = !(first.contains(.numeric) || first.contains(.symbol) || first.contains(.space)
                || first.contains(.default))
        }
        if !node.isOOV {
            let entry = node.entry
            let normalizedKey = lexicon.entryNormalized[entry]
            let normalized = normalizedKey == Lexicon.sameAsSurface ? surface : lexicon.string(key: Int(normalizedKey))
            if lexicon.entryRow[entry] != Lexicon.noRow {
                return Token(surface: surface, normalized: normalized, row: Int(lexicon.entryRow[entry]), rowSource: .lexicon,
                             isOOV: false, isContent: isContent, partOfSpeech: partOfSpeech, range: original)
            }
            let found = resolve(scalars, skipWhole: true)
            return Token(surface: surface, normalized: normalized, row: found.row, rowSource: found.source, isOOV: false,
                         isContent: isContent, partOfSpeech: partOfSpeech, range: original)
        }
        let found = resolve(scalars)
        return Token(surface: surface, normalized: found.normalized ?? surface, row: found.row, rowSource: found.source,
                     isOOV: true, isContent: isContent, partOfSpeech: partOfSpeech, range: original)
    }

    // MARK: Rows for unknown words

    struct Resolution {
        var row: Int?
        var source: Token.RowSource
        var normalized: String?
    }

    /// The word itself, then hiragana ↔ katakana folding, then the longest known sub-word.
    func resolve(_ scalars: ArraySlice<UInt32>, skipWhole: Bool = false) -> Resolution {
        if !skipWhole, let found = rowEntry(scalars) {
            return Resolution(row: found.row, source: .word, normalized: found.normalized)
        }
        let folds = [scalars.map(Self.toHiragana), scalars.map(Self.toKatakana)]
        for folded in folds where folded != Array(scalars) {
            if let found = rowEntry(folded[...]) {
                return Resolution(row: found.row, source: .folded, normalized: found.normalized)
            }
        }
        // Longest known sub-word, rightmost on ties; at most 16 scalars long.
        let count = scalars.count
        guard count > 1 else { return Resolution(row: nil, source: .none, normalized: nil) }
        let base = scalars.startIndex
        var length = min(count - 1, 16)
        while length >= 1 {
            var start = count - length
            while start >= 0 {
                let piece = scalars[base + start ..< base + start + length]
                if let found = rowEntry(piece) {
                    return Resolution(row: found.row, source: .subword, normalized: nil)
                }
                start -= 1
            }
            length -= 1
        }
        return Resolution(row: nil, source: .none, normalized: nil)
    }

    private func rowEntry(_ scalars: ArraySlice<UInt32>) -> (row: Int, normalized: String)? {
        guard let key = key(scalars) else { return nil }
        for entry in Int(lexicon.entryStart[key]) ..< Int(lexicon.entryStart[key + 1]) where lexicon.entryRow[entry] != Lexicon.noRow {
            let normalizedKey = lexicon.entryNormalized[entry]
            let normalized = normalizedKey == Lexicon.sameAsSurface ? lexicon.string(key: key) : lexicon.string(key: Int(normalizedKey))
            return (Int(lexicon.entryRow[entry]), normalized)
        }
        return nil
    }

    private func firstEntry(_ key: Int) -> Int? {
        let start = Int(lexicon.entryStart[key])
        return start < Int(lexicon.entryStart[key + 1]) ? start : nil
    }

    private func key(_ scalars: ArraySlice<UInt32>) -> Int? {
        lexicon.key(scalars)
    }

    // MARK: Helpers

    static func toHiragana(_ value: UInt32) -> UInt32 { (0x30A1 ... 0x30F6).contains(value) ? value - 0x60 : value }
    static func toKatakana(_ value: UInt32) -> UInt32 { (0x3041 ... 0x3096).contains(value) ? value + 0x60 : value }

    @inline(__always)
    static func encode(_ value: UInt32, into bytes: inout [UInt8]) {
        switch value {
        case 0 ..< 0x80:
            bytes.append(UInt8(value))
        case 0x80 ..< 0x800:
            bytes.append(UInt8(0xC0 | (value >> 6)))
            bytes.append(UInt8(0x80 | (value & 0x3F)))
        case 0x800 ..< 0x10000:
            bytes.append(UInt8(0xE0 | (value >> 12)))
            bytes.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (value & 0x3F)))
        default:
            bytes.append(UInt8(0xF0 | (value >> 18)))
            bytes.append(UInt8(0x80 | ((value >> 12) & 0x3F)))
            bytes.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (value & 0x3F)))
        }
    }

    /// UTF-8 encodes Basic Multilingual Plane code units (lexicon keys) straight into a new string.
    static func string(units: ArraySlice<UInt16>) -> String {
        var capacity = 0
        for unit in units { capacity += unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3 }
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var index = 0
            for unit in units {
                let value = UInt32(unit)
                if value < 0x80 {
                    buffer[index] = UInt8(value)
                    index += 1
                } else if value < 0x800 {
                    buffer[index] = UInt8(0xC0 | (value >> 6))
                    buffer[index + 1] = UInt8(0x80 | (value & 0x3F))
                    index += 2
                } else {
                    buffer[index] = UInt8(0xE0 | (value >> 12))
                    buffer[index + 1] = UInt8(0x80 | ((value >> 6) & 0x3F))
                    buffer[index + 2] = UInt8(0x80 | (value & 0x3F))
                    index += 3
                }
            }
            return index
        }
    }

    /// UTF-8 encodes scalar values straight into a new string (short strings stay inline).
    static func string(_ scalars: ArraySlice<UInt32>) -> String {
        var capacity = 0
        for scalar in scalars { capacity += scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : scalar < 0x10000 ? 3 : 4 }
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var index = 0
            @inline(__always) func put(_ byte: UInt32) {
                buffer[index] = UInt8(truncatingIfNeeded: byte)
                index += 1
            }
            for value in scalars {
                switch value {
                case 0 ..< 0x80:
                    put(value)
                case 0x80 ..< 0x800:
                    put(0xC0 | (value >> 6)); put(0x80 | (value & 0x3F))
                case 0x800 ..< 0x10000:
                    put(0xE0 | (value >> 12)); put(0x80 | ((value >> 6) & 0x3F)); put(0x80 | (value & 0x3F))
                default:
                    put(0xF0 | (value >> 18)); put(0x80 | ((value >> 12) & 0x3F))
                    put(0x80 | ((value >> 6) & 0x3F)); put(0x80 | (value & 0x3F))
                }
            }
            return index
        }
    }
}
