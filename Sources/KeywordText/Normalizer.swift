import Foundation

/// Text after normalisation: Unicode scalar values, each with the offset (in Unicode scalars) of
/// the original scalar it came from.
struct ScalarText: Sendable {
    var scalars: [UInt32] = []
    /// `origin[i]` is the original scalar offset that produced `scalars[i]`.
    var origin: [Int32] = []
    /// Number of Unicode scalars in the original string.
    var originalCount = 0

    mutating func append(_ scalar: UInt32, from offset: Int) {
        scalars.append(scalar)
        origin.append(Int32(truncatingIfNeeded: offset))
    }
}

/// NFKC, lower case, and one spelling for long-vowel marks, dashes and tildes.
///
/// Fast paths cover ASCII, kana, CJK ideographs, full-width ASCII and half-width katakana (with
/// their voiced-sound marks); any other scalar goes through Foundation's NFKC on its own.
enum Normalizer {
    static let longVowel: UInt32 = 0x30FC

    /// - Complexity: O(n) in the number of scalars.
    static func normalize(_ text: String) -> ScalarText {
        var result = ScalarText()
        result.scalars.reserveCapacity(text.utf8.count)
        result.origin.reserveCapacity(text.utf8.count)
        var offset = 0
        for scalar in text.unicodeScalars {
            append(scalar.value, offset: offset, to: &result)
            offset += 1
        }
        result.originalCount = offset
        return result
    }

    @inline(__always)
    private static func append(_ value: UInt32, offset: Int, to result: inout ScalarText) {
        switch value {
        case 0x41 ... 0x5A:
            result.append(value + 0x20, from: offset)
        case 0x20 ... 0x7E:
            unify(value, offset: offset, into: &result)
        case 0 ..< 0x20, 0x7F ... 0x9F:
            result.append(0x20, from: offset)
        case 0x3041 ... 0x3096, 0x309D, 0x309E, 0x30A1 ... 0x30FA, 0x30FD, 0x30FE, 0x3400 ... 0x4DBF, 0x4E00 ... 0x9FFF,
             0x3001 ... 0x3035, 0x3037, 0x303B ... 0x303F, 0x30FB, 0xD7, 0xF7, 0x203B, 0x2190 ... 0x21FF, 0x25A0 ... 0x26FF:
            unify(value, offset: offset, into: &result)  // NFKC-stable, no case
        case 0x3000:
            result.append(0x20, from: offset)
        case 0xFF01 ... 0xFF5E:
            let ascii = value - 0xFEE0
            unify((0x41 ... 0x5A).contains(ascii) ? ascii + 0x20 : ascii, offset: offset, into: &result)
        case 0xFF61 ... 0xFF9F:
            let mapped = halfWidthKana[Int(value - 0xFF61)]
            if mapped == 0x3099 || mapped == 0x309A {
                combine(mapped, offset: offset, into: &result)
            } else {
                unify(mapped, offset: offset, into: &result)
            }
        case 0x3099, 0x309A:
            combine(value, offset: offset, into: &result)
        case 0x309B, 0x309C:
            combine(value - 2, offset: offset, into: &result)
        case 0x200B ... 0x200D, 0x2060, 0xFEFF:
            break  // zero-width characters vanish
        default:
            guard let scalar = Unicode.Scalar(value) else { return }
            let mapped = String(scalar).precomposedStringWithCompatibilityMapping.lowercased()
            for piece in mapped.unicodeScalars {
                if piece.value == value {
                    unify(value, offset: offset, into: &result)
                } else {
                    append(piece.value, offset: offset, to: &result)
                }
            }
        }
    }

