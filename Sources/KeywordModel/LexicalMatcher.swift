// Exact-match evidence between a product name and every keyword, computed from the keyword's text alone.

/// The exact-match features the scorer weighs next to the learned cosine. All are in [0, 1] except `variety`
/// through a brand row, which is the model's brand evidence scale.
public enum LexicalFeature: Int, CaseIterable, Sendable {
    /// The keyword's token rows occur contiguously in the name's rows (so 人参 / にんじん / ニンジン match),
    /// divided by the number of keywords in the list with the same row sequence (chiVe maps many rare words
    /// onto one shared row, and a match on such a row says little about which of them is meant).
    case rows
    /// The keyword's folded text occurs in the name's folded text.
    case text
    /// Matched (rows or text) and not strictly inside a longer matched keyword (新玉ねぎ beats 玉ねぎ).
    case maximal
    /// A variety or brand name from the varieties table occurs in the name and maps to this keyword: 1, or the
    /// model's brand evidence scale (≥ 1) when the name is a brand or product line.
    case variety
    /// Share of the keyword's distinct rows that occur anywhere in the name.
    case overlap
    /// For a text match, min(keyword length, 6) / 6: longer matches are stronger evidence.
    case length
    /// Share of the keyword's distinct character bigrams (folded) that occur in the name: a soft spelling
    /// match that separates keywords whose vectors coincide (甘えび vs 甘海老, 金目鯛 vs 金目).
    case bigrams
    /// Matched by rows only, not by text, on a row sequence other keywords share: 1 − 1/(keywords sharing it).
    /// The name names one of several words chiVe merged, and the text says it is not this one (ムツ vs あいなめ).
    case sharedRowsOnly
    /// A text match starts and ends on token boundaries of the name, i.e. covers whole tokens (always, when the
    /// name's tokens are unknown): ます in 「国産 ます 切り身」 does, ます in 「シャインマスカット」 (…/マスカット) does not.
    case textWholeTokens
    /// A text match ends where a token of the name ends. Japanese compounds end in their head, so a match at
    /// the end of a token (鮭 in 秋鮭) is good evidence even when it starts inside it; one at the start is not.
    case textEndsToken
    /// Every text match of the keyword lies strictly inside a variety name found in the name that maps to other
    /// keywords only: なると in 「なると金時」 (→ さつまいも), のり in 「恋みのり」 (→ いちご), ぶどう in 「ぶどう酒」 (→ ワイン).
    /// A variety that maps to the keyword itself (メロン in 「アンデスメロン」) does not count.
    case textInsideVariety

    public static let count = allCases.count

    /// The name written into `encoder.json` for this feature's weight. Checkpoints map weights by these names,
    /// so inserting, removing or reordering a feature never shifts an old checkpoint's weights. Never rename one.
    public var name: String {
        switch self {
        case .rows: return "rows"
        case .text: return "text"
        case .maximal: return "maximal"
        case .variety: return "variety"
        case .overlap: return "overlap"
        case .length: return "length"
        case .bigrams: return "bigrams"
        case .sharedRowsOnly: return "sharedRowsOnly"
        case .textWholeTokens: return "textWholeTokens"
        case .textEndsToken: return "textEndsToken"
        case .textInsideVariety: return "textInsideVariety"
        }
    }

    /// The feature order of checkpoints written before feature names were stored (they hold weights by
    /// position, in this order). Frozen: it describes existing files, not the current feature list.
    public static let legacyOrder = [
        "rows", "text", "maximal", "variety", "overlap", "length", "bigrams", "sharedRowsOnly", "textWholeTokens",
        "textEndsToken", "textInsideVariety",
    ]

    /// The feature a checkpoint names, if this build knows it.
    public init?(name: String) {
        guard let feature = LexicalFeature.allCases.first(where: { $0.name == name }) else { return nil }
        self = feature
    }
}

