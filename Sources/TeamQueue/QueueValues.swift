// The annotation queue's value types: what goes in, what a lease hands out, what a decision says, and what
// the queue reports. The rules that move an item between states live in QueueItem.
import StoreInterface

/// Milliseconds since the Unix epoch, UTC: every time the queue stores or compares.
public typealias QueueTime = Int64

/// A clock the queue reads; tests pass a fixed or stepped one, the server the system clock.
public typealias QueueClock = @Sendable () -> QueueTime

/// One keyword the model suggested for a queued name, with its calibrated confidence.
public struct QueueSuggestion: Sendable, Equatable {
    public var keyword: String
    public var confidence: Double?
    public init(keyword: String, confidence: Double?) {
        self.keyword = keyword
        self.confidence = confidence
    }
}

/// The label the decision memory gives a product whose name annotators decided before (under the same name key).
public struct QueueMemoryLabel: Sendable, Equatable {
    /// The decided keywords, best first.
    public var keywords: [String]
    /// The annotators whose decisions they are.
    public var annotators: [String]
    public init(keywords: [String], annotators: [String]) {
        self.keywords = keywords
        self.annotators = annotators
    }
}

/// A product to be labelled, with the model's answer for its name.
public struct QueueSubmission: Sendable, Equatable {
    public var id: String
    public var name: String
    public var suggestions: [QueueSuggestion]
    /// True when the model's answer cleared the auto-accept threshold: the model labels the item.
    public var autoAccept: Bool
    public var model: String?
    /// Set when the name was decided before and its decisions agree: the memory labels the item.
    public var memory: QueueMemoryLabel?
    /// The name's key under the model's name normalisation (`TextAnalyzer.nameKey`): a new name with the same key
    /// is a cosmetic change of the listing (a full-width digit, a doubled space, a pack size), not a rename.
    public var nameKey: String?
    /// The first suggestion's category, kept with the item for the evidence its label gives.
    public var category: String?
    /// Whether the first suggestion is the head of the name (`SuggestionResult.firstIsHead`), kept with the item
    /// for the evidence its label gives.
    public var firstIsHead: Bool
    public init(id: String, name: String, suggestions: [QueueSuggestion], autoAccept: Bool, model: String?,
                memory: QueueMemoryLabel? = nil, nameKey: String? = nil, category: String? = nil, firstIsHead: Bool = true) {
        self.id = id
        self.name = name
        self.suggestions = suggestions
        self.autoAccept = autoAccept
        self.model = model
        self.memory = memory
        self.nameKey = nameKey
        self.category = category
        self.firstIsHead = firstIsHead
    }
}

/// What an enqueue did: items now waiting for a person, items the model labelled, items already there as given.
public struct EnqueueSummary: Sendable, Equatable {
    public var queued = 0
    public var autoAccepted = 0
    /// Items the decision memory labelled.
    public var fromMemory = 0
    public var duplicates = 0
    public init(queued: Int = 0, autoAccepted: Int = 0, fromMemory: Int = 0, duplicates: Int = 0) {
        self.queued = queued
        self.autoAccepted = autoAccepted
        self.fromMemory = fromMemory
        self.duplicates = duplicates
    }
}

/// Which items a lease takes first.
public enum QueueOrder: String, Sendable, CaseIterable {
    /// Lowest top confidence first: where a person adds the most.
    case uncertain
    /// Highest top confidence first: quick confirmations.
    case confident
    /// In the order the items arrived.
    case oldest
}

/// A request for work.
public struct LeaseRequest: Sendable, Equatable {
    public var annotator: String
    public var count: Int
    public var order: QueueOrder
    /// When set, only items whose top suggestion is this keyword (review by keyword).
    public var keyword: String?
    public init(annotator: String, count: Int = 10, order: QueueOrder = .uncertain, keyword: String? = nil) {
        self.annotator = annotator
        self.count = count
        self.order = order
        self.keyword = keyword
    }
}

/// Items handed to one annotator until `expiresAt`.
public struct QueueLease: Sendable, Equatable {
    public var id: String
    public var expiresAt: QueueTime
    public var items: [QueueItem]
    public init(id: String, expiresAt: QueueTime, items: [QueueItem]) {
        self.id = id
        self.expiresAt = expiresAt
        self.items = items
    }
}

/// What an annotator did with a leased item.
public enum QueueDecisionKind: String, Sendable, Equatable, CaseIterable {
    /// Gave the item its keywords.
    case label
    /// Passed: the item goes back to the queue, not to this annotator for a while.
    case skip
    /// Set aside for someone to look at (not a product, a broken name).
    case flag
}

/// A decision as posted: one item or many (`label` only) from one lease.
public struct DecisionRequest: Sendable, Equatable {
    public var lease: String
    public var annotator: String
    public var ids: [String]
    public var kind: QueueDecisionKind
    /// The labels, for `label`; empty otherwise.
    public var keywords: [String]
    public init(lease: String, annotator: String, ids: [String], kind: QueueDecisionKind, keywords: [String] = []) {
        self.lease = lease
        self.annotator = annotator
        self.ids = ids
        self.kind = kind
        self.keywords = keywords
    }
}

