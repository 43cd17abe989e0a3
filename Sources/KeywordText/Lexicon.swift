import Platform

/// The lexicon (`lexicon.kwlex`): Sudachi-derived words with connection classes, costs, parts of
/// speech and chiVe vector rows, plus the reduced connection-cost matrix and unknown-word costs.
///
/// Layout (little-endian; documented in models/default/TEXT.md, written by tools/text/build_lexicon.py):
/// a 64-byte header, then the key pool (UTF-16 code units), per-key lengths and entry counts, the
/// entry columns, the class columns, the matrix, the part-of-speech names and flags, and the
/// unknown-word definitions. Sections are read into typed arrays with one copy each; the hash
/// table (with prefix marks) is rebuilt into one flat array at load. No per-entry objects.
public final class Lexicon: Sendable {
    static let magic: [UInt8] = Array("KWLEX".utf8) + [0, 0, 0]
    static let version: UInt32 = 1
    static let noRow: UInt16 = 0xFFFF
    static let sameAsSurface: UInt32 = 0xFFFF_FFFF
    /// Entry class of a word that only supplies a vector row (never placed in the lattice).
    static let rowOnlyClass: UInt16 = 0xFFFF

    /// One unknown-word definition from Sudachi's unk.def.
    struct UnknownWord: Sendable {
        var category: CharCategory
        var paramClass: UInt16
        var cost: Int16
    }

    // Keys: UTF-16 code units in `pool`, in key order.
    let pool: [UInt16]
    let keyOffset: [UInt32]
    let keyLength: [UInt8]
    /// `entryStart[k] ..< entryStart[k + 1]` are key k's entries.
    let entryStart: [UInt32]
    /// Open addressing, linear probing, one slot per distinct hash of a key or of a proper prefix of a
    /// lattice key: bits 32–63 hold the high half of the mixed hash, bit 31 says "a lattice key
    /// continues past this text", bit 30 "a key ends here", then for that key: bits 28–29 its number
    /// of lattice entries, bits 22–27 its length (capped at 63), bits 0–21 its first entry; 0 is empty.
    let table: [UInt64]
    // Entries
    let entryClass: [UInt16]
    let entryCost: [Int16]
    let entryRow: [UInt16]
    let entryNormalized: [UInt32]
    /// Class (bits 0–15), cost (16–31) and row (32–47) of each entry in one word: one load per entry.
    let entryPacked: [UInt64]
    // Parameter classes: (left connection class, right connection class, part of speech)
    let classLeft: [UInt16]
    let classRight: [UInt16]
    let classPOS: [UInt16]
    let leftClassCount: Int
    /// `matrix[previousRightClass * leftClassCount + nextLeftClass]`.
    let matrix: [Int16]
    let partsOfSpeech: [String]
    let posIsContent: [Bool]
    let unknownWords: [UnknownWord]
    /// `unknownWords` by `CharCategory.rawValue`.
    let unknownByCategory: [[UnknownWord]]

    /// Number of keys (surfaces and row-only words).
    public var keyCount: Int { keyLength.count }
    /// Number of entries.
    public var entryCount: Int { entryClass.count }

    /// Loads a lexicon file.
    /// - Throws: `TextFileError` naming the file and the byte offset of the problem.
    /// - Complexity: O(file size): one read, one copy per section, one pass to hash the keys.
    public static func load(path: String) throws -> Lexicon {
        try Lexicon(path: path, bytes: ByteReader.readFile(path))
    }