    /// One form for dashes, long-vowel marks and tildes: ー after kana (a run collapses to one),
    /// otherwise `-` and `~`.
    @inline(__always)
    private static func unify(_ value: UInt32, offset: Int, into result: inout ScalarText) {
        let isDash: Bool
        let isTilde: Bool
        switch value {
        case 0x2D, 0x2010 ... 0x2015, 0x2212, 0x2500, 0x2501, 0x30FC, 0xFE63, 0xFF70: isDash = true; isTilde = false
        case 0x7E, 0x301C, 0x3030, 0x223C, 0x223E, 0x2053, 0xFF5E: isDash = false; isTilde = true
        default: isDash = false; isTilde = false
        }
        guard isDash || isTilde else {
            result.append(value, from: offset)
            return
        }
        let previous = result.scalars.last ?? 0
        if previous == longVowel { return }
        if isDash && isKana(previous) {
            result.append(longVowel, from: offset)
        } else if value == 0x30FC && previous != 0 && !isKana(previous) && !isASCIISeparator(previous) {
            result.append(longVowel, from: offset)  // ー after a kanji or letter is kept as written
        } else {
            result.append(isDash ? 0x2D : 0x7E, from: offset)
        }
    }

    @inline(__always)
    static func isKana(_ value: UInt32) -> Bool {
        (0x3041 ... 0x3096).contains(value) || (0x30A1 ... 0x30FA).contains(value)
    }

    @inline(__always)
    private static func isASCIISeparator(_ value: UInt32) -> Bool {
        value < 0x80 && !((0x30 ... 0x39).contains(value) || (0x61 ... 0x7A).contains(value))
    }

    /// Composes a voiced (U+3099) or semi-voiced (U+309A) sound mark with the kana before it.
    private static func combine(_ mark: UInt32, offset: Int, into result: inout ScalarText) {
        if let previous = result.scalars.last, let composed = compose(previous, mark) {
            result.scalars[result.scalars.count - 1] = composed
            return
        }
        result.append(mark, from: offset)
    }

    static func compose(_ base: UInt32, _ mark: UInt32) -> UInt32? {
        let isKatakana = base >= 0x30A1
        let hiragana = isKatakana ? base &- 0x60 : base
        if mark == 0x3099 {
            switch hiragana {
            case 0x304B ... 0x3062 where hiragana % 2 == 1, 0x3064 ... 0x3069 where hiragana % 2 == 0:
                return base + 1  // か…ぢ, つ…ど
            case 0x306F ... 0x307D where (hiragana - 0x306F) % 3 == 0:
                return base + 1  // は ひ ふ へ ほ
            case 0x3046:
                return isKatakana ? 0x30F4 : 0x3094  // ヴ, ゔ
            default:
                if isKatakana, (0x30EF ... 0x30F2).contains(base) { return base + 8 }  // ヷ ヸ ヹ ヺ
                if base == 0x309D || base == 0x30FD { return base + 1 }  // ゞ ヾ
                return nil
            }
        }
        if mark == 0x309A, (0x306F ... 0x307D).contains(hiragana), (hiragana - 0x306F) % 3 == 0 {
            return base + 2
        }
        return nil
    }

    /// NFKC of U+FF61 ... U+FF9F.
    static let halfWidthKana: [UInt32] = [
        0x3002, 0x300C, 0x300D, 0x3001, 0x30FB, 0x30F2, 0x30A1, 0x30A3, 0x30A5, 0x30A7, 0x30A9, 0x30E3, 0x30E5,
        0x30E7, 0x30C3, 0x30FC, 0x30A2, 0x30A4, 0x30A6, 0x30A8, 0x30AA, 0x30AB, 0x30AD, 0x30AF, 0x30B1, 0x30B3,
        0x30B5, 0x30B7, 0x30B9, 0x30BB, 0x30BD, 0x30BF, 0x30C1, 0x30C4, 0x30C6, 0x30C8, 0x30CA, 0x30CB, 0x30CC,
        0x30CD, 0x30CE, 0x30CF, 0x30D2, 0x30D5, 0x30D8, 0x30DB, 0x30DE, 0x30DF, 0x30E0, 0x30E1, 0x30E2, 0x30E4,
        0x30E6, 0x30E8, 0x30E9, 0x30EA, 0x30EB, 0x30EC, 0x30ED, 0x30EF, 0x30F3, 0x3099, 0x309A,
    ]
}
