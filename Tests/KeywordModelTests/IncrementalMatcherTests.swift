import KeywordModel
import XCTest

/// A matcher changed by inserts and removes (one keyword or several at a time) finds the same evidence as one built
/// from its final keywords.
final class IncrementalMatcherTests: XCTestCase {
    /// A small alphabet (with の, so particle-free spellings occur) and few rows, so keywords often share a
    /// spelling, rows, bigrams, alternative rows and variety targets: the cases where one keyword's change
    /// alters entries of others.
    private static let letters: [UInt32] = [0x3042, 0x3044, 0x306E, 0x3046]

    private func text(_ generator: inout SeededGenerator, maxLength: Int) -> [UInt32] {
        (0..<Int.random(in: 1...maxLength, using: &generator)).map { _ in Self.letters.randomElement(using: &generator)! }
    }

    private func rows(_ generator: inout SeededGenerator) -> [Int32] {
        (0..<Int.random(in: 0...3, using: &generator)).map { _ in Int32.random(in: -1...5, using: &generator) }
    }

    private func keyword(_ generator: inout SeededGenerator) -> LexicalText {
        let alternatives = (0..<Int.random(in: 0...2, using: &generator)).map { _ in rows(&generator) }
        return LexicalText(folded: text(&generator, maxLength: 6), rows: rows(&generator), alternativeRows: alternatives)
    }

    /// Evidence by keyword id (ids of `fresh` mapped through `ids`).
    private func evidence(_ matcher: LexicalMatcher, _ name: LexicalText, ids: [Int32]? = nil) -> [Int32: [Float]] {
        var result: [Int32: [Float]] = [:]
        for (k, values) in matcher.features(of: name) { result[ids.map { $0[k] } ?? Int32(k)] = values }
        return result
    }

    func testRandomInsertsAndRemovesMatchAFreshBuild() {
        for seed in UInt64(1)...6 {
            var generator = SeededGenerator(seed: seed)
            var pool = (0..<40).map { _ in keyword(&generator) }
            // Pairs that make one keyword's entries depend on another's: a spelling with an interior の and the
            // spelling without it; rows equal to another keyword's alternative rows.
            for _ in 0..<8 {
                let plain = text(&generator, maxLength: 4) + text(&generator, maxLength: 2)
                guard plain.count >= 4 else { continue }
                var particle = plain
                particle.insert(0x306E, at: 2)
                pool.append(LexicalText(folded: particle, rows: rows(&generator)))
                pool.append(LexicalText(folded: plain, rows: rows(&generator)))
            }
            for k in 0..<8 where !pool[k].alternativeRows.isEmpty {
                pool.append(LexicalText(folded: text(&generator, maxLength: 6), rows: pool[k].alternativeRows[0]))
            }
            let varieties = (0..<10).map { _ in
                VarietyEntry(variety: LexicalText(folded: text(&generator, maxLength: 4), rows: []),
                             target: Bool.random(using: &generator) ? pool.randomElement(using: &generator)!
                                                                    : LexicalText(folded: text(&generator, maxLength: 3), rows: rows(&generator)))
            }
            var matcher = LexicalMatcher(capacity: 0, varieties: varieties)
            var live: [Int32: Int] = [:]  // id → pool index
            var free: [Int32] = []
            for step in 0..<300 {
                if !live.isEmpty && (Bool.random(using: &generator) || live.count > 30) {
                    // One keyword at a time, or every fifth step several at once (postings filtered once).
                    let count = step % 5 == 0 ? Int.random(in: 2...8, using: &generator) : 1
                    let ids = Array(live.keys.sorted().shuffled(using: &generator).prefix(count))
                    if ids.count == 1 {
                        matcher.remove(pool[live[ids[0]]!], id: ids[0])
                    } else {
                        matcher.remove(ids.map { (text: pool[live[$0]!], id: $0) })
                    }
                    for id in ids { live[id] = nil }
                    free += ids
                } else {
                    if free.isEmpty {
                        let start = matcher.keywordCount
                        matcher.reserve(start + 4)
                        free = (start..<(start + 4)).reversed().map { Int32($0) }
                    }
                    let id = free.removeLast(), p = Int.random(in: 0..<pool.count, using: &generator)
                    matcher.insert(pool[p], id: id)
                    live[id] = p
                }
                guard step % 10 == 9 else { continue }
                let ids = live.keys.sorted()
                let fresh = LexicalMatcher(keywords: ids.map { pool[live[$0]!] }, varieties: varieties)
                for _ in 0..<20 {
                    let name = LexicalText(folded: text(&generator, maxLength: 12), rows: rows(&generator) + rows(&generator))
                    XCTAssertEqual(evidence(matcher, name), evidence(fresh, name, ids: ids), "seed \(seed), step \(step)")
                }
                for (id, p) in live {
                    // Each keyword's own text and rows as the name: every feature of the keyword is exercised.
                    let name = LexicalText(folded: pool[p].folded, rows: pool[p].rows)
                    XCTAssertEqual(evidence(matcher, name), evidence(fresh, name, ids: ids), "seed \(seed), step \(step), id \(id)")
                }
            }
        }
    }

    func testAChangedMatcherLeavesTheOriginalAsItWas() {
        let keywords = [LexicalText(text: "玉ねぎ", rows: [5]), LexicalText(text: "新玉ねぎ", rows: [6, 5])]
        let original = LexicalMatcher(keywords: keywords)
        var changed = original
        changed.remove(keywords[1], id: 1)
        let name = LexicalText(text: "新玉ねぎ", rows: [6, 5])
        XCTAssertEqual(original.features(of: name).map(\.keyword), [0, 1])
        XCTAssertEqual(changed.features(of: name).map(\.keyword), [0])
    }
}
