import Platform

/// A vocabulary: UTF-8 keys, each mapped to one matrix row; many keys may share a row.
///
/// Keys live back to back in one byte array and are found through an open-addressing hash
/// table (FNV-1a 64 over the UTF-8 bytes, linear probing, load factor ≤ 0.5), so a vocabulary
/// of half a million keys costs a few allocations instead of half a million strings.
struct KeyTable: Sendable {
    /// All keys, concatenated.
    private let bytes: [UInt8]
    /// `starts[i] ..< starts[i + 1]` is key i in `bytes`.
    private let starts: [UInt32]
    /// The row of each key.
    private let keyRows: [UInt32]
    /// Hash slots: 0 is empty, otherwise the hash's high 32 bits << 32 | (key index + 1), so most
    /// probes that miss are settled without touching the key bytes.
    private let slots: [UInt64]
    /// Keys grouped by row, in key order: `rowKeys[rowStarts[r] ..< rowStarts[r + 1]]`.
    private let rowStarts: [UInt32]
    private let rowKeys: [UInt32]
    /// The first key that repeats an earlier one (the earlier one wins), if any.
    let firstDuplicate: Int?

    var count: Int { keyRows.count }

    /// - Parameters:
    ///   - bytes: the keys concatenated; `starts` has one more entry than there are keys.
    ///   - rows: the row of each key, each `< rowCount`.
    /// - Complexity: O(total key bytes + rowCount).
    init(bytes: [UInt8], starts: [UInt32], rows: [UInt32], rowCount: Int) {
        precondition(starts.count == rows.count + 1, "starts must have one entry more than rows")
        self.bytes = bytes
        self.starts = starts
        keyRows = rows
        var capacity = 16
        while capacity < rows.count * 2 { capacity <<= 1 }
        let mask = capacity - 1
        var table = [UInt64](repeating: 0, count: capacity)
        var duplicate: Int?
        for key in 0 ..< rows.count {
            let range = Int(starts[key]) ..< Int(starts[key + 1])
            let hash = KeyTable.hash(bytes[range])
            let tag = hash & 0xFFFF_FFFF_0000_0000
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let occupant = table[slot]
                if occupant == 0 {
                    table[slot] = tag | UInt64(key + 1)
                    break
                }
                if occupant & 0xFFFF_FFFF_0000_0000 == tag {
                    let other = Int(occupant & 0xFFFF_FFFF) - 1
                    if bytes[Int(starts[other]) ..< Int(starts[other + 1])].elementsEqual(bytes[range]) {
                        if duplicate == nil { duplicate = key }
                        break
                    }
                }
                slot = (slot + 1) & mask
            }
        }
        slots = table
        firstDuplicate = duplicate
        // Counting sort of keys by row.
        var rowStarts = [UInt32](repeating: 0, count: rowCount + 1)
        for row in rows { rowStarts[Int(row) + 1] += 1 }
        for row in 0 ..< rowCount { rowStarts[row + 1] += rowStarts[row] }
        var next = rowStarts
        var rowKeys = [UInt32](repeating: 0, count: rows.count)
        for (key, row) in rows.enumerated() {
            rowKeys[Int(next[Int(row)])] = UInt32(key)
            next[Int(row)] += 1
        }
        self.rowStarts = rowStarts
        self.rowKeys = rowKeys
    }

    /// Builds a table from strings, key i mapping to `rows[i]`.
    init(keys: [String], rows: [UInt32], rowCount: Int) {
        var bytes: [UInt8] = []
        var starts: [UInt32] = [0]
        starts.reserveCapacity(keys.count + 1)
        for key in keys {
            bytes.append(contentsOf: key.utf8)
            starts.append(UInt32(bytes.count))
        }
        self.init(bytes: bytes, starts: starts, rows: rows, rowCount: rowCount)
    }

    /// FNV-1a, 64 bits.
    @inline(__always)
    static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        FNV1a.hash64(bytes)
    }

    /// The index of the key with these bytes.
    /// - Complexity: O(key length) expected.
    func index<Bytes: Collection>(ofBytes key: Bytes) -> Int? where Bytes.Element == UInt8 {
        let mask = slots.count - 1
        let hash = KeyTable.hash(key)
        let tag = hash & 0xFFFF_FFFF_0000_0000
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let occupant = slots[slot]
            if occupant == 0 { return nil }
            if occupant & 0xFFFF_FFFF_0000_0000 == tag {
                let candidate = Int(occupant & 0xFFFF_FFFF) - 1
                if bytes[Int(starts[candidate]) ..< Int(starts[candidate + 1])].elementsEqual(key) { return candidate }
            }
            slot = (slot + 1) & mask
        }
    }

    func index(of key: String) -> Int? {
        var key = key
        return key.withUTF8 { index(ofBytes: $0) }
    }

    func row(ofKey index: Int) -> Int { Int(keyRows[index]) }

    func key(at index: Int) -> String {
        String(decoding: bytes[Int(starts[index]) ..< Int(starts[index + 1])], as: UTF8.self)
    }

    func keyBytes(at index: Int) -> ArraySlice<UInt8> {
        bytes[Int(starts[index]) ..< Int(starts[index + 1])]
    }

    /// Indices of the keys of `row`, in key order.
    func keyIndices(forRow row: Int) -> [Int] {
        guard row >= 0, row + 1 < rowStarts.count else { return [] }
        return rowKeys[Int(rowStarts[row]) ..< Int(rowStarts[row + 1])].map { Int($0) }
    }

    /// The first key of `row`, or nil when no key maps to it.
    func firstKeyIndex(forRow row: Int) -> Int? {
        guard row >= 0, row + 1 < rowStarts.count, rowStarts[row] < rowStarts[row + 1] else { return nil }
        return Int(rowKeys[Int(rowStarts[row])])
    }
}