    private init(path: String, bytes: [UInt8]) throws {
        var reader = ByteReader(path: path, bytes: bytes)
        guard !bytes.isEmpty else { throw reader.error("empty file", at: 0) }
        let magic = try reader.bytes(8, "magic")
        guard magic == Lexicon.magic else { throw reader.error("bad magic: not a kwsuggest lexicon (KWLEX)", at: 0) }
        let version = try reader.uint32("version")
        guard version == Lexicon.version else {
            throw reader.error("unsupported lexicon version \(version) (expected \(Lexicon.version))", at: 8)
        }
        let keyCount = Int(try reader.uint32("key count"))
        let entryCount = Int(try reader.uint32("entry count"))
        let poolUnits = Int(try reader.uint32("pool size"))
        let classCount = Int(try reader.uint32("class count"))
        let leftClasses = Int(try reader.uint16("left class count"))
        let rightClasses = Int(try reader.uint16("right class count"))
        let posCount = Int(try reader.uint32("part-of-speech count"))
        let posTextBytes = Int(try reader.uint32("part-of-speech text size"))
        let unknownCount = Int(try reader.uint32("unknown-word count"))
        try reader.skip(20, "header padding")
        guard leftClasses > 0, rightClasses > 0, classCount < Int(Lexicon.rowOnlyClass), entryCount < 1 << 22 else {
            throw reader.error("inconsistent header counts", at: 12)
        }

        pool = try reader.array(UInt16.self, count: poolUnits, "key pool")
        keyLength = try reader.array(UInt8.self, count: keyCount, "key lengths")
        let countsOffset = reader.offset
        let entryCounts = try reader.array(UInt8.self, count: keyCount, "entry counts")
        var offsets = [UInt32](repeating: 0, count: keyCount)
        var starts = [UInt32](repeating: 0, count: keyCount + 1)
        var poolPosition = 0
        var entryPosition = 0
        for key in 0 ..< keyCount {
            offsets[key] = UInt32(poolPosition)
            starts[key] = UInt32(entryPosition)
            poolPosition += Int(keyLength[key])
            entryPosition += Int(entryCounts[key])
        }
        starts[keyCount] = UInt32(entryPosition)
        guard poolPosition == poolUnits else { throw reader.error("key lengths do not add up to the pool size", at: countsOffset - keyCount) }
        guard entryPosition == entryCount else { throw reader.error("entry counts do not add up to the entry count", at: countsOffset) }
        keyOffset = offsets
        entryStart = starts

        let classOffset = reader.offset
        entryClass = try reader.array(UInt16.self, count: entryCount, "entry classes")
        if let bad = entryClass.firstIndex(where: { $0 != Lexicon.rowOnlyClass && Int($0) >= classCount }) {
            throw reader.error("entry \(bad) has class \(entryClass[bad]) of \(classCount)", at: classOffset + 2 * bad)
        }
        entryCost = try reader.array(Int16.self, count: entryCount, "entry costs")
        entryRow = try reader.array(UInt16.self, count: entryCount, "entry rows")
        let normalizedOffset = reader.offset
        entryNormalized = try reader.array(UInt32.self, count: entryCount, "entry normalised forms")
        if let bad = entryNormalized.firstIndex(where: { $0 != Lexicon.sameAsSurface && Int($0) >= keyCount }) {
            throw reader.error("entry \(bad) names normalised key \(entryNormalized[bad]) of \(keyCount)", at: normalizedOffset + 4 * bad)
        }
        var packed = [UInt64](repeating: 0, count: entryCount)
        for entry in 0 ..< entryCount {
            packed[entry] = UInt64(entryClass[entry]) | UInt64(UInt16(bitPattern: entryCost[entry])) << 16
                | UInt64(entryRow[entry]) << 32
        }
        entryPacked = packed
        let leftOffset = reader.offset
        classLeft = try reader.array(UInt16.self, count: classCount, "class left ids")
        classRight = try reader.array(UInt16.self, count: classCount, "class right ids")
        classPOS = try reader.array(UInt16.self, count: classCount, "class parts of speech")
        for index in 0 ..< classCount where Int(classLeft[index]) >= leftClasses || Int(classRight[index]) >= rightClasses
            || Int(classPOS[index]) >= posCount {
            throw reader.error("class \(index) is out of range", at: leftOffset + 2 * index)
        }
        leftClassCount = leftClasses
        matrix = try reader.array(Int16.self, count: leftClasses * rightClasses, "connection matrix")
        let posOffset = reader.offset
        let posText = try reader.bytes(posTextBytes, "part-of-speech names")
        guard let posString = String(validating: posText, as: UTF8.self) else {
            throw reader.error("part-of-speech names are not valid UTF-8", at: posOffset)
        }
        let names = posString.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        guard names.count == posCount else {
            throw reader.error("expected \(posCount) part-of-speech names, found \(names.count)", at: posOffset)
        }
        partsOfSpeech = names
        posIsContent = try reader.bytes(posCount, "part-of-speech flags").map { $0 & 1 == 1 }
        var unknown: [UnknownWord] = []
        for _ in 0 ..< unknownCount {
            let at = reader.offset
            let category = try reader.bytes(1, "unknown-word category")[0]
            let paramClass = try reader.uint16("unknown-word class")
            let cost = Int16(bitPattern: try reader.uint16("unknown-word cost"))
            guard let known = CharCategory(rawValue: category), Int(paramClass) < classCount else {
                throw reader.error("bad unknown-word definition", at: at)
            }
            unknown.append(UnknownWord(category: known, paramClass: paramClass, cost: cost))
        }
        unknownWords = unknown
        var byCategory = [[UnknownWord]](repeating: [], count: CharCategory.allCases.count)
        for word in unknown { byCategory[Int(word.category.rawValue)].append(word) }
        unknownByCategory = byCategory
        guard reader.offset == bytes.count else {
            throw reader.error("\(bytes.count - reader.offset) unexpected bytes after the last section")
        }

        // Hash table of keys and of proper prefixes of lattice keys. Items are collected first and
        // inserted grouped by table region (256 regions), so the random writes stay in cache.
        var itemHash: [UInt64] = []
        var itemValue: [UInt64] = []
        itemHash.reserveCapacity(keyCount * 2)
        itemValue.reserveCapacity(keyCount * 2)
        // Keys are sorted, so a key shares its leading units with the previous lattice key: those
        // prefixes are listed already.
        var previousStart = 0
        var previousLength = 0
        for key in 0 ..< keyCount {
            let start = Int(offsets[key])
            let length = Int(keyLength[key])
            let lattice = entryCounts[key] > 0 && entryClass[Int(starts[key])] != Lexicon.rowOnlyClass
            var shared = 0
            if lattice {
                let limit = min(length, previousLength)
                while shared < limit && pool[start + shared] == pool[previousStart + shared] { shared += 1 }
                shared = min(shared, max(previousLength - 1, 0))  // the previous key listed only its proper prefixes
            }
            var hash = Lexicon.fnvBasis
            for index in 0 ..< length {
                hash = Lexicon.fnvStep(hash, pool[start + index])
                if lattice && index >= shared && index < length - 1 {
                    itemHash.append(Lexicon.mix(hash))
                    itemValue.append(Lexicon.prefixBit)
                }
            }
            var latticeEntries = 0
            for entry in Int(starts[key]) ..< Int(starts[key + 1]) where entryClass[entry] != Lexicon.rowOnlyClass {
                latticeEntries += 1
            }
            itemHash.append(Lexicon.mix(hash))
            itemValue.append(Lexicon.keyBit | UInt64(min(latticeEntries, 3)) << 28 | Lexicon.lengthField(length) | UInt64(starts[key]))
            if lattice {
                previousStart = start
                previousLength = length
            }
        }
        var table = [UInt64](repeating: 0, count: itemHash.count * 3 / 2 + 1)
        // Region = top 8 bits of the slot's source bits, so regions follow table order.
        var regionStart = [Int](repeating: 0, count: 257)
        for hash in itemHash { regionStart[Int((hash >> 24) & 0xFF) + 1] += 1 }
        for region in 0 ..< 256 { regionStart[region + 1] += regionStart[region] }
        var sortedHash = [UInt64](repeating: 0, count: itemHash.count)
        var sortedValue = [UInt64](repeating: 0, count: itemHash.count)
        var fill = regionStart
        for (item, hash) in itemHash.enumerated() {
            let region = Int((hash >> 24) & 0xFF)
            sortedHash[fill[region]] = hash
            sortedValue[fill[region]] = itemValue[item]
            fill[region] += 1
        }
        for item in 0 ..< sortedHash.count {
            let value = sortedValue[item]
            if value == Lexicon.prefixBit {
                Lexicon.markPrefix(sortedHash[item], in: &table)
            } else {
                Lexicon.insertKey(value & ~Lexicon.keyBit, sortedHash[item], in: &table)
            }
        }
        self.table = table
    }

