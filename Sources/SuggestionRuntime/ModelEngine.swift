// The SuggestionEngine behind the HTTP server and the CLI: a model plus a live, editable keyword list.
import Foundation
import KeywordIndex
import KeywordModel
import Locking
import ModelStorage
import StoreInterface
import Synchronization

/// Serves suggestions from one loaded model. The keyword list is the model's `keywords.txt` with the
/// store's additions and removals applied; changing it re-encodes only new keywords and swaps the
/// index atomically, so concurrent `suggest` calls see either the old or the new list, never a mix.
///
/// A change made through `updateKeywords` to the overlay this engine serves (no other writer in between) is
/// applied to the index as an edit (`KeywordIndex.applying`): work for each changed keyword, plus one pass over a
/// few integers per keyword of the list. A reload, or a change on top of someone else's, rebuilds the list from
/// the overlay (O(list) with far larger constants: every keyword hashed and matched again, encoding only keywords
/// the current index lacks).
public final class ModelEngine: SuggestionEngine, @unchecked Sendable {
    public let components: LoadedModel
    public let store: any KeywordStore
    public let options: ScoringOptions
    /// The top suggestion is auto-accepted when its confidence is at least this; nil without calibration or
    /// when the calibration curve never reaches the asked precision.
    public let autoAcceptThreshold: Double?
    /// The most keywords the list may hold (see `KeywordRules.checkListSize`): a change past it is refused under
    /// the store's lock, and a store whose keyword changes are past it is not served.
    public let maxKeywords: Int
    private let preparedVarieties: [VarietyEntry]
    /// The part each keyword's category plays in a product name (`NameHead`).
    public let roles: KeywordRoles
    /// Changes applied as edits of the served index (the rest were rebuilds); for tests.
    let editedChanges = Atomic<Int>(0)

    private struct State {
        var index: KeywordIndex
        var snapshot: KeywordListSnapshot
        /// The hash in `snapshot.version`.
        var hash: KeywordListHash
        var overlay: ServedOverlay

        init(index: KeywordIndex, overlay: ServedOverlay) {
            let keywords = KeywordList(index.entries)
            let hash = KeywordListHash(keywords)
            self.init(index: index, snapshot: ModelEngine.snapshot(keywords, hash: hash), hash: hash, overlay: overlay)
        }

        init(index: KeywordIndex, snapshot: KeywordListSnapshot, hash: KeywordListHash, overlay: ServedOverlay) {
            self.index = index
            self.snapshot = snapshot
            self.hash = hash
            self.overlay = overlay
        }
    }
    /// Guards `state` (held only to read or swap the reference).
    private let state: Locked<State>
    /// Serialises keyword updates and reloads (held while re-encoding and writing the overlay), and holds the
    /// served list's order, which only they read and change.
    private let updates: Locked<KeywordOrder>
    /// An error the next rebuild of the index throws instead of building (for tests of a failed rebuild).
    let rebuildFault = Locked<(any Error)?>(nil)

