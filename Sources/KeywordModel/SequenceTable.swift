// Hash tables from short UInt32 sequences to postings, probed without allocating, and changed a key at a time.
import Platform

/// Maps sequences (folded strings, row-id sequences) to lists of Int32 postings.
///
/// Lookups take a window of a caller's buffer and an incrementally computed FNV-1a hash, so scanning every
/// substring of a name allocates nothing. Keys are spread by hash over `chunkCount` small open-addressing
/// tables held in `ChunkBox`es, so adding or removing one posting rebuilds one small table and shares the rest
/// with the previous version of the table.
///
/// A postings list is a multiset: `insert` appends, `remove` takes one occurrence away. Matching treats a repeat
/// like a single posting (every feature it sets is a maximum or a flag).
struct SequenceTable: Sendable {
    static let chunkBits = 10
    private var chunks: [ChunkBox<SequenceChunk>?]
    /// Keys per length; `maxLength` is the longest length with a key.
    private var lengthCounts: [Int] = [0]
    private(set) var maxLength = 0

    /// FNV-1a, 64-bit, one step per 32-bit value.
    static let offset = FNV1a.basis64

    @inline(__always) static func step(_ hash: UInt64, _ value: UInt32) -> UInt64 {
        FNV1a.step(hash, UInt64(value))
    }

    static func hash<C: Collection>(_ sequence: C) -> UInt64 where C.Element == UInt32 {
        sequence.reduce(offset) { step($0, $1) }
    }

    init() {
        chunks = [ChunkBox<SequenceChunk>?](repeating: ChunkBox(SequenceChunk()), count: 1 << Self.chunkBits)
    }

    /// A table holding the (key, posting) pairs; empty keys are skipped.
    init(_ entries: [([UInt32], Int32)]) {
        self.init()
        for (key, posting) in entries { insert(key, posting) }
    }

    /// The chunk of a key: the top bits of its hash, multiplied first (FNV-1a's top bits are poorly spread for
    /// short keys, which would crowd a few chunks and make changing them cost more).
    @inline(__always) private static func chunk(_ hash: UInt64) -> Int {
        Int((hash &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - chunkBits))
    }

    /// Whether some key has `length` elements.
    @inline(__always) func hasKeys(ofLength length: Int) -> Bool {
        length < lengthCounts.count && lengthCounts[length] > 0
    }

    /// Adds `posting` to the list of `key` (an empty key is ignored).
    /// - Complexity: O(keys in the chunk + the key's postings) when the chunk is shared, else amortised O(key).
    mutating func insert(_ key: [UInt32], _ posting: Int32) {
        guard !key.isEmpty else { return }
        let h = Self.hash(key)
        let created = mutateChunk(Self.chunk(h)) { $0.insert(key, hash: h, posting) }
        if created {
            while lengthCounts.count <= key.count { lengthCounts.append(0) }
            lengthCounts[key.count] += 1
            maxLength = max(maxLength, key.count)
        }
    }

    /// Removes one occurrence of `posting` from the list of `key`; the key goes with its last posting.
    mutating func remove(_ key: [UInt32], _ posting: Int32) {
        guard !key.isEmpty else { return }
        let h = Self.hash(key)
        let removed = mutateChunk(Self.chunk(h)) { $0.remove(key, hash: h, posting) }
        if removed {
            lengthCounts[key.count] -= 1
            while maxLength > 0 && lengthCounts[maxLength] == 0 { maxLength -= 1 }
        }
    }

    private mutating func mutateChunk<R>(_ c: Int, _ body: (inout SequenceChunk) -> R) -> R {
        guard let box = chunks[c] else { preconditionFailure("chunk missing") }
        var value = box.value
        chunks[c] = nil
        _ = consume box
        let result = body(&value)
        chunks[c] = ChunkBox(value)
        return result
    }