/// A stored decision on one item. Undo marks it `undone`; it is never deleted.
public struct QueueDecision: Sendable, Equatable {
    /// Increases with every decision the store records.
    public var id: Int64
    public var annotator: String
    public var item: String
    public var kind: QueueDecisionKind
    public var lease: String
    public var keywords: [String]
    /// The feedback records the decision wrote (one per keyword of a label).
    public var feedback: [Int64]
    public var at: QueueTime
    /// How long the annotator spent on it: from the later of the lease and their previous decision.
    public var seconds: Double
    public var undone: Bool
    /// What a label says about the model that suggested the item (nil for skips, flags and items without
    /// suggestions); an undone decision's evidence no longer counts.
    public var evidence: QueueEvidence?

    public init(id: Int64, annotator: String, item: String, kind: QueueDecisionKind, lease: String,
                keywords: [String], feedback: [Int64], at: QueueTime, seconds: Double, undone: Bool = false,
                evidence: QueueEvidence? = nil) {
        self.evidence = evidence
        self.id = id
        self.annotator = annotator
        self.item = item
        self.kind = kind
        self.lease = lease
        self.keywords = keywords
        self.feedback = feedback
        self.at = at
        self.seconds = seconds
        self.undone = undone
    }
}

/// Who gave an item its current label.
public enum LabelSource: String, Sendable, Equatable {
    case model
    case annotator
    /// Annotators' earlier decisions on a name with the same name key.
    case memory
}

/// An item's current label, as the labels export writes it.
public struct QueueLabel: Sendable, Equatable {
    public var id: String
    public var name: String
    public var keywords: [String]
    public var decidedBy: LabelSource
    public var annotator: String?
    public var model: String?
    public var at: QueueTime
    /// The annotators whose decisions the memory's label repeats; empty for other labels.
    public var annotators: [String]
    public init(id: String, name: String, keywords: [String], decidedBy: LabelSource, annotator: String?, model: String?,
                at: QueueTime, annotators: [String] = []) {
        self.id = id
        self.name = name
        self.keywords = keywords
        self.decidedBy = decidedBy
        self.annotator = annotator
        self.model = model
        self.at = at
        self.annotators = annotators
    }
}

/// A place in the labels' (time, id) order: after the label `id` made at `at`, or with no id, before every
/// label made at `at`. An export page starts after one and ends at its last label.
public struct LabelCursor: Sendable, Equatable {
    public var at: QueueTime
    public var id: String?
    public init(at: QueueTime, id: String?) {
        self.at = at
        self.id = id
    }

    /// Whether the label made at `at` with `id` comes after this place.
    public func precedes(at: QueueTime, id: String) -> Bool {
        at > self.at || (at == self.at && self.id.map { id > $0 } ?? true)
    }
}

/// The queue's figures, as `GET /v1/queue/stats` reports them.
public struct QueueStats: Sendable, Equatable {
    public struct Items: Sendable, Equatable {
        public var queued = 0, leased = 0, labelled = 0, flagged = 0
        public init(queued: Int = 0, leased: Int = 0, labelled: Int = 0, flagged: Int = 0) {
            self.queued = queued
            self.leased = leased
            self.labelled = labelled
            self.flagged = flagged
        }
    }
    public struct Annotator: Sendable, Equatable {
        public var decisions: Int
        public var medianSeconds: Double?
        public init(decisions: Int, medianSeconds: Double?) {
            self.decisions = decisions
            self.medianSeconds = medianSeconds
        }
    }
    public var items = Items()
    public var annotators: [String: Annotator] = [:]
    /// Items the model labelled, and of those queued for audit, how many a person checked and agreed with.
    public var autoAccepted = 0
    public var audited = 0
    public var auditAgreed = 0
    /// Items labelled by two annotators, and how many of those the two agreed on.
    public var overlapItems = 0
    public var agreed = 0

    public init() {}

    /// The share of audited items whose model label the annotator confirmed; nil before any audit.
    public var auditPrecision: Double? { audited > 0 ? Double(auditAgreed) / Double(audited) : nil }
}

/// Why a queue operation was refused. Nothing was changed.
public enum QueueError: Error, Equatable, CustomStringConvertible {
    case unknownItem(String)
    /// The item is not held by this annotator under this lease (expired and taken by another, or never leased).
    case notHeld(String)
    /// The item is labelled or flagged already.
    case notOpen(String)
    /// The annotator has no decision left to undo.
    case nothingToUndo
    /// The latest decision cannot be undone: the item cannot go back to the annotator (why).
    case cannotUndo(String, String)
    /// The annotator has made `QueuePolicy.maxDecisionsPerItem` decisions on the item (undone ones included).
    case tooManyDecisions(String, Int)
    case store(KeywordStoreError)

    public var description: String {
        switch self {
        case .unknownItem(let id): return "no queued item has the id '\(id)'"
        case .notHeld(let id): return "item '\(id)' is not in this annotator's lease (it expired or was never leased)"
        case .notOpen(let id): return "item '\(id)' is already labelled or flagged"
        case .nothingToUndo: return "this annotator has no decision to undo"
        case .cannotUndo(let id, let why): return "the decision on item '\(id)' cannot be undone: \(why)"
        case .tooManyDecisions(let id, let most):
            return "this annotator has made \(most) decisions on item '\(id)', undone ones included: the most one annotator makes on one item"
        case .store(let error): return error.description
        }
    }
}
