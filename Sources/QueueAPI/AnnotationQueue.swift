// The queue as the API and the CLI use it: products in (each suggested by the serving engine first), work out,
// decisions back, figures and labels out; times from one injectable clock.
import Serving
import StoreInterface

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

    /// Suggests each product with `engine` (outside any store lock), then queues it or, when the auto-accept rule
    /// lets the model label it, auto-accepts it.
    public func enqueue(_ products: [QueueProduct], engine: any SuggestionEngine) throws(QueueError) -> EnqueueSummary {
        let model = engine.modelVersion
        let submissions = products.map { product in
            let result = engine.suggest(product.name, k: Self.suggestionsPerItem, explain: false)
            let suggestions = result.suggestions.map { QueueSuggestion(keyword: $0.keyword, confidence: $0.confidence) }
            return QueueSubmission(id: product.id, name: product.name, suggestions: suggestions,
                                   autoAccept: trust.accepts(model: model, suggestions: suggestions,
                                                             calibrationSaysAccept: result.autoAccept),
                                   model: model, category: suggestions.first.flatMap { trust.category(of: $0.keyword) })
        }
        return try store.enqueue(submissions, at: clock())
    }

    /// Rebuilds the auto-accept rule from the store's evidence for `engine`'s model.
    public func refreshTrust(engine: any SuggestionEngine) throws(QueueError) {
        try trust.refresh(store: store, model: engine.modelVersion)
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
