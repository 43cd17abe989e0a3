// The SuggestionEngine behind the HTTP server and the CLI: a model plus a live, editable keyword list.
import Foundation
import KeywordIndex
import KeywordModel
import Locking

/// Serves suggestions from one loaded model. The keyword list is the model's `keywords.txt` with the
/// store's additions and removals applied; changing it re-encodes only new keywords and swaps the
/// index atomically, so concurrent `suggest` calls see either the old or the new list, never a mix.
public final class ModelEngine: SuggestionEngine, @unchecked Sendable {
    public let components: ModelComponents
    public let store: any KeywordStore
    public let options: ScoringOptions
    /// The top suggestion is auto-accepted when its confidence is at least this; nil without calibration or
    /// when the calibration curve never reaches the asked precision.
    public let autoAcceptThreshold: Double?
    private let preparedVarieties: [VarietyEntry]

    private struct State {
        var index: KeywordIndex
        var snapshot: KeywordListSnapshot
        var overlay: KeywordOverlay
    }
    /// Guards `state` (held only to read or swap the reference).
    private let state: Locked<State>
    /// Serialises keyword updates and reloads (held while re-encoding and writing the overlay).
    private let updates = Locked(())

    /// - Parameters:
    ///   - store: where keyword changes live; default the file store on `overlayPath`.
    ///   - overlayPath: the overlay file when no store is given; default `<model dir>/keywords.overlay.json`.
    ///   - applyOverlay: false to start from `components.keywords` exactly (the store is not read then,
    ///     though later updates still write it).
    ///   - autoAcceptPrecision: the top-1 precision the auto-accept threshold is read for from the calibration curve.
    public init(components: ModelComponents, store: (any KeywordStore)? = nil, overlayPath: String? = nil,
                options: ScoringOptions = ScoringOptions(), applyOverlay: Bool = true,
                autoAcceptPrecision: Double = ModelCalibration.defaultPrecision) throws {
        self.components = components
        self.options = options
        autoAcceptThreshold = components.calibration?.threshold(forPrecision: autoAcceptPrecision)
        self.store = store ?? FileKeywordStore(
            overlayPath: overlayPath ?? KeywordOverlayStore.defaultPath(modelDirectory: components.directory))
        preparedVarieties = components.varietyEntries()
        let overlay = applyOverlay ? try self.store.loadOverlay() : KeywordOverlay()
        let keywords = ModelEngine.apply(overlay, to: components.keywords)
        let index = try components.makeIndex(keywords: keywords, options: options, varieties: preparedVarieties)
        state = Locked(State(index: index, snapshot: ModelEngine.snapshot(keywords), overlay: overlay))
    }

    public var modelVersion: String { components.modelVersion }

    /// The current index (for benchmarks and evaluation).
    public var index: KeywordIndex { current().index }

    /// - Complexity: O(K · n · hidden) for K keywords and n name tokens.
    public func suggest(_ name: String, k: Int, explain: Bool) -> SuggestionResult {
        let index = current().index
        let analyzed = components.analyzer.analyzeName(name)
        let lexical = analyzed.lexical
        let tokens = Array(analyzed.surfaces.prefix(index.options.maxNameTokens))
        // A name with no content tokens scores every keyword 0: there is nothing to suggest.
        guard !lexical.rows.isEmpty else {
            return SuggestionResult(name: name, tokens: explain ? tokens : nil, suggestions: [], reason: .noContentTokens)
        }
        let calibration = components.calibration
        let suggestions = ConfidenceFeatures.ranked(index, name: lexical, k: max(0, k)).map { scored, features -> Suggestion in
            var suggestion = Suggestion(keyword: index.entries[scored.index].keyword, score: scored.score,
                                        confidence: calibration?.confidence(features))
            if explain {
                let weights = index.attention(lexical, keyword: scored.index)
                suggestion.weights = zip(tokens, weights).map { TokenWeight(token: $0, weight: $1) }
            }
            return suggestion
        }
        var autoAccept = false
        if let threshold = autoAcceptThreshold, let top = suggestions.first?.confidence { autoAccept = top >= threshold }
        return SuggestionResult(name: name, tokens: explain ? tokens : nil, suggestions: suggestions, autoAccept: autoAccept)
    }

    public func keywordList() -> KeywordListSnapshot { current().snapshot }

    /// Applies the change in the store (under its lock, checking `expectedVersion` there) and installs the
    /// result before returning, so the caller reads its own write.
    public func updateKeywords(_ change: KeywordChange) throws -> KeywordListSnapshot {
        try updates.withLock { _ in
            let base = components.keywords
            let overlay = try store.apply(change.cleaned) { (overlay: KeywordOverlay) throws(KeywordStoreError) in
                guard let expected = change.expectedVersion else { return }
                let version = ModelEngine.snapshot(ModelEngine.apply(overlay, to: base)).version
                guard version == expected else { throw .versionMismatch(current: version) }
            }
            return try install(overlay)
        }
    }

    public func reloadKeywords() throws -> KeywordListSnapshot {
        try updates.withLock { _ in try install(try store.loadOverlay()) }
    }

    private func install(_ overlay: KeywordOverlay) throws -> KeywordListSnapshot {
        let old = current()
        let keywords = ModelEngine.apply(overlay, to: components.keywords)
        if keywords == old.snapshot.keywords {
            state.withLock { $0.overlay = overlay }
            return old.snapshot
        }
        let index = try components.makeIndex(keywords: keywords, options: options, varieties: preparedVarieties,
                                             reusing: old.index)
        let next = State(index: index, snapshot: ModelEngine.snapshot(keywords), overlay: overlay)
        state.withLock { $0 = next }
        return next.snapshot
    }

    private func current() -> State {
        state.withLock { $0 }
    }

    /// Base list minus removals plus additions, order kept, duplicates dropped.
    static func apply(_ overlay: KeywordOverlay, to base: [String]) -> [String] {
        let removed = Set(overlay.removed)
        var seen = Set<String>()
        var result: [String] = []
        for keyword in base + overlay.added where !removed.contains(keyword) {
            if seen.insert(keyword).inserted { result.append(keyword) }
        }
        return result
    }

    /// A version that changes whenever the list changes: count and an FNV-1a hash of the list.
    static func snapshot(_ keywords: [String]) -> KeywordListSnapshot {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for keyword in keywords {
            for byte in keyword.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            hash = (hash ^ 0x0A) &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return KeywordListSnapshot(keywords: keywords, version: "\(keywords.count)-\(String(repeating: "0", count: 16 - hex.count))\(hex)")
    }
}
