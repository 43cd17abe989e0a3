// Per-thread buffers the lexical matcher fills with one name's exact-match evidence.

/// Reusable per-thread buffers for `LexicalMatcher.match`; after a call, `touched` lists the keywords with any
/// evidence and `features[k * LexicalFeature.count + f]` holds their feature values (zero for all others).
public struct LexicalScratch: Sendable {
    public internal(set) var touched: [Int32] = []
    public internal(set) var features: [Float]
    var isTouched: [Bool]
    var overlapCount: [Int32]
    var bigramHits: [Int32]
    var textSpan: [Int32]
    /// Per keyword: the start and end (folded offsets) of its first text match, the longest of those that start
    /// first; -1 none.
    var firstTextSpan: [Int32]
    /// Per keyword: the end (folded offset) of its last text match that covers whole tokens of the name; -1 none.
    var wholeTextEnd: [Int32]
    /// Per keyword: the end of its last variety or brand name match that covers whole tokens; -1 none.
    var wholeVarietyEnd: [Int32]
    var rowSpan: [Int32]
    /// The touched keywords with a text or row span (the only ones that can cover another match).
    var spanned: [Int32] = []
    /// Variety matches of the current name as (start, end, keyword) triples, in folded offsets.
    var varietySpans: [Int32] = []
    /// Per keyword: 0 no text match yet, 1 every text match so far inside another keyword's variety, 2 not.
    var insideVariety: [UInt8]
    /// Per keyword: a keyword whose variety name holds its last text match strictly inside (ヤキソバ → 焼きそば holds
    /// そば); −1 none.
    var spelledWithin: [Int32]

    public init(keywordCount: Int) {
        features = [Float](repeating: 0, count: keywordCount * LexicalFeature.count)
        isTouched = [Bool](repeating: false, count: keywordCount)
        overlapCount = [Int32](repeating: 0, count: keywordCount)
        bigramHits = [Int32](repeating: 0, count: keywordCount)
        textSpan = [Int32](repeating: -1, count: keywordCount * 2)
        firstTextSpan = [Int32](repeating: -1, count: keywordCount * 2)
        wholeTextEnd = [Int32](repeating: -1, count: keywordCount)
        wholeVarietyEnd = [Int32](repeating: -1, count: keywordCount)
        insideVariety = [UInt8](repeating: 0, count: keywordCount)
        spelledWithin = [Int32](repeating: -1, count: keywordCount)
        rowSpan = [Int32](repeating: -1, count: keywordCount * 2)
        touched.reserveCapacity(keywordCount)
    }

    public var keywordCount: Int { isTouched.count }

    /// The feature vector of keyword `k` (zeros when untouched).
    public func featureValues(of k: Int) -> ArraySlice<Float> {
        features[(k * LexicalFeature.count)..<((k + 1) * LexicalFeature.count)]
    }

    /// Where keyword `k` is written in the name (see `WrittenSpan`).
    public func written(_ k: Int) -> WrittenSpan {
        // The first place: the earliest start of a text or variety match, its longest match there.
        var start = Int(firstTextSpan[2 * k]), first = Int(firstTextSpan[2 * k + 1]), last = Int(textSpan[2 * k + 1])
        var v = 0
        while v < varietySpans.count {
            if Int(varietySpans[v + 2]) == k {
                let from = Int(varietySpans[v]), to = Int(varietySpans[v + 1])
                if start < 0 || from < start || (from == start && to > first) { (start, first) = (from, to) }
                last = max(last, to)
            }
            v += 3
        }
        var span = WrittenSpan(end: first, lastEnd: last, wholeTokenEnd: Int(wholeTextEnd[k]),
                               wholeSpellingEnd: Int(wholeVarietyEnd[k]))
        span.spelledWithin = insideVariety[k] == 1 ? Int(spelledWithin[k]) : -1
        span.start = start
        return span
    }

    mutating func clear() {
        for k32 in touched {
            let k = Int(k32)
            isTouched[k] = false
            overlapCount[k] = 0
            bigramHits[k] = 0
            insideVariety[k] = 0
            spelledWithin[k] = -1
            textSpan[2 * k] = -1; textSpan[2 * k + 1] = -1
            firstTextSpan[2 * k] = -1; firstTextSpan[2 * k + 1] = -1
            wholeTextEnd[k] = -1
            wholeVarietyEnd[k] = -1
            rowSpan[2 * k] = -1; rowSpan[2 * k + 1] = -1
            for f in 0..<LexicalFeature.count { features[k * LexicalFeature.count + f] = 0 }
        }
        touched.removeAll(keepingCapacity: true)
        spanned.removeAll(keepingCapacity: true)
        varietySpans.removeAll(keepingCapacity: true)
    }

    @inline(__always) mutating func touch(_ k: Int) {
        if !isTouched[k] {
            isTouched[k] = true
            touched.append(Int32(k))
        }
    }

    @inline(__always) mutating func set(_ k: Int, _ feature: LexicalFeature, _ value: Float) {
        touch(k)
        let at = k * LexicalFeature.count + feature.rawValue
        features[at] = max(features[at], value)
    }
}

/// Where a keyword is written in a name, in folded offsets of the name's text: `end` and `lastEnd` are where it is
/// first and last written (the ends of its text matches and of variety or brand names that map to it; equal when
/// it is written once), so that a word written twice (「ごま担々うどん 濃厚ごま」, 「国産りんご100% 純りんご酢」) is read at
/// both places; `wholeTokenEnd` is where its last text match that covers whole tokens ends, and `wholeSpellingEnd`
/// where its last variety or brand name that covers whole tokens ends (「ｺｰﾋｰｷﾞｭｳﾆｭｳ」 spells コーヒー牛乳). Each is −1
/// when there is none.
public struct WrittenSpan: Sendable, Equatable {
    public var end: Int
    public var lastEnd: Int
    public var wholeTokenEnd: Int
    public var wholeSpellingEnd: Int
    /// When every text match lies strictly inside a variety or brand name of other keywords (そば in 「ヤキソバ」,
    /// a spelling of 焼きそば; たこ in 「ﾌﾞﾀｺﾏｷﾞﾚ」, ﾌﾞﾀｺﾏ being 豚こま切れ肉): the keyword such a name spells, which
    /// the name writes, this one only as a piece of it; −1 otherwise. From the matcher it is the matcher's keyword
    /// id; `KeywordIndex` hands it on as a keyword index.
    public var spelledWithin = -1
    /// Where the first place starts (−1 when unknown).
    public var start = -1

    public static let none = WrittenSpan(end: -1, wholeTokenEnd: -1)

    public init(end: Int, lastEnd: Int? = nil, wholeTokenEnd: Int, wholeSpellingEnd: Int = -1, start: Int = -1) {
        self.start = start
        self.end = end
        self.lastEnd = lastEnd ?? end
        self.wholeTokenEnd = wholeTokenEnd
        self.wholeSpellingEnd = wholeSpellingEnd
    }

    /// Where the keyword's last whole-token writing ends: its own text only, or also its varieties' and brands'.
    public func wholeEnd(withSpellings: Bool) -> Int {
        withSpellings ? max(wholeTokenEnd, wholeSpellingEnd) : wholeTokenEnd
    }
}