/// One entry of the varieties table, prepared: a variety/brand name and the keyword it stands for.
public struct VarietyEntry: Sendable {
    public var variety: LexicalText
    public var target: LexicalText
    /// The value of the `variety` feature when this entry matches: 1, or the model's brand evidence scale for a
    /// brand or product-line row (see `ModelComponents.varietyEntries`).
    public var weight: Float
    public init(variety: LexicalText, target: LexicalText, weight: Float = 1) {
        self.variety = variety
        self.target = target
        self.weight = weight
    }
}

/// Reusable per-thread buffers for `LexicalMatcher.match`; after a call, `touched` lists the keywords with any
/// evidence and `features[k * LexicalFeature.count + f]` holds their feature values (zero for all others).
public struct LexicalScratch: Sendable {
    public fileprivate(set) var touched: [Int32] = []
    public fileprivate(set) var features: [Float]
    fileprivate var isTouched: [Bool]
    fileprivate var overlapCount: [Int32]
    fileprivate var bigramHits: [Int32]
    fileprivate var textSpan: [Int32]
    fileprivate var rowSpan: [Int32]
    /// The touched keywords with a text or row span (the only ones that can cover another match).
    fileprivate var spanned: [Int32] = []
    /// Variety matches of the current name as (start, end, keyword) triples, in folded offsets.
    fileprivate var varietySpans: [Int32] = []
    /// Per keyword: 0 no text match yet, 1 every text match so far inside another keyword's variety, 2 not.
    fileprivate var insideVariety: [UInt8]

    public init(keywordCount: Int) {
        features = [Float](repeating: 0, count: keywordCount * LexicalFeature.count)
        isTouched = [Bool](repeating: false, count: keywordCount)
        overlapCount = [Int32](repeating: 0, count: keywordCount)
        bigramHits = [Int32](repeating: 0, count: keywordCount)
        textSpan = [Int32](repeating: -1, count: keywordCount * 2)
        insideVariety = [UInt8](repeating: 0, count: keywordCount)
        rowSpan = [Int32](repeating: -1, count: keywordCount * 2)
        touched.reserveCapacity(keywordCount)
    }

    public var keywordCount: Int { isTouched.count }

    /// The feature vector of keyword `k` (zeros when untouched).
    public func featureValues(of k: Int) -> ArraySlice<Float> {
        features[(k * LexicalFeature.count)..<((k + 1) * LexicalFeature.count)]
    }

    fileprivate mutating func clear() {
        for k32 in touched {
            let k = Int(k32)
            isTouched[k] = false
            overlapCount[k] = 0
            bigramHits[k] = 0
            insideVariety[k] = 0
            textSpan[2 * k] = -1; textSpan[2 * k + 1] = -1
            rowSpan[2 * k] = -1; rowSpan[2 * k + 1] = -1
            for f in 0..<LexicalFeature.count { features[k * LexicalFeature.count + f] = 0 }
        }
        touched.removeAll(keepingCapacity: true)
        spanned.removeAll(keepingCapacity: true)
        varietySpans.removeAll(keepingCapacity: true)
    }

    @inline(__always) fileprivate mutating func touch(_ k: Int) {
        if !isTouched[k] {
            isTouched[k] = true
            touched.append(Int32(k))
        }
    }

    @inline(__always) fileprivate mutating func set(_ k: Int, _ feature: LexicalFeature, _ value: Float) {
        touch(k)
        let at = k * LexicalFeature.count + feature.rawValue
        features[at] = max(features[at], value)
    }
}

/// Finds, for one name, every keyword with exact-match evidence, in time linear in the name's length.
///
/// Built once per keyword list. Keys are folded keyword texts, keyword row sequences, folded variety names
/// (mapped onto the keywords spelled like the variety's target, else those with its rows) and single rows.
public struct LexicalMatcher: Sendable {
    public let keywordCount: Int
    private let texts: SequenceTable
    private let rowSequences: SequenceTable
    /// Variety names → keywords, one table per entry weight (ordinary rows, brand rows), with that weight.
    private let varieties: [(weight: Float, table: SequenceTable)]
    private let singleRows: [Int32: [Int32]]
    private let distinctRows: [Int32]
    private let textLength: [Int32]
    private let rowSpecificity: [Float]
    /// Folded character bigram → keywords containing it; and each keyword's distinct bigram count.
    private let bigramKeywords: [UInt64: [Int32]]
    private let bigramCount: [Int32]

