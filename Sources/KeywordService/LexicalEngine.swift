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
        var normalized: [Character]
        var bigrams: Set<String>
    }

    private struct State: Sendable {
        var entries: [Entry]
        var snapshot: KeywordListSnapshot
        var overlay: KeywordOverlay
    }

    public let modelVersion: String
    private let base: [String]
    private let store: KeywordOverlayStore
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
                      store: KeywordOverlayStore(path: overlayPath ?? KeywordOverlayStore.defaultPath(modelDirectory: modelDirectory)))
    }

    public init(keywords: [String], version: String, store: KeywordOverlayStore) throws {
        modelVersion = version
        base = keywords
        self.store = store
        let overlay = try store.load()
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
            let normalized = Array(normalize(keyword))
            return Entry(keyword: keyword, normalized: normalized, bigrams: bigrams(normalized))
        }
        var hasher = FNV1a()
        for keyword in keywords { hasher.add(keyword) }
        return State(entries: entries, snapshot: KeywordListSnapshot(keywords: keywords, version: hasher.hex), overlay: overlay)
    }

    /// NFKC, lower-cased (for Latin letters), without spaces.
    static func normalize(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping.lowercased().filter { !$0.isWhitespace }
    }

    static func bigrams(_ characters: [Character]) -> Set<String> {
        guard characters.count > 1 else { return Set(characters.map { String($0) }) }
        var result = Set<String>()
        for index in 0..<(characters.count - 1) { result.insert(String(characters[index]) + String(characters[index + 1])) }
        return result
    }

    /// - Complexity: O(K · (n + m)) for K keywords, a name of n characters and keywords of m characters.
    public func suggest(_ name: String, k: Int, explain: Bool) -> SuggestionResult {
        let entries = state.withLock { $0.entries }
        let normalizedName = Self.normalize(name)
        let nameCharacters = Array(normalizedName)
        let nameBigrams = Self.bigrams(nameCharacters)
        let nameLength = max(1, nameCharacters.count)
        var scored: [(index: Int, score: Float)] = []
        scored.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() where !entry.normalized.isEmpty {
            let score: Float
            if normalizedName.contains(String(entry.normalized)) {
                score = 0.5 + 0.5 * Float(min(entry.normalized.count, nameLength)) / Float(nameLength)
            } else {
                let shared = entry.bigrams.intersection(nameBigrams).count
                guard shared > 0 else { continue }
                score = 0.5 * Float(2 * shared) / Float(entry.bigrams.count + nameBigrams.count)
            }
            scored.append((index, score))
        }
        scored.sort { $0.score != $1.score ? $0.score > $1.score : entries[$0.index].keyword < entries[$1.index].keyword }
        let tokens = name.split(whereSeparator: \.isWhitespace).map(String.init)
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
            let characters = Array(normalize(token))
            if String(characters).contains(String(keyword.normalized)) { return 1 }
            return Float(bigrams(characters).intersection(keyword.bigrams).count)
        }
        let total = raw.reduce(0, +)
        return zip(tokens, raw).map { TokenWeight(token: $0, weight: total > 0 ? $1 / total : 0) }
    }

    public func keywordList() -> KeywordListSnapshot {
        state.withLock { $0.snapshot }
    }

    public func updateKeywords(add: [String], remove: [String]) throws -> KeywordListSnapshot {
        try updates.withLock { _ in
            let overlay = state.withLock { $0.overlay }.applying(add: add, remove: remove)
            try store.save(overlay)
            let next = Self.makeState(base: base, overlay: overlay)
            state.withLock { $0 = next }
            return next.snapshot
        }
    }

    public func reloadKeywords() throws -> KeywordListSnapshot {
        try updates.withLock { _ in
            let next = Self.makeState(base: base, overlay: try store.load())
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
