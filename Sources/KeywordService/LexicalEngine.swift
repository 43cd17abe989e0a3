// A model-free baseline engine: ranks keywords by plain string evidence in the product name.
import Foundation
import Synchronization

/// Suggests keywords from `<model dir>/keywords.txt` (plus the overlay) without a trained model.
///
/// Ranking: keywords contained in the NFKC-normalised name come first, longest first (score 0.5–1.0);
/// the rest are ranked by character-bigram overlap with the name (Dice coefficient, score 0–0.5).
/// It is the fallback `kwsuggest serve` uses when no trained model is wired in, and a baseline to compare with.
public final class LexicalEngine: SuggestionEngine {
    private struct Entry: Sendable {
        var keyword: String
        /// NFKC-normalised Unicode scalars.
        var scalars: [UInt32]
        /// Distinct character bigrams, each packed as two scalars in one integer.
        var bigrams: [UInt64]
    }

    /// Which entries contain each bigram (and, for one-character keywords, each character).
    private struct Postings: Sendable {
        var byBigram: [UInt64: [Int32]] = [:]
        var byCharacter: [UInt32: [Int32]] = [:]
    }

    private struct State: Sendable {
        var entries: [Entry]
        var postings: Postings
        var snapshot: KeywordListSnapshot
        var overlay: KeywordOverlay
    }

    public let modelVersion: String
    private let base: [String]
    public let store: any KeywordStore
    private let state: Mutex<State>
    private let updates = Mutex(())