    /// - Complexity: O(total length of keywords and varieties).
    public init(keywords: [LexicalText], varieties: [VarietyEntry] = []) {
        keywordCount = keywords.count
        var textEntries: [([UInt32], Int32)] = []
        var rowEntries: [([UInt32], Int32)] = []
        var single: [Int32: [Int32]] = [:]
        var distinct: [Int32] = []
        var byText: [[UInt32]: [Int32]] = [:]
        var byRows: [[Int32]: [Int32]] = [:]
        for (k, keyword) in keywords.enumerated() {
            let id = Int32(k)
            textEntries.append((keyword.folded, id))
            byText[keyword.folded, default: []].append(id)
            let valid = !keyword.rows.isEmpty && keyword.rows.allSatisfy { $0 >= 0 }
            if valid {
                rowEntries.append((keyword.rows.map { UInt32(bitPattern: $0) }, id))
                byRows[keyword.rows, default: []].append(id)
            }
            var seen: [Int32] = []
            for row in keyword.rows where row >= 0 && !seen.contains(row) {
                seen.append(row)
                single[row, default: []].append(id)
            }
            distinct.append(Int32(seen.count))
        }
        // Other row sequences of the same word (the whole keyword as one lexicon word), unless they are another
        // keyword's own rows.
        for (k, keyword) in keywords.enumerated() {
            for alternative in keyword.alternativeRows
            where !alternative.isEmpty && alternative.allSatisfy({ $0 >= 0 }) && byRows[alternative] == nil {
                rowEntries.append((alternative.map { UInt32(bitPattern: $0) }, Int32(k)))
            }
        }
        // A keyword spelled with the particle の between two words also matches without it: さばの水煮缶 in
        // 「さば水煮缶」, いかの塩辛 in 「いか塩辛」 (unless that spelling is another keyword: たけのこ水煮).
        for (k, keyword) in keywords.enumerated() {
            for variant in LexicalMatcher.withoutParticle(keyword.folded) where byText[variant] == nil {
                textEntries.append((variant, Int32(k)))
            }
        }
        var varietyEntries: [Float: [([UInt32], Int32)]] = [:]
        for entry in varieties {
            // The keywords spelled like the target; only when there are none, those with the target's rows
            // (a list that writes 玉ねぎ for the target たまねぎ). Rows alone would also reach every keyword chiVe
            // merged onto the same row (枝豆's row carries とんぶり and 落花生).
            var targets = byText[entry.target.folded] ?? []
            if targets.isEmpty, !entry.target.rows.isEmpty, entry.target.rows.allSatisfy({ $0 >= 0 }) {
                targets = byRows[entry.target.rows] ?? []
            }
            for k in targets { varietyEntries[entry.weight, default: []].append((entry.variety.folded, k)) }
        }
        var specificity = [Float](repeating: 0, count: keywords.count)
        for (_, ids) in byRows { for k in ids { specificity[Int(k)] = 1 / Float(ids.count) } }
        rowSpecificity = specificity
        var bigrams: [UInt64: [Int32]] = [:]
        var bigramCounts: [Int32] = []
        for (k, keyword) in keywords.enumerated() {
            var seen = Set<UInt64>()
            let f = keyword.folded
            if f.count >= 2 {
                for i in 0..<(f.count - 1) where seen.insert(LexicalMatcher.bigram(f[i], f[i + 1])).inserted {
                    bigrams[LexicalMatcher.bigram(f[i], f[i + 1]), default: []].append(Int32(k))
                }
            }
            bigramCounts.append(Int32(seen.count))
        }
        bigramKeywords = bigrams
        bigramCount = bigramCounts
        texts = SequenceTable(textEntries)
        rowSequences = SequenceTable(rowEntries)
        self.varieties = varietyEntries.keys.sorted().map { ($0, SequenceTable(varietyEntries[$0] ?? [])) }
        singleRows = single
        distinctRows = distinct
        textLength = keywords.map { Int32($0.folded.count) }
    }