    static let prefixBit: UInt64 = 1 << 31
    static let keyBit: UInt64 = 1 << 30
    static let entryMask: UInt64 = (1 << 22) - 1
    static let lengthMask: UInt64 = 63 << 22

    @inline(__always)
    static func lengthField(_ length: Int) -> UInt64 { UInt64(min(length, 63)) << 22 }

    @inline(__always)
    static func slot(_ mixed: UInt64, _ slots: Int) -> Int {
        Int(((mixed & 0xFFFF_FFFF) &* UInt64(slots)) >> 32)
    }

    private static func markPrefix(_ mixed: UInt64, in table: inout [UInt64]) {
        let fingerprint = mixed & 0xFFFF_FFFF_0000_0000
        var slot = slot(mixed, table.count)
        while table[slot] != 0 {
            if table[slot] & 0xFFFF_FFFF_0000_0000 == fingerprint {
                table[slot] |= prefixBit
                return
            }
            slot = slot + 1 == table.count ? 0 : slot + 1
        }
        table[slot] = fingerprint | prefixBit
    }

    private static func insertKey(_ value: UInt64, _ mixed: UInt64, in table: inout [UInt64]) {
        let fingerprint = mixed & 0xFFFF_FFFF_0000_0000
        var slot = slot(mixed, table.count)
        while table[slot] != 0 {
            if table[slot] & 0xFFFF_FFFF_0000_0000 == fingerprint && table[slot] & keyBit == 0 {
                table[slot] |= keyBit | value
                return
            }
            slot = slot + 1 == table.count ? 0 : slot + 1
        }
        table[slot] = fingerprint | keyBit | value
    }

