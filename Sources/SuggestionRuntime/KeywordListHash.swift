// The keyword list's version hash, kept up to date one inserted or removed keyword at a time.
import Platform

/// A 64-bit hash of a keyword list that depends on the list alone (not on how it was reached, so replicas
/// serving the same list agree) and changes when a keyword is added, removed or moved.
///
/// It is the wrapping sum, over every pair of neighbours in the list framed by a start and an end mark, of a
/// mix of the two keywords' FNV-1a hashes. The pairs of neighbours determine a list of distinct keywords, order
/// included; inserting or removing one keyword changes only the pairs around it, so the hash follows a change
/// by re-hashing the changed keyword and its two neighbours.
struct KeywordListHash: Equatable {
    private(set) var value: UInt64

    /// - Complexity: O(total length of the keywords).
    init<List: Sequence<String>>(_ keywords: List) {
        var value: UInt64 = 0
        var previous = Self.start
        for keyword in keywords {
            let current = Self.hash(keyword)
            value &+= Self.pair(previous, current)
            previous = current
        }
        self.value = value &+ Self.pair(previous, Self.end)
    }

    /// The hash after `edit`, which turned `old` into `new`: removals are undone from the highest index down,
    /// then insertions made from the lowest up, each replacing the pairs around it.
    /// - Complexity: O(changes · log changes), plus hashing each changed keyword and its neighbours.
    mutating func apply<Old: RandomAccessCollection<String>, New: RandomAccessCollection<String>>(
        _ edit: KeywordListEdit, old: Old, new: New
    ) where Old.Index == Int, New.Index == Int {
        // Removals above k are done, those below are not: the neighbours are old[k - 1] and the next old keyword
        // above k that stays, which is the one the removal just above k found when that removal is k + 1.
        var above = Int.max, staying = old.count
        for k in edit.removals.sorted(by: >) where k != above {
            if k + 1 != above { staying = k + 1 }
            above = k
            let before = k > 0 ? Self.hash(old[k - 1]) : Self.start
            let after = staying < old.count ? Self.hash(old[staying]) : Self.end
            let current = Self.hash(old[k])
            value = value &- Self.pair(before, current) &- Self.pair(current, after) &+ Self.pair(before, after)
        }
        // Insertions below k are in place, those above are not: the neighbours are new[k - 1] and the next
        // keyword above k that is not inserted (found from the top down first).
        var inserted = edit.insertions.map(\.index).sorted()
        inserted = inserted.enumerated().filter { $0.offset == 0 || inserted[$0.offset - 1] != $0.element }.map(\.element)
        var next = [Int](repeating: 0, count: inserted.count)
        for i in inserted.indices.reversed() {
            next[i] = i + 1 < inserted.count && inserted[i + 1] == inserted[i] + 1 ? next[i + 1] : inserted[i] + 1
        }
        for (i, k) in inserted.enumerated() {
            let before = k > 0 ? Self.hash(new[k - 1]) : Self.start
            let after = next[i] < new.count ? Self.hash(new[next[i]]) : Self.end
            let current = Self.hash(new[k])
            value = value &- Self.pair(before, after) &+ Self.pair(before, current) &+ Self.pair(current, after)
        }
    }

    private static let start: UInt64 = 0x5354_4152_5400_0001
    private static let end: UInt64 = 0x454E_4400_0000_0002

    /// FNV-1a, 64-bit, over the keyword's UTF-8 bytes.
    static func hash(_ keyword: String) -> UInt64 {
        FNV1a.hash64(keyword.utf8)
    }

    /// An ordered pair, mixed (SplitMix64's finaliser on each step) so that (a, b) and (b, a) differ.
    static func pair(_ a: UInt64, _ b: UInt64) -> UInt64 {
        mix(mix(a &+ 0x9E37_79B9_7F4A_7C15) ^ b)
    }

    private static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
