/// Why a part of a product name was not tokenized.
public enum RemovalReason: String, Sendable, Equatable, CaseIterable {
    /// Spaces, brackets, decorations, emoji and other symbols.
    case separator
    /// Quantities and units: 3本, 1kg, 500g×2, 約300g, 10尾入り.
    case quantity
    /// Sizes: lサイズ, 2l, m玉.
    case size
    /// Prices: 1,980円, ¥500.
    case price
    /// Discounts: 10%オフ, 2割引.
    case discount
    /// A bare number.
    case number
    /// A phrase from stop-phrases.txt.
    case stopPhrase
}

/// Marks the parts of a normalised product name that never name an ingredient.
///
/// Works on normalised scalars (after NFKC, lower case and dash unification), one pass per rule:
/// stop phrases, then numbers with their units, prices and discounts, then sizes, then symbols.
enum Cleaner {
    /// - Returns: one reason per scalar, nil where the scalar is kept.
    /// - Complexity: O(n × p) for n scalars and p stop phrases sharing a first character.
    static func mark(_ scalars: [UInt32], stopPhrases: StopPhrases?) -> [RemovalReason?] {
        var marks = [RemovalReason?](repeating: nil, count: scalars.count)
        if let stopPhrases {
            var index = 0
            while index < scalars.count {
                let length = stopPhrases.match(scalars, at: index)
                if length > 0 {
                    for offset in index ..< index + length { marks[offset] = .stopPhrase }
                    index += length
                } else {
                    index += 1
                }
            }
        }
        var index = 0
        while index < scalars.count {
            if marks[index] == nil, isDigit(scalars[index]) || isCurrency(scalars[index]),
               index == 0 || !isASCIILetter(scalars[index - 1]) {
                if let (range, reason) = quantity(scalars, at: index) {
                    for offset in range where marks[offset] == nil || marks[offset] == .separator { marks[offset] = reason }
                    index = range.upperBound
                    continue
                }
            }
            if marks[index] == nil, isASCIILetter(scalars[index]), index == 0 || !isASCIIAlphanumeric(scalars[index - 1]) {
                if let range = size(scalars, at: index) {
                    for offset in range { marks[offset] = .size }
                    index = range.upperBound
                    continue
                }
            }
            if marks[index] == nil, isSeparator(scalars[index]) { marks[index] = .separator }
            index += 1
        }
        return marks
    }

    // MARK: Character classes

    @inline(__always) static func isDigit(_ value: UInt32) -> Bool { (0x30 ... 0x39).contains(value) }
    @inline(__always) static func isASCIILetter(_ value: UInt32) -> Bool { (0x61 ... 0x7A).contains(value) }
    @inline(__always) static func isASCIIAlphanumeric(_ value: UInt32) -> Bool { isDigit(value) || isASCIILetter(value) }
    @inline(__always) static func isCurrency(_ value: UInt32) -> Bool { value == 0xA5 || value == 0x24 }

    /// Spaces, punctuation, brackets, decorations, emoji: everything that is neither a letter,
    /// digit, kana nor ideograph (々, 〆 and ー count as letters).
    @inline(__always)
    static func isSeparator(_ value: UInt32) -> Bool {
        switch value {
        case 0x30 ... 0x39, 0x61 ... 0x7A, 0xC0 ... 0x24F, 0x370 ... 0x3FF, 0x400 ... 0x52F, 0x3041 ... 0x3096, 0x309D ... 0x309F,
             0x30A1 ... 0x30FA, 0x30FC ... 0x30FF, 0x3005, 0x3006, 0x3007, 0x3400 ... 0x4DBF, 0x4E00 ... 0x9FFF, 0xF900 ... 0xFAFF,
             0x20000 ... 0x3FFFF, 0x1E00 ... 0x1EFF, 0x31F0 ... 0x31FF:
            return false
        case 0xD7, 0xF7:
            return true
        default:
            return true
        }
    }

    // MARK: Quantities, prices, discounts