    /// MurmurHash3's 64-bit finaliser: FNV-1a alone leaves the high bits of short keys poorly mixed.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var hash = value
        hash ^= hash >> 33
        hash &*= 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash &*= 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return hash
    }

    // MARK: Lookup

    /// FNV-1a, 64-bit, one step per UTF-16 code unit (keys are Basic Multilingual Plane text).
    @inline(__always)
    static func fnvStep(_ hash: UInt64, _ unit: UInt16) -> UInt64 {
        FNV1a.step(hash, UInt64(unit))
    }
    static let fnvBasis = FNV1a.basis64

    /// Looks up `text[start ..< end]` (scalars, all ≤ U+FFFF) given its FNV-1a hash: the first
    /// entry of the key spelled by it (-1 if none), how many of its entries go in the lattice, and
    /// whether some lattice key is longer and starts with it. Matching is by hash fingerprint and
    /// length: a wrong match needs a ~50-bit hash collision (`key(_:)` also compares the characters).
    @inline(__always)
    func probe(hash: UInt64, text: UnsafeBufferPointer<UInt32>, start: Int, end: Int)
        -> (entry: Int, latticeEntries: Int, extends: Bool) {
        let mixed = Lexicon.mix(hash)
        let fingerprint = mixed & 0xFFFF_FFFF_0000_0000
        let expected = Lexicon.lengthField(end - start)
        var slot = Lexicon.slot(mixed, table.count)
        var entry = -1
        var latticeEntries = 0
        var extends = false
        while true {
            let stored = table[slot]
            if stored == 0 { return (entry, latticeEntries, extends) }
            if stored & 0xFFFF_FFFF_0000_0000 == fingerprint {
                if stored & Lexicon.prefixBit != 0 { extends = true }
                if entry < 0 && stored & Lexicon.keyBit != 0 && stored & Lexicon.lengthMask == expected {
                    entry = Int(stored & Lexicon.entryMask)
                    latticeEntries = Int((stored >> 28) & 3)
                }
            }
            slot += 1
            if slot == table.count { slot = 0 }
        }
    }

    /// The key whose entries start at `entry` (binary search).
    func key(startingAt entry: Int) -> Int? {
        var low = 0
        var high = keyCount
        while low < high {
            let middle = (low + high) / 2
            if Int(entryStart[middle]) < entry { low = middle + 1 } else { high = middle }
        }
        return low < keyCount && Int(entryStart[low]) == entry ? low : nil
    }

    /// The key equal to `text[start ..< end]`, given its FNV-1a hash.
    @inline(__always)
    func key(hash: UInt64, text: UnsafeBufferPointer<UInt32>, start: Int, end: Int) -> Int? {
        let found = probe(hash: hash, text: text, start: start, end: end).entry
        return found < 0 ? nil : key(startingAt: found)
    }

    /// Whether key `key` is spelled by `scalars` exactly.
    func keyMatches(_ key: Int, _ scalars: ArraySlice<UInt32>) -> Bool {
        guard Int(keyLength[key]) == scalars.count else { return false }
        let offset = Int(keyOffset[key])
        return zip(pool[offset ..< offset + scalars.count], scalars).allSatisfy { UInt32($0) == $1 }
    }

    /// The key spelled by `scalars`, if any (characters compared).
    func key(_ scalars: ArraySlice<UInt32>) -> Int? {
        guard !scalars.isEmpty, scalars.count <= 255 else { return nil }
        var hash = Lexicon.fnvBasis
        for scalar in scalars {
            guard scalar <= 0xFFFF else { return nil }
            hash = Lexicon.fnvStep(hash, UInt16(scalar))
        }
        guard let found = scalars.withUnsafeBufferPointer({ key(hash: hash, text: $0, start: 0, end: $0.count) }),
              keyMatches(found, scalars) else { return nil }
        return found
    }

    func string(key: Int) -> String {
        let start = Int(keyOffset[key])
        return TextPipeline.string(units: pool[start ..< start + Int(keyLength[key])])
    }

    /// The first vector row among a key's entries.
    func row(key: Int) -> Int? {
        for entry in Int(entryStart[key]) ..< Int(entryStart[key + 1]) where entryRow[entry] != Lexicon.noRow {
            return Int(entryRow[entry])
        }
        return nil
    }

    @inline(__always)
    func connect(_ previousRight: UInt16, _ nextLeft: UInt16) -> Int32 {
        Int32(matrix[Int(previousRight) * leftClassCount + Int(nextLeft)])
    }
}
