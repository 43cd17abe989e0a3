// Exact-match evidence between a product name and every keyword, computed from the keyword's text alone.

/// Finds, for one name, every keyword with exact-match evidence, in time linear in the name's length.
///
/// Keys are folded keyword texts, keyword row sequences, folded variety names (mapped onto the keywords spelled
/// like the variety's target, else those with its rows) and single rows. Keywords are numbered by id (an index
/// of the list it was built from, or a slot the caller chose); `insert` and `remove` change one keyword and
/// every table entry that depends on it, in time that does not grow with the list, sharing the rest with the
/// matcher they started from. A matcher reached by any sequence of changes matches like one built from its
/// final keywords.
public struct LexicalMatcher: Sendable {
    /// Ids run from 0 to `keywordCount - 1` (some unused when ids are slots).
    public private(set) var keywordCount = 0
    private var texts = SequenceTable()
    /// Keyword row sequences → the keywords with exactly those rows (so a key's postings count is how many
    /// keywords share the rows); alternative row sequences that are no keyword's own rows → their keywords.
    private var rowSequences = SequenceTable()
    private var alternativeRows = SequenceTable()
    /// Variety names → keywords, one table per entry weight (ordinary rows, brand rows; see `VarietyTable`).
    private var varieties: [SequenceTable]
    private var singleRows = ChunkedMap<Int32, [Int32]>(chunkCount: 1024)
    private var distinctRows = ChunkedArray<Int32>(filler: 0)
    private var textLength = ChunkedArray<Int32>(filler: 0)
    /// Each keyword's rows when they are valid (else empty), to find how many keywords share them.
    private var keywordRows = ChunkedArray<[Int32]>(filler: [])
    /// Folded character bigram → keywords containing it; and each keyword's distinct bigram count.
    private var bigramKeywords = ChunkedMap<UInt64, [Int32]>(chunkCount: 1024)
    private var bigramCount = ChunkedArray<Int32>(filler: 0)
    /// Keywords by folded text and by rows (valid rows only); keywords by each of their particle-free spellings
    /// and by each of their alternative row sequences (whether those are keys depends on the two maps before).
    private var byText = ChunkedMap<[UInt32], [Int32]>()
    private var byRows = ChunkedMap<[Int32], [Int32]>()
    private var variantOwners = ChunkedMap<[UInt32], [Int32]>()
    private var alternativeOwners = ChunkedMap<[Int32], [Int32]>()
    private let varietyTable: VarietyTable

    /// An empty matcher for `capacity` ids.
    public init(capacity: Int = 0, varieties: [VarietyEntry] = []) {
        varietyTable = VarietyTable(varieties)
        self.varieties = [SequenceTable](repeating: SequenceTable(), count: varietyTable.weights.count)
        reserve(capacity)
    }

    /// Keyword `k` of `keywords` gets id `k`.
    /// - Complexity: O(total length of keywords and varieties).
    public init(keywords: [LexicalText], varieties: [VarietyEntry] = []) {
        self.init(capacity: keywords.count, varieties: varieties)
        for (k, keyword) in keywords.enumerated() { insert(keyword, id: Int32(k)) }
        keywordCount = keywords.count
    }

    /// Makes ids up to `capacity - 1` usable.
    public mutating func reserve(_ capacity: Int) {
        guard capacity > keywordCount else { return }
        distinctRows.grow(to: capacity)
        textLength.grow(to: capacity)
        keywordRows.grow(to: capacity)
        bigramCount.grow(to: capacity)
        keywordCount = capacity
    }

    static func validRows(_ rows: [Int32]) -> Bool { !rows.isEmpty && rows.allSatisfy { $0 >= 0 } }

    /// The keywords a variety entry maps onto: those spelled like its target; only when there are none, those
    /// with the target's rows (a list that writes 玉ねぎ for the target たまねぎ). Rows alone would also reach every
    /// keyword chiVe merged onto the same row (枝豆's row carries とんぶり and 落花生).
    private func targets(_ entry: VarietyEntry) -> [Int32] {
        let spelled = byText.list(entry.target.folded)
        if !spelled.isEmpty { return spelled }
        return LexicalMatcher.validRows(entry.target.rows) ? byRows.list(entry.target.rows) : []
    }

