import Platform

/// Phrases removed from product names before tokenizing (農家直送, 訳あり, 送料無料 …), read from a
/// plain text file: one phrase per line, `#` starts a comment, blank lines are ignored. Phrases are
/// normalised like product names, so one line covers its full-width and half-width spellings.
public struct StopPhrases: Sendable {
    /// Normalised phrases by first scalar, longest first.
    let byFirstScalar: [UInt32: [[UInt32]]]
    /// One bit per Basic Multilingual Plane scalar that starts a phrase: most characters skip the
    /// dictionary lookup.
    let firstScalarBits: [UInt64]
    /// Number of distinct phrases.
    public let count: Int
    /// A hash of the normalised phrases, in order: equal for two files that remove the same phrases.
    public let fingerprint: UInt64

    public init(phrases: [String]) {
        var table: [UInt32: [[UInt32]]] = [:]
        var seen = Set<[UInt32]>()
        for phrase in phrases {
            let scalars = Normalizer.normalize(phrase).scalars
            var start = 0
            var end = scalars.count
            while start < end && scalars[start] == 0x20 { start += 1 }
            while end > start && scalars[end - 1] == 0x20 { end -= 1 }
            let trimmed = Array(scalars[start ..< end])
            guard let first = trimmed.first, seen.insert(trimmed).inserted else { continue }
            table[first, default: []].append(trimmed)
        }
        for key in table.keys { table[key]?.sort { $0.count > $1.count } }
        byFirstScalar = table
        var bits = [UInt64](repeating: 0, count: 1024)
        for first in table.keys {
            if first <= 0xFFFF { bits[Int(first >> 6)] |= 1 << UInt64(first & 63) } else { bits[0] |= 1 }
        }
        firstScalarBits = bits
        count = seen.count
        var hash = FNV1a.basis64
        for phrase in seen.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            for scalar in phrase { hash = FNV1a.step(hash, UInt64(scalar)) }
            hash = FNV1a.step(hash, 0x0A)
        }
        fingerprint = hash
    }

    /// Reads a stop-phrase file.
    /// - Throws: `TextFileError` with the line number of invalid UTF-8 or an over-long phrase.
    public static func load(path: String) throws -> StopPhrases {
        let bytes = try ByteReader.readFile(path)
        var phrases: [String] = []
        var lineNumber = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            guard let text = String(validating: line, as: UTF8.self) else {
                throw TextFileError(path: path, location: .line(lineNumber), message: "invalid UTF-8")
            }
            let content = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let phrase = content.trimmingCharacters(in: " \t\r")
            if phrase.isEmpty { continue }
            guard phrase.unicodeScalars.count <= 64 else {
                throw TextFileError(path: path, location: .line(lineNumber), message: "phrase longer than 64 characters")
            }
            phrases.append(phrase)
        }
        return StopPhrases(phrases: phrases)
    }

    /// Length of the longest phrase starting at `index`, or 0.
    func match(_ scalars: [UInt32], at index: Int) -> Int {
        let first = scalars[index]
        if first <= 0xFFFF && firstScalarBits[Int(first >> 6)] & (1 << UInt64(first & 63)) == 0 { return 0 }
        guard let candidates = byFirstScalar[first] else { return 0 }
        for phrase in candidates where phrase.count <= scalars.count - index {
            var offset = 1
            while offset < phrase.count && phrase[offset] == scalars[index + offset] { offset += 1 }
            if offset == phrase.count { return phrase.count }
        }
        return 0
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let drop = Set(set.unicodeScalars)
        var scalars = Substring(self).unicodeScalars[...]
        while let first = scalars.first, drop.contains(first) { scalars.removeFirst() }
        while let last = scalars.last, drop.contains(last) { scalars.removeLast() }
        return String(scalars)
    }
}
