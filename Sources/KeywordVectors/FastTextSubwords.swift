import Platform

/// fastText's character n-gram rows for a word, as `Dictionary::getSubwords` computes them.
struct FastTextSubwords: Sendable {
    /// Words in the dictionary (rows before the n-gram buckets).
    var wordCount: Int
    var minn: Int
    var maxn: Int
    var bucket: Int
    /// fastText's `pruneidx_size`: -1 for an unpruned model, 0 for no n-grams, else the size of `pruned`.
    var prunedSize: Int = -1
    /// Bucket → compacted bucket, for pruned models.
    var pruned: [Int32: Int32] = [:]
    /// `subwords[i]` for dictionary entry i (own id first), precomputed as fastText does on load.
    var entryRows: [[Int32]] = []
    /// Dictionary ids of the labels of supervised models (entries nwords ..< size), by UTF-8 bytes.
    var labelIds: [[UInt8]: Int] = [:]

    static let endOfSentence = Array("</s>".utf8)

    /// FNV-1a 32 with each byte sign-extended before the xor, as fastText hashes n-grams.
    @inline(__always)
    static func hash(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var hash = FNV1a.basis32
        for byte in bytes { hash = FNV1a.step32(hash, UInt32(bitPattern: Int32(Int8(bitPattern: byte)))) }
        return hash
    }

    /// Rows to average for `word`: the entry's precomputed list when it is in the dictionary,
    /// else its n-grams (none for `</s>`).
    func rows(for word: [UInt8], wordId: Int?) -> [Int] {
        if let id = wordId ?? labelIds[word], id < entryRows.count { return entryRows[id].map { Int($0) } }
        if word == Self.endOfSentence { return [] }
        var rows: [Int32] = []
        appendNgramRows(of: word, to: &rows)
        return rows.map { Int($0) }
    }

    /// fastText's `computeSubwords` on `<word>`: n-grams of n = minn … maxn UTF-8 characters,
    /// skipping the lone `<` and `>`, each hashed into a bucket row after the words.
    func appendNgramRows(of word: [UInt8], to rows: inout [Int32]) {
        guard bucket > 0, maxn > 0 else { return }
        var wrapped: [UInt8] = [0x3C]
        wrapped.reserveCapacity(word.count + 2)
        wrapped.append(contentsOf: word)
        wrapped.append(0x3E)
        let count = wrapped.count
        for start in 0 ..< count where wrapped[start] & 0xC0 != 0x80 {
            var end = start
            var n = 1
            while end < count && n <= maxn {
                end += 1
                while end < count && wrapped[end] & 0xC0 == 0x80 { end += 1 }
                if n >= minn && !(n == 1 && (start == 0 || end == count)) {
                    let id = Int32(Int(Self.hash(wrapped[start ..< end])) % bucket)
                    push(id, to: &rows)
                }
                n += 1
            }
        }
    }

    private func push(_ id: Int32, to rows: inout [Int32]) {
        if prunedSize == 0 || id < 0 { return }
        if prunedSize > 0 {
            guard let mapped = pruned[id] else { return }
            rows.append(Int32(wordCount) + mapped)
        } else {
            rows.append(Int32(wordCount) + id)
        }
    }
}