    /// Adds keyword `id` (unused until now) with its text.
    /// - Complexity: O(length + keywords sharing its text, rows or bigrams), independent of the list's size.
    public mutating func insert(_ keyword: LexicalText, id: Int32) {
        precondition(id >= 0 && Int(id) < keywordCount, "id outside the matcher's capacity")
        let folded = keyword.folded, rows = keyword.rows
        // Its text. When it is the first keyword spelled so, particle-free spellings of other keywords equal to
        // it stop being keys, and varieties with this target move from rows to spelling.
        let firstSpelled = byText[folded] == nil
        if firstSpelled {
            for owner in variantOwners.list(folded) { texts.remove(folded, owner) }
        }
        for v in varietyTable.byTargetText[folded] ?? [] {
            let entry = varietyTable.entries[v]
            if firstSpelled { for k in targets(entry) { varieties[varietyTable.table[v]].remove(entry.variety.folded, k) } }
            varieties[varietyTable.table[v]].insert(entry.variety.folded, id)
        }
        byText.append(id, to: folded)
        texts.insert(folded, id)
        // Its rows: another keyword's alternative equal to them stops being a key; varieties with these target
        // rows and no keyword spelled like the target gain it; every keyword with these rows gets less specific.
        if LexicalMatcher.validRows(rows) {
            if byRows[rows] == nil {
                for owner in alternativeOwners.list(rows) { alternativeRows.remove(LexicalMatcher.bits(rows), owner) }
            }
            for v in varietyTable.byTargetRows[rows] ?? [] where byText[varietyTable.entries[v].target.folded] == nil {
                varieties[varietyTable.table[v]].insert(varietyTable.entries[v].variety.folded, id)
            }
            byRows.append(id, to: rows)
            rowSequences.insert(LexicalMatcher.bits(rows), id)
            keywordRows[Int(id)] = rows
        }
        // Its particle-free spellings and alternative rows, where no keyword has them as its own.
        for variant in LexicalMatcher.withoutParticle(folded) {
            variantOwners.append(id, to: variant)
            if byText[variant] == nil { texts.insert(variant, id) }
        }
        for alternative in keyword.alternativeRows where LexicalMatcher.validRows(alternative) {
            alternativeOwners.append(id, to: alternative)
            if byRows[alternative] == nil { alternativeRows.insert(LexicalMatcher.bits(alternative), id) }
        }
        let distinct = LexicalMatcher.distinctRows(rows)
        for row in distinct { singleRows.append(id, to: row) }
        distinctRows[Int(id)] = Int32(distinct.count)
        let bigrams = LexicalMatcher.distinctBigrams(folded)
        for bigram in bigrams { bigramKeywords.append(id, to: bigram) }
        bigramCount[Int(id)] = Int32(bigrams.count)
        textLength[Int(id)] = Int32(folded.count)
    }

    /// Removes keyword `id`, which was inserted with `keyword`: every step of `insert` undone, in reverse.
    /// - Complexity: as `insert`.
    public mutating func remove(_ keyword: LexicalText, id: Int32) {
        precondition(id >= 0 && Int(id) < keywordCount, "id outside the matcher's capacity")
        for bigram in LexicalMatcher.distinctBigrams(keyword.folded) { bigramKeywords.removeOne(id, from: bigram) }
        for row in LexicalMatcher.distinctRows(keyword.rows) { singleRows.removeOne(id, from: row) }
        removeKeys(keyword, id: id)
    }

