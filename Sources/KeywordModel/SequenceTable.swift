// An open-addressing table from short UInt32 sequences to postings, probed without allocating.

/// Maps sequences (folded strings, row-id sequences) to lists of Int32 postings.
///
/// Lookups take a window of a caller's buffer and an incrementally computed FNV-1a hash, so scanning every
/// substring of a name allocates nothing.
struct SequenceTable: Sendable {
    private(set) var keys: [UInt32] = []
    private var keyStart: [Int] = []
    private var keyLength: [Int] = []
    private var keyHash: [UInt64] = []
    private var postingStart: [Int] = []
    private(set) var postings: [Int32] = []
    private var slots: [Int32] = []
    /// Distinct key lengths, ascending; `maxLength` is the last.
    private(set) var lengths: [Bool] = []
    private(set) var maxLength = 0

    static let offset: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01B3

    @inline(__always) static func step(_ hash: UInt64, _ value: UInt32) -> UInt64 {
        (hash ^ UInt64(value)) &* prime
    }

    static func hash<C: Collection>(_ sequence: C) -> UInt64 where C.Element == UInt32 {
        sequence.reduce(offset) { step($0, $1) }
    }

    /// Builds the table from (key, posting) pairs; equal keys share one postings list (order kept, repeats
    /// dropped).
    /// - Complexity: O(entries) expected. Repeats are found in a set, not by searching the list, which would be
    ///   quadratic for a key shared by many keywords (a common leading word).
    init(_ entries: [([UInt32], Int32)]) {
        var index: [[UInt32]: Int] = [:]
        var lists: [[Int32]] = []
        var order: [[UInt32]] = []
        var pairs = Set<Int64>()
        for (key, posting) in entries where !key.isEmpty {
            if let at = index[key] {
                if pairs.insert(Int64(at) << 32 | Int64(UInt32(bitPattern: posting))).inserted { lists[at].append(posting) }
            } else {
                index[key] = lists.count
                pairs.insert(Int64(lists.count) << 32 | Int64(UInt32(bitPattern: posting)))
                lists.append([posting])
                order.append(key)
            }
        }
        var capacity = 16
        while capacity < order.count * 2 { capacity *= 2 }
        slots = [Int32](repeating: -1, count: capacity)
        for (k, key) in order.enumerated() {
            keyStart.append(keys.count)
            keyLength.append(key.count)
            keys.append(contentsOf: key)
            let h = SequenceTable.hash(key)
            keyHash.append(h)
            postingStart.append(postings.count)
            postings.append(contentsOf: lists[k])
            maxLength = max(maxLength, key.count)
            var slot = Int(h & UInt64(capacity - 1))
            while slots[slot] >= 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = Int32(k)
        }
        postingStart.append(postings.count)
        lengths = [Bool](repeating: false, count: maxLength + 1)
        for length in keyLength { lengths[length] = true }
    }

    /// The postings range of the key equal to `buffer[start..<start+length]`, whose hash is `hash`.
    /// - Complexity: O(length) expected.
    @inline(__always)
    func lookup(_ buffer: UnsafeBufferPointer<UInt32>, start: Int, length: Int, hash: UInt64) -> Range<Int>? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var slot = Int(hash & UInt64(mask))
        while true {
            let k = Int(slots[slot])
            if k < 0 { return nil }
            if keyHash[k] == hash && keyLength[k] == length {
                var equal = true
                let base = keyStart[k]
                for i in 0..<length where keys[base + i] != buffer[start + i] { equal = false; break }
                if equal { return postingStart[k]..<postingStart[k + 1] }
            }
            slot = (slot + 1) & mask
        }
    }
}
