// The served engine with the decision memory in front: a decided name answers with its decision first.
import DecisionMemory
import StoreInterface

/// A `ModelEngine` whose answers start with the decision memory's keywords for the name, when it has any that the
/// served list holds. The rest of the answer is the model's, without the remembered keywords.
///
/// A remembered keyword's `score` is the model's best score plus the keyword's vote score (annotators for it less
/// those against), so scores stay in answer order; its `confidence` is the decisions' support
/// (`RememberedKeyword.confidence`). The answer auto-accepts when the annotators agree and that support clears the
/// model's auto-accept threshold.
public final class RememberingEngine: SuggestionEngine {
    public let base: ModelEngine
    public let memory: DecisionMemory
    private let keyer: DecisionMemory.Keyer
    private let keyerIdentity: String

    /// The memory is keyed with `base`'s name normalisation from this engine's first answer on (rekeyed then when
    /// the model served before normalised names differently). A candidate loaded beside the live engine (a shadow)
    /// is scored through `modelOnly` and never rekeys the memory.
    public init(base: ModelEngine, memory: DecisionMemory) {
        self.base = base
        self.memory = memory
        let analyzer = base.components.analyzer
        keyer = { analyzer.nameKey($0) }
        keyerIdentity = analyzer.nameKeyIdentity
    }

    public var modelVersion: String { base.modelVersion }

    /// - Complexity: as `ModelEngine.suggest`, plus O(name length) for the name key.
    public func suggest(_ name: String, k: Int, explain: Bool) -> SuggestionResult {
        var result = base.suggest(name, k: k, explain: explain)
        guard k > 0, let recall = memory.recall(name, keyer: keyer, identity: keyerIdentity) else { return result }
        let served = base.listed(recall.keywords.map(\.keyword))
        let remembered = recall.keywords.filter { served.contains($0.keyword) }
        guard let first = remembered.first else { return result }
        let top = result.suggestions.first?.score ?? 0
        let fromMemory = remembered.map { keyword in
            Suggestion(keyword: keyword.keyword, score: top + Float(keyword.score), confidence: keyword.confidence,
                       remembered: RememberedDecision(name: recall.name, annotators: keyword.annotators.count))
        }
        let taken = Set(remembered.map(\.keyword))
        result.suggestions = Array((fromMemory + result.suggestions.filter { !taken.contains($0.keyword) }).prefix(k))
        // The first suggestion is the team's decision now: the name's structure, which questions the model's
        // reading (`NameHead`), has nothing to say about it.
        result.firstIsHead = true
        result.autoAccept = !recall.disagreement
            && NameHead.autoAccepts(confidence: first.confidence, threshold: base.autoAcceptThreshold, isHead: true)
        result.reason = nil
        result.memory = recall
        return result
    }

    public func keywordList() -> KeywordListSnapshot { base.keywordList() }
    public func updateKeywords(_ change: KeywordChange) throws -> KeywordListSnapshot { try base.updateKeywords(change) }
    public func reloadKeywords() throws -> KeywordListSnapshot { try base.reloadKeywords() }
    public func listed(_ keywords: [String]) -> Set<String> { base.listed(keywords) }
    public func nameKey(_ name: String) -> String { base.nameKey(name) }
    public var modelOnly: any SuggestionEngine { base }
}