    /// Removes several keywords, each inserted with its text, as `remove` one after another would; but each
    /// bigram's and row's postings are filtered once for all of them, so taking many keywords that share a bigram
    /// out of a large list costs one pass over that bigram's keywords rather than one per keyword taken out.
    /// - Complexity: O(Σ `insert` work of the keywords, without their bigram and row postings) plus one pass over
    ///   the postings of each bigram and row they have.
    public mutating func remove(_ keywords: [(text: LexicalText, id: Int32)]) {
        var bigramsLeaving: [UInt64: Set<Int32>] = [:], rowsLeaving: [Int32: Set<Int32>] = [:]
        for (keyword, id) in keywords {
            precondition(id >= 0 && Int(id) < keywordCount, "id outside the matcher's capacity")
            for bigram in LexicalMatcher.distinctBigrams(keyword.folded) { bigramsLeaving[bigram, default: []].insert(id) }
            for row in LexicalMatcher.distinctRows(keyword.rows) { rowsLeaving[row, default: []].insert(id) }
            removeKeys(keyword, id: id)
        }
        for (bigram, ids) in bigramsLeaving { bigramKeywords.remove(ids, from: bigram) }
        for (row, ids) in rowsLeaving { singleRows.remove(ids, from: row) }
    }

    /// `remove` apart from the bigram and row postings (which no other step reads).
    private mutating func removeKeys(_ keyword: LexicalText, id: Int32) {
        let folded = keyword.folded, rows = keyword.rows
        textLength[Int(id)] = 0
        bigramCount[Int(id)] = 0
        distinctRows[Int(id)] = 0
        for alternative in keyword.alternativeRows.reversed() where LexicalMatcher.validRows(alternative) {
            if byRows[alternative] == nil { alternativeRows.remove(LexicalMatcher.bits(alternative), id) }
            alternativeOwners.removeOne(id, from: alternative)
        }
        for variant in LexicalMatcher.withoutParticle(folded).reversed() {
            if byText[variant] == nil { texts.remove(variant, id) }
            variantOwners.removeOne(id, from: variant)
        }
        if LexicalMatcher.validRows(rows) {
            keywordRows[Int(id)] = []
            rowSequences.remove(LexicalMatcher.bits(rows), id)
            byRows.removeOne(id, from: rows)
            for v in varietyTable.byTargetRows[rows] ?? [] where byText[varietyTable.entries[v].target.folded] == nil {
                varieties[varietyTable.table[v]].remove(varietyTable.entries[v].variety.folded, id)
            }
            if byRows[rows] == nil {
                for owner in alternativeOwners.list(rows) { alternativeRows.insert(LexicalMatcher.bits(rows), owner) }
            }
        }
        texts.remove(folded, id)
        byText.removeOne(id, from: folded)
        let lastSpelled = byText[folded] == nil
        for v in varietyTable.byTargetText[folded] ?? [] {
            let entry = varietyTable.entries[v]
            varieties[varietyTable.table[v]].remove(entry.variety.folded, id)
            if lastSpelled { for k in targets(entry) { varieties[varietyTable.table[v]].insert(entry.variety.folded, k) } }
        }
        if lastSpelled {
            for owner in variantOwners.list(folded) { texts.insert(folded, owner) }
        }
    }

    /// 1 / (number of keywords with the rows of keyword `k`); 0 when its rows are not valid.
    private func specificity(_ k: Int) -> Float {
        let rows = keywordRows[k]
        guard !rows.isEmpty, let ids = byRows[rows] else { return 0 }
        return 1 / Float(ids.count)
    }

    private static func bits(_ rows: [Int32]) -> [UInt32] { rows.map { UInt32(bitPattern: $0) } }

    private static func distinctRows(_ rows: [Int32]) -> [Int32] {
        var seen: [Int32] = []
        for row in rows where row >= 0 && !seen.contains(row) { seen.append(row) }
        return seen
    }

    private static func distinctBigrams(_ f: [UInt32]) -> [UInt64] {
        guard f.count >= 2 else { return [] }
        var seen = Set<UInt64>(), result: [UInt64] = []
        for i in 0..<(f.count - 1) where seen.insert(bigram(f[i], f[i + 1])).inserted { result.append(bigram(f[i], f[i + 1])) }
        return result
    }