    static let prefixes: [[UInt32]] = ["約", "計", "各", "全", "合計", "総量", "総重量", "内容量", "正味", "重量", "容量", "最大", "およそ",
                                       "1個あたり", "1袋あたり"].map(scalarsOf)
    /// Units after a number, normalised (lower case). Longest match wins.
    static let units: [[UInt32]] = [
        "kg", "g", "mg", "t", "ml", "l", "cc", "dl", "lb", "lbs", "oz", "cm", "mm", "m", "kcal", "p", "pc", "pcs", "pack",
        "set", "入", "入り", "個", "ケ", "ヶ", "コ", "本", "玉", "株", "袋", "枚", "尾", "匹", "杯", "箱", "缶", "瓶", "パック",
        "ケース", "束", "房", "切", "切れ", "粒", "セット", "食", "人前", "人分", "合", "升", "斤", "貫", "羽", "頭", "包", "片",
        "節", "丁", "膳", "皿", "品", "種", "種類", "点", "段", "巻", "号", "kg箱", "キロ", "キロ箱", "グラム", "リットル",
        "ミリ", "年産", "年度産", "年", "か月", "ヶ月", "ケ月", "カ月", "日", "日分", "回分", "週", "時間", "分", "俵", "斗",
        "口", "つ", "ロール", "カット", "ピース", "尾入", "柵", "さく", "ブロック", "串", "本入", "個入", "袋入", "枚入", "本入り", "個入り", "袋入り", "枚入り", "尾入り",
        "玉入", "サイズ", "cmup", "cm以上", "l玉", "m玉", "s玉", "段重", "段詰", "入数", "尾前後", "g前後", "袋セット",
        "個セット", "本セット", "円", "%", "割", "倍", "玉入り", "尾入り", "束入り", "房入り",
    ].map(scalarsOf)
    /// Words that may follow a quantity and go with it.
    static let suffixes: [[UInt32]] = ["入り", "入", "前後", "以上", "以下", "程度", "程", "位", "くらい", "ぐらい", "詰め", "詰",
                                       "x", "×", "*", "増量", "up", "アップ", "分", "相当", "あたり", "当たり", "毎",
                                       "パック", "袋", "箱", "セット", "ケース", "トレー", "入パック", "サイズ", "size",
                                       "混合", "混み", "込み", "玉入り", "入り"].map(scalarsOf)
    static let discountWords: [[UInt32]] = ["オフ", "off", "引き", "引", "割引", "割引き", "還元", "増量", "ポイント", "お得"].map(scalarsOf)

    static func scalarsOf(_ text: String) -> [UInt32] { Normalizer.normalize(text).scalars }

    /// A word list indexed by first scalar, longest words first.
    struct WordTable: Sendable {
        let byFirst: [UInt32: [[UInt32]]]

        init(_ words: [[UInt32]]) {
            var table: [UInt32: [[UInt32]]] = [:]
            for word in words where !word.isEmpty { table[word[0], default: []].append(word) }
            for key in table.keys { table[key]?.sort { $0.count > $1.count } }
            byFirst = table
        }

        /// Length of the longest word at `index`, or 0.
        func longest(in scalars: [UInt32], at index: Int) -> Int {
            guard index < scalars.count, let candidates = byFirst[scalars[index]] else { return 0 }
            for word in candidates where word.count <= scalars.count - index {
                var offset = 1
                while offset < word.count && word[offset] == scalars[index + offset] { offset += 1 }
                if offset == word.count { return word.count }
            }
            return 0
        }
    }

    static let unitTable = WordTable(units)
    static let suffixTable = WordTable(suffixes)
    static let discountTable = WordTable(discountWords)
    static let sizeSuffixTable = WordTable(sizeSuffixes)

    /// Digits with `,` `.` `/` between them; returns the end index.
    static func number(_ scalars: [UInt32], from start: Int) -> Int {
        var index = start
        while index < scalars.count && isDigit(scalars[index]) { index += 1 }
        while index + 1 < scalars.count, [0x2C, 0x2E, 0x2F].contains(scalars[index]), isDigit(scalars[index + 1]) {
            index += 1
            while index < scalars.count && isDigit(scalars[index]) { index += 1 }
        }
        return index
    }