    /// Reads `keywords.txt` from `modelDirectory` and the overlay at `overlayPath`
    /// (default `<model dir>/keywords.overlay.json`).
    public convenience init(modelDirectory: String, overlayPath: String? = nil) throws {
        let path = (modelDirectory as NSString).appendingPathComponent("keywords.txt")
        guard FileManager.default.fileExists(atPath: path) else {
            throw KeywordOverlayError(path: path, message: "no keyword list (expected one keyword per line)")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let text = String(data: data, encoding: .utf8) else {
            let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
            let bad = lines.firstIndex { String(data: Data($0), encoding: .utf8) == nil } ?? 0
            throw KeywordOverlayError(path: path, message: "line \(bad + 1) is not valid UTF-8")
        }
        let keywords = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        try self.init(keywords: keywords, version: "lexical-\(keywords.count)",
                      store: FileKeywordStore(overlayPath: overlayPath ?? KeywordOverlayStore.defaultPath(modelDirectory: modelDirectory)))
    }

    public init(keywords: [String], version: String, store: any KeywordStore) throws {
        modelVersion = version
        base = keywords
        self.store = store
        let overlay = try store.loadOverlay()
        state = Mutex(Self.makeState(base: keywords, overlay: overlay))
    }

    private static func makeState(base: [String], overlay: KeywordOverlay) -> State {
        let removed = Set(overlay.removed)
        var seen = Set<String>()
        var keywords: [String] = []
        for keyword in base + overlay.added where !removed.contains(keyword) && seen.insert(keyword).inserted {
            keywords.append(keyword)
        }
        let entries = keywords.map { keyword -> Entry in
            let scalars = normalize(keyword)
            return Entry(keyword: keyword, scalars: scalars, bigrams: Array(bigrams(scalars)))
        }
        var hasher = FNV1a()
        for keyword in keywords { hasher.add(keyword) }
        var postings = Postings()
        for (index, entry) in entries.enumerated() {
            if entry.scalars.count == 1 {
                postings.byCharacter[entry.scalars[0], default: []].append(Int32(index))
            } else {
                for bigram in entry.bigrams { postings.byBigram[bigram, default: []].append(Int32(index)) }
            }
        }
        return State(entries: entries, postings: postings,
                     snapshot: KeywordListSnapshot(keywords: keywords, version: hasher.hex), overlay: overlay)
    }

    /// NFKC, lower-cased (for Latin letters), without white space, as Unicode scalar values.
    static func normalize(_ text: String) -> [UInt32] {
        text.precomposedStringWithCompatibilityMapping.lowercased().unicodeScalars
            .filter { !$0.properties.isWhitespace }.map(\.value)
    }

    /// Distinct adjacent pairs; a single character counts as one "pair" with itself.
    static func bigrams(_ scalars: [UInt32]) -> Set<UInt64> {
        guard scalars.count > 1 else { return Set(scalars.map { UInt64($0) << 32 | UInt64($0) }) }
        var result = Set<UInt64>(minimumCapacity: scalars.count)
        for index in 0..<(scalars.count - 1) { result.insert(UInt64(scalars[index]) << 32 | UInt64(scalars[index + 1])) }
        return result
    }

    static func contains(_ haystack: [UInt32], _ needle: [UInt32]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        outer: for start in 0...(haystack.count - needle.count) {
            for offset in 0..<needle.count where haystack[start + offset] != needle[offset] { continue outer }
            return true
        }
        return false
    }

    /// - Complexity: O(n + P) for a name of n characters and P postings of its bigrams (keywords sharing
    ///   no bigram with the name are never touched).
    public func suggest(_ name: String, k: Int, explain: Bool) -> SuggestionResult {
        let (entries, postings) = state.withLock { ($0.entries, $0.postings) }
        let nameScalars = Self.normalize(name)
        let nameBigrams = Self.bigrams(nameScalars)
        let nameLength = max(1, nameScalars.count)
        // Shared-bigram counts of the keywords the name touches.
        var shared: [Int32: Int] = [:]
        for bigram in nameBigrams {
            guard let list = postings.byBigram[bigram] else { continue }
            for index in list { shared[index, default: 0] += 1 }
        }
        var scored: [(index: Int, score: Float)] = []
        scored.reserveCapacity(shared.count + 4)
        for (index, count) in shared {
            let entry = entries[Int(index)]
            let score: Float
            if count == entry.bigrams.count && Self.contains(nameScalars, entry.scalars) {
                score = 0.5 + 0.5 * Float(min(entry.scalars.count, nameLength)) / Float(nameLength)
            } else {
                score = 0.5 * Float(2 * count) / Float(entry.bigrams.count + nameBigrams.count)
            }
            scored.append((Int(index), score))
        }
        // One character has no bigram: it either occurs in the name or gives no evidence.
        for scalar in Set(nameScalars) {
            for index in postings.byCharacter[scalar] ?? [] {
                scored.append((Int(index), 0.5 + 0.5 / Float(nameLength)))
            }
        }
        scored.sort { $0.score != $1.score ? $0.score > $1.score : entries[$0.index].keyword < entries[$1.index].keyword }
        let tokens = explain ? name.split(whereSeparator: \.isWhitespace).map(String.init) : []
        let suggestions = scored.prefix(max(0, k)).map { item -> Suggestion in
            let entry = entries[item.index]
            var suggestion = Suggestion(keyword: entry.keyword, score: item.score)
            if explain {
                suggestion.weights = Self.weights(tokens: tokens, keyword: entry)
            }
            return suggestion
        }
        return SuggestionResult(name: name, tokens: explain ? tokens : nil, suggestions: suggestions)
    }

    /// Each whitespace token's share of the keyword's bigrams it contains (normalised to sum 1 when any match).
    private static func weights(tokens: [String], keyword: Entry) -> [TokenWeight] {
        let raw = tokens.map { token -> Float in
            let scalars = normalize(token)
            if contains(scalars, keyword.scalars) { return 1 }
            let own = bigrams(scalars)
            return Float(keyword.bigrams.filter { own.contains($0) }.count)
        }
        let total = raw.reduce(0, +)
        return zip(tokens, raw).map { TokenWeight(token: $0, weight: total > 0 ? $1 / total : 0) }
    }

    public func keywordList() -> KeywordListSnapshot {
        state.withLock { $0.snapshot }
    }

    public func updateKeywords(_ change: KeywordChange) throws -> KeywordListSnapshot {
        try updates.withLock { _ in
            let base = self.base
            let overlay = try store.apply(change.cleaned) { (overlay: KeywordOverlay) throws(KeywordStoreError) in
                guard let expected = change.expectedVersion else { return }
                let version = Self.makeState(base: base, overlay: overlay).snapshot.version
                guard version == expected else { throw .versionMismatch(current: version) }
            }
            let next = Self.makeState(base: base, overlay: overlay)
            state.withLock { $0 = next }
            return next.snapshot
        }
    }

    public func reloadKeywords() throws -> KeywordListSnapshot {
        try updates.withLock { _ in
            let next = Self.makeState(base: base, overlay: try store.loadOverlay())
            state.withLock { $0 = next }
            return next.snapshot
        }
    }
}

/// 64-bit FNV-1a over keywords (with a separator), for a list version that changes when the list does.
struct FNV1a {
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ text: String) {
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        hash = (hash ^ 0x0A) &* 0x0000_0100_0000_01B3
    }
    var hex: String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