    /// Fills `scratch` with the features of every keyword that has evidence in `name`.
    /// - Complexity: O(length · longest key + postings touched); allocates nothing once `scratch` is warm.
    public func match(_ name: LexicalText, into scratch: inout LexicalScratch) {
        precondition(scratch.keywordCount == keywordCount, "scratch was made for another keyword list")
        scratch.clear()
        name.folded.withUnsafeBufferPointer { folded in
            for (weight, table) in zip(varietyTable.weights, varieties) {
                scan(folded, table) { k, start, length in
                    // A variety name inside the keyword's own text (ﾏﾖ in マヨネーズ, the receipt cut
                    // ﾐｯｸｽﾍﾞｼﾞ in ミックスベジタブル) says nothing the text does not.
                    if ownTextCovers(k, start, start + length, folded) { return }
                    scratch.set(k, .variety, weight)
                    scratch.varietySpans.append(Int32(start)); scratch.varietySpans.append(Int32(start + length))
                    scratch.varietySpans.append(Int32(k))
                    if name.isBoundary(start) && name.isBoundary(start + length) {
                        scratch.wholeVarietyEnd[k] = max(scratch.wholeVarietyEnd[k], Int32(start + length))
                    }
                }
            }
            // A token, or a run of tokens within a phrase, whose dictionary forms spell a keyword writes that
            // keyword (塩さけ → 塩鮭); one whose forms spell a variety name writes the variety's keyword
            // (ゆず胡椒 → 柚子胡椒 → 柚子こしょう).
            func written(_ k: Int, _ weight: Float, _ spelling: LexicalText.Spelling) {
                scratch.set(k, .variety, weight)
                scratch.varietySpans.append(Int32(spelling.start)); scratch.varietySpans.append(Int32(spelling.end))
                scratch.varietySpans.append(Int32(k))
                scratch.wholeVarietyEnd[k] = max(scratch.wholeVarietyEnd[k], Int32(spelling.end))
            }
            // A keyword that the surface there spells already, by its text or a variety name (しいたけ, whose
            // form 椎茸 is its variety; ぎょうざ, whose form ギョーザ is 餃子's), has that evidence.
            func spelledThere(_ k: Int, _ spelling: LexicalText.Spelling) -> Bool {
                var v = 0
                while v < scratch.varietySpans.count {
                    if scratch.varietySpans[v] == Int32(spelling.start) && scratch.varietySpans[v + 1] == Int32(spelling.end)
                        && Int(scratch.varietySpans[v + 2]) == k { return true }
                    v += 3
                }
                let length = spelling.end - spelling.start
                guard texts.hasKeys(ofLength: length) else { return false }
                let hash = SequenceTable.hash(folded[spelling.start..<spelling.end])
                var found = false
                texts.withPostings(folded, start: spelling.start, length: length, hash: hash) { found = found || Int($0) == k }
                return found
            }
            for spelling in name.spellings where !name.hasPhraseEnd(within: spelling.start, spelling.end) {
                if let ids = byText[spelling.folded] {
                    for id in ids { written(Int(id), 1, spelling) }
                }
                spelling.folded.withUnsafeBufferPointer { form in
                    let hash = SequenceTable.hash(form)
                    for (weight, table) in zip(varietyTable.weights, varieties) where table.hasKeys(ofLength: form.count) {
                        table.withPostings(form, start: 0, length: form.count, hash: hash) { id in
                            if !spelledThere(Int(id), spelling) { written(Int(id), weight, spelling) }
                        }
                    }
                }
            }
            scan(folded, texts) { k, start, length in
                let owner = LexicalMatcher.containingVariety(scratch.varietySpans, k, start, start + length)
                if owner >= 0 {
                    scratch.insideVariety[k] = max(scratch.insideVariety[k], 1)
                    scratch.spelledWithin[k] = owner
                } else {
                    scratch.insideVariety[k] = 2
                }
                scratch.set(k, .text, 1)
                scratch.set(k, .length, Float(min(length, 6)) / 6)
                let endsToken = name.isBoundary(start + length)
                if endsToken { scratch.set(k, .textEndsToken, 1) }
                if endsToken && name.isBoundary(start) {
                    scratch.set(k, .textWholeTokens, 1)
                    scratch.wholeTextEnd[k] = max(scratch.wholeTextEnd[k], Int32(start + length))
                }
                if name.isPhraseEnd(start + length) { scratch.set(k, .textEndsPhrase, 1) }
                // Matches come by start, then by length: the first start's longest match is its last one.
                if scratch.firstTextSpan[2 * k] < 0 || scratch.firstTextSpan[2 * k] == Int32(start) {
                    scratch.firstTextSpan[2 * k] = Int32(start)
                    scratch.firstTextSpan[2 * k + 1] = Int32(start + length)
                }
                scratch.textSpan[2 * k] = Int32(start)
                scratch.textSpan[2 * k + 1] = Int32(start + length)
            }
        }
        var rowBuffer = name.rows
        rowBuffer.withUnsafeMutableBufferPointer { rows in
            rows.withMemoryRebound(to: UInt32.self) { bits in
                scanRows(UnsafeBufferPointer(bits)) { k, start, length, shared in
                    // A keyword's own rows: shared by the key's postings; alternative rows: looked up.
                    scratch.set(k, .rows, shared > 0 ? 1 / Float(shared) : specificity(k))
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
            // With a row match, the rows feature holds the keyword's specificity.
            let rowSpecificity = scratch.features[k * LexicalFeature.count + LexicalFeature.rows.rawValue]
            if hasRows && !hasText && rowSpecificity < 1 {
                scratch.features[k * LexicalFeature.count + LexicalFeature.sharedRowsOnly.rawValue] = 1 - rowSpecificity
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

    /// The keyword of a variety match of `spans` ((start, end, keyword) triples) that holds the text match
    /// [start, end) strictly inside and whose variety name does not also map to keyword `k` (the same name at the
    /// same span); −1 when there is none.
    /// - Complexity: O(variety matches), at most a few per name.
    static func containingVariety(_ spans: [Int32], _ k: Int, _ start: Int, _ end: Int) -> Int32 {
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
                if !mapsToK { return spans[v + 2] }
            }
            v += 3
        }
        return -1
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

    /// `scan` over both row tables in one pass, so matches come in the same (start, length) order as from one
    /// table; `found` gets the key's postings count for a keyword's own rows, 0 for alternative rows.
    @inline(__always)
    private func scanRows(_ buffer: UnsafeBufferPointer<UInt32>, _ found: (Int, Int, Int, Int) -> Void) {
        let n = buffer.count
        let longest = max(rowSequences.maxLength, alternativeRows.maxLength)
        guard longest > 0 else { return }
        for start in 0..<n {
            var hash = SequenceTable.offset
            let limit = min(longest, n - start)
            if limit < 1 { continue }
            for length in 1...limit {
                hash = SequenceTable.step(hash, buffer[start + length - 1])
                if rowSequences.hasKeys(ofLength: length) {
                    rowSequences.withPostingList(buffer, start: start, length: length, hash: hash) { list in
                        for k in list { found(Int(k), start, length, list.count) }
                    }
                }
                if alternativeRows.hasKeys(ofLength: length) {
                    alternativeRows.withPostings(buffer, start: start, length: length, hash: hash) { found(Int($0), start, length, 0) }
                }
            }
        }
    }

    /// Whether keyword `k`'s own text is written in `folded` over a span that holds `start..<end`.
    private func ownTextCovers(_ k: Int, _ start: Int, _ end: Int, _ folded: UnsafeBufferPointer<UInt32>) -> Bool {
        let length = Int(textLength[k])
        guard length > end - start, texts.hasKeys(ofLength: length) else { return false }
        var from = max(0, end - length)
        while from <= start && from + length <= folded.count {
            let hash = SequenceTable.hash(folded[from..<(from + length)])
            var found = false
            texts.withPostings(folded, start: from, length: length, hash: hash) { found = found || Int($0) == k }
            if found { return true }
            from += 1
        }
        return false
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
                guard table.hasKeys(ofLength: length) else { continue }
                table.withPostings(buffer, start: start, length: length, hash: hash) { found(Int($0), start, length) }
            }
        }
    }
}
