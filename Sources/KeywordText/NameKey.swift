/// The name key: what is left of a product name once the shop's wording around the product is taken away. Two
/// listings of one product (another pack size, a campaign prefix, full-width digits, doubled spaces, ×2) share a
/// key, so a decision on one holds for the other.
///
/// The key is the model's own name normalisation (NFKC, lower case, one dash; quantities, sizes, prices, discounts,
/// symbols and the stop phrases removed, as `normalize` does) with three more removals:
/// - multipliers: ×2, x3, *4, ✕2 (a times sign followed by a number);
/// - decorations in lenticular and other bracket pairs (【まとめ買い】, 〔送料込〕, 《限定》, [訳あり]), unless
///   nothing else is left;
/// - white space, so 国産 豚バラ肉 and 国産豚バラ肉 are one key.
/// An empty key means the name has no content.
extension TextPipeline {
    /// - Complexity: O(n) in the length of `raw`.
    public func nameKey(_ raw: String) -> String {
        let prepared = prepare(raw, clean: true)
        let scalars = prepared.text.scalars
        var kept = prepared.marks.map { $0 == nil }
        NameKey.dropMultipliers(scalars, kept: &kept)
        var outside = kept
        NameKey.dropBracketed(scalars, kept: &outside)
        let key = NameKey.string(scalars, kept: outside)
        return key.isEmpty ? NameKey.string(scalars, kept: kept) : key
    }

    /// Equal for two pipelines whose name keys are equal: the key depends on the stop phrases alone.
    public var nameKeyIdentity: String { "stop-phrases:" + String(stopPhrases.fingerprint, radix: 16) }
}

enum NameKey {
    /// ×, x, *, ✕ and ✖ (after normalisation: full-width ｘ and ＊ are x and *).
    static let timesSigns: Set<UInt32> = [0xD7, 0x78, 0x2A, 0x2715, 0x2716]
    /// Opening brackets and their closing ones: 【】, 〔〕, 〖〗, 《》, 〈〉, [] (full-width ［］ is [] after NFKC).
    static let brackets: [UInt32: UInt32] = [0x3010: 0x3011, 0x3014: 0x3015, 0x3016: 0x3017, 0x300A: 0x300B,
                                             0x3008: 0x3009, 0x5B: 0x5D]

    /// Drops a times sign followed (after spaces) by digits, and those digits: the count of packs, not the product.
    /// A times sign inside a word (mix, box) is a letter and stays.
    static func dropMultipliers(_ scalars: [UInt32], kept: inout [Bool]) {
        var index = 0
        while index < scalars.count {
            defer { index += 1 }
            guard timesSigns.contains(scalars[index]) else { continue }
            if scalars[index] == 0x78, index > 0, Cleaner.isASCIILetter(scalars[index - 1]) { continue }
            var next = index + 1
            while next < scalars.count, scalars[next] == 0x20 { next += 1 }
            guard next < scalars.count, Cleaner.isDigit(scalars[next]) else { continue }
            var end = next
            while end < scalars.count, Cleaner.isDigit(scalars[end]) { end += 1 }
            if end < scalars.count, Cleaner.isASCIILetter(scalars[end]) { continue }
            for offset in index ..< end { kept[offset] = false }
            index = end - 1
        }
    }

    /// Drops what stands between a pair of the brackets, the brackets included. An unclosed bracket drops nothing.
    static func dropBracketed(_ scalars: [UInt32], kept: inout [Bool]) {
        var index = 0
        while index < scalars.count {
            guard let close = brackets[scalars[index]],
                  let end = scalars[(index + 1)...].firstIndex(of: close) else { index += 1; continue }
            for offset in index ... end { kept[offset] = false }
            index = end + 1
        }
    }

    static func string(_ scalars: [UInt32], kept: [Bool]) -> String {
        var result = String.UnicodeScalarView()
        for (index, value) in scalars.enumerated() where kept[index] && value != 0x20 {
            if let scalar = Unicode.Scalar(value) { result.append(scalar) }
        }
        return String(result)
    }
}
