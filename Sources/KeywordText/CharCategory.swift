/// Character categories for unknown words, as in Sudachi's char.def (itself MeCab's scheme).
/// Raw values are the category numbers stored in the lexicon's unknown-word table.
enum CharCategory: UInt8, Sendable, CaseIterable {
    case `default` = 0, space, kanji, symbol, numeric, alpha, hiragana, katakana, kanjiNumeric, greek, cyrillic

    var bit: UInt16 { 1 << UInt16(rawValue) }

    /// char.def's INVOKE flag: make unknown words even where the lexicon has words.
    var invoke: Bool {
        switch self {
        case .symbol, .numeric, .alpha, .katakana, .greek, .cyrillic: return true
        default: return false
        }
    }

    /// char.def's GROUP flag: make one unknown word of the whole run of this category.
    var group: Bool {
        switch self {
        case .kanji, .kanjiNumeric: return false
        default: return true
        }
    }

    /// char.def's LENGTH: also make unknown words of 1 … length characters.
    var length: Int {
        switch self {
        case .kanji, .hiragana, .katakana: return 2
        default: return 0
        }
    }
}

/// The categories of one scalar, as a bit set over `CharCategory.bit`, plus a flag for
/// characters that cannot begin an unknown word (char.def's NOOOVBOW).
struct CharCategories: Sendable, Equatable {
    var bits: UInt16
    var noOOVBeginning: Bool

    func contains(_ category: CharCategory) -> Bool { bits & category.bit != 0 }

    /// - Complexity: O(1); ranges follow Sudachi's char.def, most frequent first.
    static func of(_ value: UInt32) -> CharCategories {
        switch value {
        case 0x3041 ... 0x309A, 0x309D ... 0x309F:
            return CharCategories(bits: CharCategory.hiragana.bit, noOOVBeginning: false)
        case 0x309B, 0x309C:
            return CharCategories(bits: CharCategory.hiragana.bit | CharCategory.katakana.bit, noOOVBeginning: false)
        case 0x30A1 ... 0x30FA, 0x30FC ... 0x30FF, 0x31F0 ... 0x31FF, 0xFF66 ... 0xFF9F:
            let small: Bool
            switch value {
            case 0x30A1, 0x30A3, 0x30A5, 0x30A7, 0x30A9, 0x30E3, 0x30E5, 0x30E7, 0x30EE, 0x30FC ... 0x30FE: small = true
            default: small = false
            }
            return CharCategories(bits: CharCategory.katakana.bit, noOOVBeginning: small)
        case 0x4E00 ... 0x9FFF:
            switch value {
            case 0x4E00, 0x4E8C, 0x4E09, 0x56DB, 0x4E94, 0x516D, 0x4E03, 0x516B, 0x4E5D, 0x5341, 0x767E, 0x5343,
                 0x4E07, 0x5104, 0x5146:
                return CharCategories(bits: CharCategory.kanji.bit | CharCategory.kanjiNumeric.bit, noOOVBeginning: false)
            default:
                return CharCategories(bits: CharCategory.kanji.bit, noOOVBeginning: false)
            }
        case 0x30 ... 0x39, 0xFF10 ... 0xFF19, 0x2070 ... 0x209F, 0x2150 ... 0x218F:
            return CharCategories(bits: CharCategory.numeric.bit, noOOVBeginning: false)
        case 0x41 ... 0x5A, 0x61 ... 0x7A, 0xC0 ... 0xD6, 0xD8 ... 0xF6, 0xF8 ... 0x236, 0x1E00 ... 0x1EF9, 0xFF21 ... 0xFF3A,
             0xFF41 ... 0xFF5A:
            return CharCategories(bits: CharCategory.alpha.bit, noOOVBeginning: false)
        case 0x20, 0x09 ... 0x0D:
            return CharCategories(bits: CharCategory.space.bit, noOOVBeginning: false)
        case 0x3005:
            return CharCategories(bits: CharCategory.kanji.bit, noOOVBeginning: true)
        case 0x3007:
            return CharCategories(bits: CharCategory.kanji.bit | CharCategory.symbol.bit | CharCategory.kanjiNumeric.bit,
                                  noOOVBeginning: false)
        case 0x2E80 ... 0x2EF3, 0x2F00 ... 0x2FD5, 0x3400 ... 0x4DB5, 0xF900 ... 0xFA2D, 0xFA30 ... 0xFA6A:
            return CharCategories(bits: CharCategory.kanji.bit, noOOVBeginning: false)
        case 0x21 ... 0x2F, 0x3A ... 0x40, 0x5B ... 0x60, 0x7B ... 0x7E, 0xA1 ... 0xBF, 0xD7, 0xF7, 0xFF01 ... 0xFF0F,
             0xFF1A ... 0xFF20, 0xFF3B ... 0xFF40, 0xFF5B ... 0xFF65, 0xFFE0 ... 0xFFEF, 0x2000 ... 0x206F, 0x20A0 ... 0x20CF,
             0x2100 ... 0x214F, 0x2190 ... 0x23FF, 0x2460 ... 0x24FF, 0x2501 ... 0x26FE, 0x2700 ... 0x27BF,
             0x27C0 ... 0x28FF, 0x2900 ... 0x297F, 0x2A00 ... 0x2BFF, 0x3000 ... 0x303F, 0x3200 ... 0x32FE,
             0x3300 ... 0x33FF, 0xFE30 ... 0xFE4F, 0xFE50 ... 0xFE6B:
            return CharCategories(bits: CharCategory.symbol.bit, noOOVBeginning: false)
        case 0x400 ... 0x50F:
            return CharCategories(bits: CharCategory.cyrillic.bit, noOOVBeginning: false)
        case 0x374 ... 0x3FB:
            return CharCategories(bits: CharCategory.greek.bit, noOOVBeginning: false)
        case 0x300 ... 0x36F, 0x1AB0 ... 0x1AFF, 0x1DC0 ... 0x1DFF, 0x20D0 ... 0x20FF, 0xFE20 ... 0xFE2F, 0xFE00 ... 0xFE0F,
             0x1F3FB ... 0x1F3FE, 0x200C, 0x200D:
            return CharCategories(bits: 0x07FF, noOOVBeginning: true)
        default:
            return CharCategories(bits: CharCategory.default.bit, noOOVBeginning: false)
        }
    }
}