    /// Calls `body` with the postings of the key equal to `buffer[start..<start+length]`, whose hash is `hash`.
    /// - Complexity: O(length) expected.
    @inline(__always)
    func withPostings(_ buffer: UnsafeBufferPointer<UInt32>, start: Int, length: Int, hash: UInt64,
                      _ body: (Int32) -> Void) {
        let box = chunks[Self.chunk(hash)].unsafelyUnwrapped
        guard let k = box.value.find(buffer, start: start, length: length, hash: hash) else { return }
        box.value.postings[k].withUnsafeBufferPointer { list in
            for posting in list { body(posting) }
        }
    }

    /// Calls `body` with the whole postings list of the key equal to `buffer[start..<start+length]`.
    @inline(__always)
    func withPostingList(_ buffer: UnsafeBufferPointer<UInt32>, start: Int, length: Int, hash: UInt64,
                         _ body: (UnsafeBufferPointer<Int32>) -> Void) {
        let box = chunks[Self.chunk(hash)].unsafelyUnwrapped
        guard let k = box.value.find(buffer, start: start, length: length, hash: hash) else { return }
        box.value.postings[k].withUnsafeBufferPointer(body)
    }

    /// The postings of `key`, in insertion order (for tests).
    func postings(_ key: [UInt32]) -> [Int32] {
        var found: [Int32] = []
        key.withUnsafeBufferPointer { buffer in
            withPostings(buffer, start: 0, length: key.count, hash: Self.hash(key)) { found.append($0) }
        }
        return found
    }
}

/// One chunk of a `SequenceTable`: keys with their hashes and postings, and an open-addressing index over them.
struct SequenceChunk: Sendable {
    private(set) var keys: [[UInt32]] = []
    private var hashes: [UInt64] = []
    private(set) var postings: [[Int32]] = []
    private var slots: [Int32] = []

    @inline(__always)
    func find(_ buffer: UnsafeBufferPointer<UInt32>, start: Int, length: Int, hash: UInt64) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var slot = Int(hash & UInt64(mask))
        while true {
            let k = Int(slots[slot])
            if k < 0 { return nil }
            if hashes[k] == hash && keys[k].count == length {
                var equal = true
                keys[k].withUnsafeBufferPointer { key in
                    for i in 0..<length where key[i] != buffer[start + i] { equal = false; break }
                }
                if equal { return k }
            }
            slot = (slot + 1) & mask
        }
    }

    private func find(_ key: [UInt32], hash: UInt64) -> Int? {
        key.withUnsafeBufferPointer { find($0, start: 0, length: key.count, hash: hash) }
    }

    /// Appends the posting; true when the key is new.
    mutating func insert(_ key: [UInt32], hash: UInt64, _ posting: Int32) -> Bool {
        if let k = find(key, hash: hash) {
            postings[k].append(posting)
            return false
        }
        keys.append(key)
        hashes.append(hash)
        postings.append([posting])
        if slots.count < keys.count * 2 {
            rebuildSlots()
        } else {
            place(keys.count - 1)
        }
        return true
    }

    /// Removes one occurrence of the posting; true when the key went with it.
    mutating func remove(_ key: [UInt32], hash: UInt64, _ posting: Int32) -> Bool {
        guard let k = find(key, hash: hash), let at = postings[k].lastIndex(of: posting) else { return false }
        postings[k].remove(at: at)
        guard postings[k].isEmpty else { return false }
        let last = keys.count - 1
        if k != last {
            keys.swapAt(k, last)
            hashes.swapAt(k, last)
            postings.swapAt(k, last)
        }
        keys.removeLast()
        hashes.removeLast()
        postings.removeLast()
        rebuildSlots()
        return true
    }

    private mutating func rebuildSlots() {
        var capacity = 4
        while capacity < keys.count * 2 { capacity *= 2 }
        slots = [Int32](repeating: -1, count: capacity)
        for k in keys.indices { place(k) }
    }

    private mutating func place(_ k: Int) {
        let mask = slots.count - 1
        var slot = Int(hashes[k] & UInt64(mask))
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(k)
    }
}