    /// Fills `scratch` with the features of every keyword that has evidence in `name`.
    /// - Complexity: O(length · longest key + postings touched); allocates nothing once `scratch` is warm.
    public func match(_ name: LexicalText, into scratch: inout LexicalScratch) {
        precondition(scratch.keywordCount == keywordCount, "scratch was made for another keyword list")
        scratch.clear()
        name.folded.withUnsafeBufferPointer { folded in
            for (weight, table) in varieties {
                scan(folded, table) { k, start, length in
                    scratch.set(k, .variety, weight)
                    scratch.varietySpans.append(Int32(start)); scratch.varietySpans.append(Int32(start + length))
                    scratch.varietySpans.append(Int32(k))
                }
            }
            scan(folded, texts) { k, start, length in
                let inside = LexicalMatcher.insideOtherVariety(scratch.varietySpans, k, start, start + length)
                if inside { scratch.insideVariety[k] = max(scratch.insideVariety[k], 1) }
                else { scratch.insideVariety[k] = 2 }
                scratch.set(k, .text, 1)
                scratch.set(k, .length, Float(min(length, 6)) / 6)
                let endsToken = name.isBoundary(start + length)
                if endsToken { scratch.set(k, .textEndsToken, 1) }
                if endsToken && name.isBoundary(start) { scratch.set(k, .textWholeTokens, 1) }
                scratch.textSpan[2 * k] = Int32(start)
                scratch.textSpan[2 * k + 1] = Int32(start + length)
            }
        }
        var rowBuffer = name.rows
        rowBuffer.withUnsafeMutableBufferPointer { rows in
            rows.withMemoryRebound(to: UInt32.self) { bits in
                scan(UnsafeBufferPointer(bits), rowSequences) { k, start, length in
                    scratch.set(k, .rows, rowSpecificity[k])
                    scratch.rowSpan[2 * k] = Int32(start)
                    scratch.rowSpan[2 * k + 1] = Int32(start + length)
                }
            }
        }
        for (i, row) in name.rows.enumerated() where row >= 0 {
            var repeated = false
            for j in 0..<i where name.rows[j] == row { repeated = true; break }
            if repeated { continue }
            guard let list = singleRows[row] else { continue }
            for k32 in list {
                let k = Int(k32)
                scratch.touch(k)
                scratch.overlapCount[k] += 1
            }
        }
        let folded = name.folded
        if folded.count >= 2 {
            for i in 0..<(folded.count - 1) {
                let key = LexicalMatcher.bigram(folded[i], folded[i + 1])
                var repeated = false
                for j in 0..<i where LexicalMatcher.bigram(folded[j], folded[j + 1]) == key { repeated = true; break }
                if repeated { continue }
                guard let list = bigramKeywords[key] else { continue }
                for k32 in list {
                    scratch.touch(Int(k32))
                    scratch.bigramHits[Int(k32)] += 1
                }
            }
        }
        let count = scratch.touched.count
        for t in 0..<count {
            let k = Int(scratch.touched[t])
            if scratch.textSpan[2 * k] >= 0 || scratch.rowSpan[2 * k] >= 0 { scratch.spanned.append(Int32(k)) }
        }
        for t in 0..<count {
            let k = Int(scratch.touched[t])
            let rows = distinctRows[k]
            if rows > 0 && scratch.overlapCount[k] > 0 {
                scratch.features[k * LexicalFeature.count + LexicalFeature.overlap.rawValue] =
                    Float(scratch.overlapCount[k]) / Float(rows)
            }
            if scratch.bigramHits[k] > 0 && bigramCount[k] > 0 {
                scratch.features[k * LexicalFeature.count + LexicalFeature.bigrams.rawValue] =
                    Float(scratch.bigramHits[k]) / Float(bigramCount[k])
            }
            let hasText = scratch.textSpan[2 * k] >= 0, hasRows = scratch.rowSpan[2 * k] >= 0
            if scratch.insideVariety[k] == 1 {
                scratch.features[k * LexicalFeature.count + LexicalFeature.textInsideVariety.rawValue] = 1
            }
            if hasRows && !hasText && rowSpecificity[k] < 1 {
                scratch.features[k * LexicalFeature.count + LexicalFeature.sharedRowsOnly.rawValue] = 1 - rowSpecificity[k]
            }
            guard hasText || hasRows else { continue }
            var covered = false
            for u in 0..<scratch.spanned.count where !covered {
                let other = Int(scratch.spanned[u])
                if other == k { continue }
                if hasText && scratch.textSpan[2 * other] >= 0
                    && strictlyCovers(scratch.textSpan, other, k) { covered = true }
                if hasRows && scratch.rowSpan[2 * other] >= 0
                    && strictlyCovers(scratch.rowSpan, other, k) { covered = true }
            }
            if !covered { scratch.features[k * LexicalFeature.count + LexicalFeature.maximal.rawValue] = 1 }
        }
    }