    /// - Parameters:
    ///   - store: where keyword changes live.
    ///   - applyOverlay: false to start from `components.keywords` exactly (the store is not read then,
    ///     though later updates still write it).
    ///   - autoAcceptPrecision: the top-1 precision the auto-accept threshold is read for from the calibration curve.
    ///   - maxKeywords: the most keywords the list may hold.
    public init(components: LoadedModel, store: any KeywordStore,
                options: ScoringOptions = ScoringOptions(), applyOverlay: Bool = true,
                autoAcceptPrecision: Double = ModelCalibration.defaultPrecision,
                maxKeywords: Int = KeywordRules.maxKeywords) throws {
        self.components = components
        self.options = options
        self.maxKeywords = maxKeywords
        autoAcceptThreshold = components.calibration?.threshold(forPrecision: autoAcceptPrecision)
        self.store = store
        preparedVarieties = components.varietyEntries()
        roles = KeywordRoles(model: components)
        let overlay = applyOverlay ? try self.store.loadOverlay() : KeywordOverlay()
        let keywords = ModelEngine.apply(overlay, to: components.keywords)
        try ModelEngine.checkServable(keywords.count, previous: nil, limit: maxKeywords, store: self.store)
        let index = try components.makeIndex(keywords: keywords, options: options, varieties: preparedVarieties)
        state = Locked(State(index: index, overlay: ServedOverlay(overlay)))
        updates = Locked(KeywordOrder(base: components.keywords, list: keywords, overlay: overlay))
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
        // The structure checks read the best `NameHead.depth` keywords whatever `k` is.
        let ranked = ConfidenceFeatures.ranked(index, name: lexical, k: max(k, NameHead.depth), roles: roles)
        // A name that says only where the product comes from would get the keyword nearest the place's vector
        // (大阪産 → 大阪しろな): unless one of the best keywords is written in it as whole tokens, by its own text or
        // a variety name (カマンベール, which the lexicon also knows as a place), there is nothing to suggest. A
        // piece of a place (米 in 米沢産) is the place.
        if analyzed.onlyPlaces, !ranked.contains(where: { $0.written.wholeEnd(withSpellings: true) >= 0 }) {
            return SuggestionResult(name: name, tokens: explain ? tokens : nil, suggestions: [], reason: .onlyPlaceNames)
        }
        let suggestions = ranked.prefix(max(0, k)).map { item -> Suggestion in
            let scored = item.keyword
            var suggestion = Suggestion(keyword: index.entries[scored.index].keyword, score: scored.score,
                                        confidence: calibration?.confidence(item.features))
            if explain {
                let weights = index.attention(lexical, keyword: scored.index)
                suggestion.weights = zip(tokens, weights).map { TokenWeight(token: $0, weight: $1) }
            }
            return suggestion
        }
        // Auto-accept needs both the calibrated confidence and the name's structure: a confident first keyword
        // that a later-written keyword shows to be a flavour or ingredient (ごま in 「ごま担々麺」) is left to a person.
        let firstIsHead = NameHead.firstIsHead(ranked, name: lexical)
        let autoAccept = NameHead.autoAccepts(confidence: suggestions.first?.confidence, threshold: autoAcceptThreshold,
                                              isHead: firstIsHead)
        return SuggestionResult(name: name, tokens: explain ? tokens : nil, suggestions: suggestions, autoAccept: autoAccept,
                                firstIsHead: firstIsHead)
    }

    public func keywordList() -> KeywordListSnapshot { current().snapshot }

    public func nameKey(_ name: String) -> String { components.analyzer.nameKey(name) }

    /// Which of `keywords` are in the current list, from the list's order (no scan of the list).
    /// - Complexity: O(keywords).
    public func listed(_ keywords: [String]) -> Set<String> {
        updates.withLock { order in Set(keywords.filter { order.isListed($0) }) }
    }

    /// Applies the change in the store (under its lock, checking `expectedVersion` and the list's size there) and
    /// installs the result before returning, so the caller reads its own write. Keywords are trimmed and checked
    /// by `KeywordRules` first (a bad one throws `KeywordProblem`).
    public func updateKeywords(_ change: KeywordChange) throws -> KeywordListSnapshot {
        try updates.withLock { order in
            let base = components.keywords, cleaned = try change.checked()
            let served = current()
            var fromServed = false
            let overlay = try store.apply(cleaned) { (overlay: KeywordOverlay) throws(KeywordStoreError) in
                fromServed = served.overlay.matches(overlay)
                // The size rule is checked here, under the store's lock, on the overlay the change applies to, so
                // neither concurrent writers nor other replicas can take the list past it between check and write.
                if fromServed {
                    let count = served.snapshot.keywords.count
                    try KeywordRules.checkListSize(count + order.sizeChange(add: cleaned.add, remove: cleaned.remove),
                                                   previous: count, limit: maxKeywords)
                } else {
                    let next = overlay.applying(add: cleaned.add, remove: cleaned.remove)
                    try KeywordRules.checkListSize(ModelEngine.apply(next, to: base).count,
                                                   previous: ModelEngine.apply(overlay, to: base).count, limit: maxKeywords)
                }
                guard let expected = change.expectedVersion else { return }
                let version = fromServed
                    ? served.snapshot.version : ModelEngine.snapshot(ModelEngine.apply(overlay, to: base)).version
                guard version == expected else { throw .versionMismatch(current: version) }
            }
            // The store applied `applying(add:remove:)` to the served overlay: that is an edit of the served list
            // in the keywords the change names.
            // `order` changes only together with what is served: an edit cannot fail once made, and a rebuild
            // replaces `order` only after its index is installed, so a failed rebuild leaves both as they were.
            if fromServed, order.clean {
                let edit = order.edit(add: cleaned.add, remove: cleaned.remove)
                editedChanges.add(1, ordering: .relaxed)
                return self.edit(edit, overlay: overlay, served: served)
            }
            return try install(overlay, order: &order, sizeChecked: true)
        }
    }

