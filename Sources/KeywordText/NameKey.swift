/// The name key: what is left of a product name once the shop's wording around the product is taken away. Two
/// listings of one product (another pack size, a campaign prefix, full-width digits, doubled spaces, ×2) share a
/// key, so a decision on one holds for the other.
///
/// The key is the model's own name normalisation (NFKC, lower case, one dash; quantities, sizes, prices, discounts,
/// symbols, brackets and the stop phrases removed, as `normalize` does, so 【まとめ買い】 and 【送料無料】 go) with two
/// more removals:
/// - multipliers: ×2, x3, *4, ✕2 (a times sign followed by a number);
/// - white space, so 国産 豚バラ肉 and 国産豚バラ肉 are one key.
/// What brackets hold stays: shops put the product itself in brackets as often as a campaign
/// (大阪産・〈ムラサキウニ〉), so dropping it would make one key of different products.
/// An empty key means the name has no content.
extension TextPipeline {
    /// - Complexity: O(n) in the length of `raw`.
    public func nameKey(_ raw: String) -> String {
        let prepared = prepare(raw, clean: true)
        let scalars = prepared.text.scalars
        var kept = prepared.marks.map { $0 == nil }
        NameKey.dropMultipliers(scalars, kept: &kept)
        return NameKey.string(scalars, kept: kept)
    }

    /// Equal for two pipelines whose name keys are equal: the key depends on the stop phrases alone.
    public var nameKeyIdentity: String { "stop-phrases:" + String(stopPhrases.fingerprint, radix: 16) }
}

enum NameKey {
    /// ×, x, *, ✕ and ✖ (after normalisation: full-width ｘ and ＊ are x and *).
    static let timesSigns: Set<UInt32> = [0xD7, 0x78, 0x2A, 0x2715, 0x2716]

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

    static func string(_ scalars: [UInt32], kept: [Bool]) -> String {
        var result = String.UnicodeScalarView()
        for (index, value) in scalars.enumerated() where kept[index] && value != 0x20 {
            if let scalar = Unicode.Scalar(value) { result.append(scalar) }
        }
        return String(result)
    }
}
