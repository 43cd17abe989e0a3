// What a person's label says about the model: the evidence the auto-accept rule learns from. Recorded with the
// decision that gave it, so it is stored, shared and withdrawn (by undo) exactly as that decision is.

/// One human label on an item that carried suggestions: which model suggested what first, how sure it was, the
/// keyword's category, and whether the person's label holds that keyword.
public struct QueueEvidence: Sendable, Equatable {
    /// The model version that made the suggestions.
    public var model: String
    /// The first suggestion.
    public var keyword: String
    /// Its calibrated confidence.
    public var confidence: Double
    /// The keyword's category when the item arrived; nil for a keyword outside the model's categories.
    public var category: String?
    /// Whether the person's label contains `keyword`.
    public var correct: Bool
    /// The item was auto-accepted and this label is its audit.
    public var audit: Bool
    /// Whether the first suggestion was the head of the name (`QueueItem.firstIsHead`): only such items can be
    /// auto-accepted, so only their evidence says how auto-accept would fare.
    public var firstIsHead: Bool

    public init(model: String, keyword: String, confidence: Double, category: String?, correct: Bool, audit: Bool,
                firstIsHead: Bool = true) {
        self.model = model
        self.keyword = keyword
        self.confidence = confidence
        self.category = category
        self.correct = correct
        self.audit = audit
        self.firstIsHead = firstIsHead
    }

    /// The evidence of `keywords` given to `item`: nil when the item carried no suggestion with a confidence or no
    /// model version (nothing to learn about a model then).
    public init?(item: QueueItem, keywords: [String]) {
        guard let model = item.model, let first = item.suggestions.first, let confidence = first.confidence,
              confidence.isFinite else { return nil }
        self.init(model: model, keyword: first.keyword, confidence: confidence, category: item.category,
                  correct: keywords.contains(first.keyword), audit: item.modelKeyword != nil, firstIsHead: item.firstIsHead)
    }
}

/// Per first-suggested keyword, what the queue holds now (`GET /v1/queue/keywords` adds the evidence).
public struct QueueKeywordCounts: Sendable, Equatable {
    /// Open items (waiting for a person, leased or not).
    public var queued = 0
    /// Items the model labelled.
    public var autoAccepted = 0
    public init(queued: Int = 0, autoAccepted: Int = 0) {
        self.queued = queued
        self.autoAccepted = autoAccepted
    }

    /// Adds (`sign` 1) or takes away (-1) one item's part.
    public mutating func add(_ item: QueueItem, _ sign: Int) {
        if item.state == .open { queued += sign }
        if item.modelKeyword != nil { autoAccepted += sign }
    }
}