    /// Convenience for tests and training: the sparse features of one name.
    public func features(of name: LexicalText) -> [(keyword: Int, values: [Float])] {
        var scratch = LexicalScratch(keywordCount: keywordCount)
        match(name, into: &scratch)
        return scratch.touched.sorted().map { (Int($0), Array(scratch.featureValues(of: Int($0)))) }
    }

    /// Folded text length of keyword `k` (for the lexical baseline's longest-first order).
    public func textLength(of k: Int) -> Int { Int(textLength[k]) }

    /// Whether the text match [start, end) lies strictly inside a variety match of `spans` ((start, end, keyword)
    /// triples) whose variety name does not also map to keyword `k` (the same name at the same span).
    /// - Complexity: O(variety matches), at most a few per name.
    static func insideOtherVariety(_ spans: [Int32], _ k: Int, _ start: Int, _ end: Int) -> Bool {
        var v = 0
        while v < spans.count {
            let vs = Int(spans[v]), ve = Int(spans[v + 1])
            if vs <= start && ve >= end && ve - vs > end - start {
                var mapsToK = false
                var u = 0
                while u < spans.count && !mapsToK {
                    if spans[u] == spans[v] && spans[u + 1] == spans[v + 1] && Int(spans[u + 2]) == k { mapsToK = true }
                    u += 3
                }
                if !mapsToK { return true }
            }
            v += 3
        }
        return false
    }

    /// The folded text with one interior の removed, for each の that has at least two characters on each side.
    public static func withoutParticle(_ folded: [UInt32]) -> [[UInt32]] {
        let no: UInt32 = 0x306E
        guard folded.count >= 5 else { return [] }
        var variants: [[UInt32]] = []
        for i in 2..<(folded.count - 2) where folded[i] == no {
            var variant = folded
            variant.remove(at: i)
            variants.append(variant)
        }
        return variants
    }

    @inline(__always) static func bigram(_ a: UInt32, _ b: UInt32) -> UInt64 { UInt64(a) << 32 | UInt64(b) }

    @inline(__always)
    private func strictlyCovers(_ spans: [Int32], _ outer: Int, _ inner: Int) -> Bool {
        let os = spans[2 * outer], oe = spans[2 * outer + 1], ins = spans[2 * inner], ine = spans[2 * inner + 1]
        return os <= ins && oe >= ine && (oe - os) > (ine - ins)
    }

    @inline(__always)
    private func scan(_ buffer: UnsafeBufferPointer<UInt32>, _ table: SequenceTable,
                      _ found: (Int, Int, Int) -> Void) {
        let n = buffer.count
        guard table.maxLength > 0 else { return }
        for start in 0..<n {
            var hash = SequenceTable.offset
            let limit = min(table.maxLength, n - start)
            if limit < 1 { continue }
            for length in 1...limit {
                hash = SequenceTable.step(hash, buffer[start + length - 1])
                guard table.lengths[length],
                      let range = table.lookup(buffer, start: start, length: length, hash: hash) else { continue }
                for p in range { found(Int(table.postings[p]), start, length) }
            }
        }
    }
}