    /// Serves the store's keyword changes as they are now; changes that would take the list past `maxKeywords`
    /// (an overlay edited by hand, say) are refused, and the current list stays served.
    public func reloadKeywords() throws -> KeywordListSnapshot {
        try updates.withLock { order in try install(try store.loadOverlay(), order: &order, sizeChecked: false) }
    }

    /// Throws when a list of `count` keywords read from `store` may not replace one of `previous`; the error
    /// names the store, which holds the keyword changes to fix.
    static func checkServable(_ count: Int, previous: Int?, limit: Int, store: any KeywordStore) throws(KeywordStoreError) {
        do {
            try KeywordRules.checkListSize(count, previous: previous, limit: limit)
        } catch {
            throw .failed("\(store.displayName): the keyword changes there make a list of \(count) keywords; at most \(limit) are served")
        }
    }

    private func edit(_ edit: KeywordListEdit, overlay: KeywordOverlay, served: State) -> KeywordListSnapshot {
        guard !edit.isEmpty else {
            state.withLock { $0.overlay = ServedOverlay(overlay) }
            return served.snapshot
        }
        let insertions = edit.insertions.map { k, keyword in
            (index: k, entry: KeywordEntry(keyword: keyword, text: components.analyzer.analyzeKeyword(keyword).lexical))
        }
        let index = served.index.applying(removals: edit.removals, insertions: insertions)
        let keywords = KeywordList(index.entries)
        var hash = served.hash
        hash.apply(edit, old: served.snapshot.keywords, new: keywords)
        let next = State(index: index, snapshot: ModelEngine.snapshot(keywords, hash: hash), hash: hash,
                         overlay: ServedOverlay(overlay))
        state.withLock { $0 = next }
        return next.snapshot
    }

    /// Serves `overlay` rebuilt from scratch (encodings of keywords the current index holds are reused), after
    /// checking the list's size unless that was done under the store's lock (`sizeChecked`).
    private func install(_ overlay: KeywordOverlay, order: inout KeywordOrder, sizeChecked: Bool) throws -> KeywordListSnapshot {
        let old = current()
        if old.overlay.matches(overlay) { return old.snapshot }
        let keywords = ModelEngine.apply(overlay, to: components.keywords)
        if !sizeChecked {
            try ModelEngine.checkServable(keywords.count, previous: old.snapshot.keywords.count, limit: maxKeywords, store: store)
        }
        let rebuilt = KeywordOrder(base: components.keywords, list: keywords, overlay: overlay)
        if keywords.elementsEqual(old.snapshot.keywords) {
            state.withLock { $0.overlay = ServedOverlay(overlay) }
            order = rebuilt
            return old.snapshot
        }
        if let fault = rebuildFault.withLock({ fault in defer { fault = nil }; return fault }) { throw fault }
        let index = try components.makeIndex(keywords: keywords, options: options, varieties: preparedVarieties,
                                             reusing: old.index)
        let next = State(index: index, overlay: ServedOverlay(overlay))
        state.withLock { $0 = next }
        order = rebuilt
        return next.snapshot
    }

    /// The overlay being served, as far as telling a store's overlay apart from it needs: its revision (the
    /// keyword lists are then not kept here, so the store alone releases an old overlay's lists), or, for an
    /// overlay with no stored form yet, the overlay itself.
    private struct ServedOverlay {
        private let revision: UInt64?
        private let overlay: KeywordOverlay?

        init(_ overlay: KeywordOverlay) {
            revision = overlay.revision
            self.overlay = overlay.revision == nil ? overlay : nil
        }

        /// True when `other` holds the same keywords (false may also mean "not known to be the same").
        func matches(_ other: KeywordOverlay) -> Bool {
            if let revision { return other.revision == revision }
            return overlay == other
        }
    }

    private func current() -> State {
        state.withLock { $0 }
    }

    /// Base list minus removals plus additions, order kept, duplicates dropped.
    public static func apply(_ overlay: KeywordOverlay, to base: [String]) -> [String] {
        overlay.applied(to: base)
    }

    /// A version that changes whenever the list changes: the count and `KeywordListHash` of the list.
    static func snapshot(_ keywords: [String]) -> KeywordListSnapshot {
        snapshot(KeywordList(keywords), hash: KeywordListHash(keywords))
    }

    static func snapshot(_ keywords: KeywordList, hash: KeywordListHash) -> KeywordListSnapshot {
        let hex = String(hash.value, radix: 16)
        return KeywordListSnapshot(keywords: keywords, version: "\(keywords.count)-\(String(repeating: "0", count: 16 - hex.count))\(hex)")
    }
}