    /// A quantity, price, discount or bare number starting at `start` (a digit or currency sign).
    static func quantity(_ scalars: [UInt32], at start: Int) -> (Range<Int>, RemovalReason)? {
        var begin = start
        var index = start
        var reason = RemovalReason.number
        if isCurrency(scalars[index]) {
            guard index + 1 < scalars.count, isDigit(scalars[index + 1]) else { return nil }
            reason = .price
            index += 1
        }
        // A prefix such as 約 or 内容量: just before the number (a colon may sit between).
        var prefixEnd = begin
        if prefixEnd > 0 && (scalars[prefixEnd - 1] == 0x3A || scalars[prefixEnd - 1] == 0x20) { prefixEnd -= 1 }
        for prefix in prefixes where prefix.count <= prefixEnd && scalars[prefixEnd - prefix.count ..< prefixEnd].elementsEqual(prefix) {
            begin = prefixEnd - prefix.count
            break
        }
        var sawUnit = false
        while true {
            index = number(scalars, from: index)
            // A range: 5~6, 300-400.
            if index + 1 < scalars.count, scalars[index] == 0x7E || scalars[index] == 0x2D, isDigit(scalars[index + 1]) {
                index = number(scalars, from: index + 1)
            }
            let unit = unitTable.longest(in: scalars, at: index)
            let unitEnd = index + unit
            if unit > 0, let last = scalars[index ..< unitEnd].last, isASCIILetter(last),
               unitEnd < scalars.count, isASCIILetter(scalars[unitEnd]) {
                // "5gal": not one of our units; leave the letters alone.
            } else if unit > 0 {
                let single = unit == 1 ? scalars[index] : 0
                if single == 0x5186 { reason = .price }  // 円
                if single == 0x25 || single == 0x5272 {  // % 割
                    let discount = discountTable.longest(in: scalars, at: unitEnd)
                    reason = .discount
                    index = unitEnd + discount
                    return (begin ..< index, reason)
                }
                if reason == .number { reason = .quantity }
                sawUnit = true
                index = unitEnd
            }
            // Suffixes (入り, 前後, ×) and a following multiplier: 500g×2袋.
            var more = true
            var continueNumber = false
            while more {
                more = false
                let suffix = suffixTable.longest(in: scalars, at: index)
                if suffix > 0 {
                    let isTimes = suffix == 1 && (scalars[index] == 0x78 || scalars[index] == 0xD7 || scalars[index] == 0x2A)
                    if isTimes {
                        var next = index + suffix
                        while next < scalars.count && scalars[next] == 0x20 { next += 1 }
                        if next < scalars.count && isDigit(scalars[next]) {
                            index = next
                            continueNumber = true
                            break
                        }
                        if !sawUnit { break }
                        // "×" without a following number: drop it with the quantity.
                    } else if !sawUnit && reason != .price {
                        break
                    }
                    index += suffix
                    more = true
                }
            }
            if continueNumber { reason = reason == .number ? .quantity : reason; continue }
            break
        }
        if index < scalars.count, reason == .number, isASCIILetter(scalars[index]) {
            if let sizeRange = size(scalars, at: index) { return (begin ..< sizeRange.upperBound, .size) }  // 3sサイズ
            return nil  // a model number such as 5a; leave it whole
        }
        return (begin ..< index, reason)
    }

    // MARK: Sizes

    static let sizeWords: Set<[UInt32]> = Set(["s", "m", "l", "ll", "lll", "xl", "xxl", "ss", "sss", "ls", "ms", "lm", "2s", "3s",
                                               "2l", "3l", "4l", "5l", "6l", "7l", "l2", "2xl", "3xl", "la", "ma", "sa"].map(scalarsOf))
    static let sizeSuffixes: [[UInt32]] = ["サイズ", "size", "玉", "寸", "級", "寸法", "型", "サイズ混合", "混合", "サイズ込み"].map(scalarsOf)

    /// A size word (l, 2l, xl …) standing alone or followed by サイズ/玉, starting at a letter.
    static func size(_ scalars: [UInt32], at start: Int) -> Range<Int>? {
        var end = start
        while end < scalars.count && isASCIIAlphanumeric(scalars[end]) { end += 1 }
        guard sizeWords.contains(Array(scalars[start ..< end])) else { return nil }
        let suffix = sizeSuffixTable.longest(in: scalars, at: end)
        return start ..< end + suffix
    }
}
