// The queue as the API and the CLI use it: products in (each suggested by the serving engine first), work out,
// decisions back, figures and labels out; times from one injectable clock.
import SuggestionRuntime
import StoreInterface
import TeamQueue

/// A product as posted to the queue.
public struct QueueProduct: Sendable, Equatable {
    public var id: String
    public var name: String
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// Ties a queue store to the engine that suggests keywords for new items, and to a clock.
public final class AnnotationQueue: Sendable {
    public let store: any QueueStore
    /// The auto-accept rule this queue follows.
    public let trust: AutoAcceptTrust
    /// The evidence of decisions posted to the feedback route, read as the rule refreshes.
    let feedbackEvidence = FeedbackEvidence()
    private let clock: QueueClock
    /// How many suggestions an item keeps (the keys 1–5 of the workbench).
    public static let suggestionsPerItem = 5

    public init(store: any QueueStore, clock: @escaping QueueClock = SystemQueueClock.now,
                autoAccept: AutoAcceptConfiguration = AutoAcceptConfiguration()) {
        self.store = store
        self.clock = clock
        trust = AutoAcceptTrust(configuration: autoAccept)
    }

    public var policy: QueuePolicy { store.policy }
    public var now: QueueTime { clock() }

    /// Suggests each product with `engine` (outside any store lock), then labels it from the decision memory,
    /// auto-accepts it when the auto-accept rule lets the model label it, or queues it.
    public func enqueue(_ products: [QueueProduct], engine: any SuggestionEngine) throws(QueueError) -> EnqueueSummary {
        let model = engine.modelVersion
        let submissions = products.map { product in
            let result = engine.suggest(product.name, k: Self.suggestionsPerItem, explain: false)
            let suggestions = result.suggestions.map { QueueSuggestion(keyword: $0.keyword, confidence: $0.confidence) }
            // A first suggestion from the memory is not the model's: the rule does not judge it.
            let modelFirst = result.suggestions.first.map { $0.source != .memory } ?? false
            return QueueSubmission(id: product.id, name: product.name, suggestions: suggestions,
                                   autoAccept: modelFirst && trust.accepts(model: model, suggestions: suggestions,
                                                                           calibrationSaysAccept: result.autoAccept),
                                   model: model, memory: Self.memoryLabel(result), nameKey: engine.nameKey(product.name),
                                   category: modelFirst ? suggestions.first.flatMap { trust.category(of: $0.keyword) } : nil,
                                   firstIsHead: result.firstIsHead)
        }
        return try store.enqueue(submissions, at: clock())
    }

    /// Rebuilds the auto-accept rule from the store's evidence for `engine`'s model: the queue's labels, and the
    /// decisions in `feedbackStore` that name what was shown (`FeedbackEvidence`).
    /// A failed read of the feedback keeps what was read of it before, and the queue's own evidence still refreshes.
    public func refreshTrust(engine: any SuggestionEngine, feedbackStore: (any KeywordStore)?) throws(QueueError) {
        var feedbackFailure: KeywordStoreError?
        if let feedbackStore {
            do {
                try feedbackEvidence.catchUp(store: feedbackStore, engine: engine, category: trust.category(of:))
            } catch {
                feedbackFailure = error
            }
        }
        try trust.refresh(store: store, model: engine.modelVersion, extra: feedbackEvidence.evidence(model: engine.modelVersion))
        if let feedbackFailure { throw .store(feedbackFailure) }
    }

    /// The memory's label for an answer whose first suggestions come from agreeing decisions: those keywords, by
    /// the annotators behind them, named as the queue keeps annotator names (feedback without an annotator, or
    /// with a name the queue would refuse, names nobody). Nil when the memory has nothing for the name or its
    /// annotators disagree (then people decide, shown the remembered keywords first).
    static func memoryLabel(_ result: SuggestionResult) -> QueueMemoryLabel? {
        guard let recall = result.memory, !recall.disagreement else { return nil }
        let keywords = result.suggestions.prefix { $0.source == .memory }.map(\.keyword)
        guard !keywords.isEmpty else { return nil }
        let named = recall.keywords.filter { keywords.contains($0.keyword) }.flatMap(\.annotators).compactMap { name in
            try? QueueRules.key(name, field: "annotator")
        }
        return QueueMemoryLabel(keywords: keywords, annotators: Set(named).sorted())
    }

    public func lease(_ request: LeaseRequest) throws(QueueError) -> QueueLease {
        try store.lease(request, at: clock())
    }

    public func decide(_ request: DecisionRequest) throws(QueueError) -> [QueueDecision] {
        try store.decide(request, at: clock())
    }

    public func undo(annotator: String) throws(QueueError) -> QueueDecision {
        try store.undo(annotator: annotator, at: clock())
    }

    public func stats() throws(QueueError) -> QueueStats {
        try store.stats(at: clock())
    }
}
