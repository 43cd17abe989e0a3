// The one store for shared state: keyword changes and annotation feedback. The engine, the HTTP handlers and
// the CLI talk to this interface; which implementation runs (files or PostgreSQL) is chosen once, at start.

/// One change to the keyword list, as an admin asked for it.
public struct KeywordChange: Sendable, Equatable {
    public var add: [String]
    public var remove: [String]
    /// The list version the change was made against (`If-Match`); nil applies it to whatever is current.
    public var expectedVersion: String?
    /// Recorded with the change where the store keeps a change log.
    public var requestID: String?
    public var actor: String?

    public init(add: [String] = [], remove: [String] = [], expectedVersion: String? = nil,
                requestID: String? = nil, actor: String? = nil) {
        self.add = add
        self.remove = remove
        self.expectedVersion = expectedVersion
        self.requestID = requestID
        self.actor = actor
    }
}

/// What an annotator did with a suggestion.
public enum FeedbackAction: String, Sendable, Codable, CaseIterable {
    /// Took a suggested keyword.
    case accept
    /// Typed a keyword that was not among the suggestions.
    case correct
    /// Turned a suggested keyword down.
    case reject
}

/// One annotator decision, as posted.
public struct FeedbackItem: Sendable, Equatable {
    public var name: String
    public var keyword: String
    public var action: FeedbackAction
    /// The keywords the annotator was shown, best first.
    public var shown: [String]
    public var model: String?
    public var annotator: String?
    /// A client-chosen id; a second item with the same id is not stored again.
    public var clientID: String?

    public init(name: String, keyword: String, action: FeedbackAction, shown: [String] = [], model: String? = nil,
                annotator: String? = nil, clientID: String? = nil) {
        self.name = name
        self.keyword = keyword
        self.action = action
        self.shown = shown
        self.model = model
        self.annotator = annotator
        self.clientID = clientID
    }
}

/// A stored decision: the item plus the id and time the store gave it.
public struct FeedbackRecord: Sendable, Equatable {
    /// Increases with every record a store accepts; `feedback(after:)` pages by it.
    public var id: Int64
    /// UTC, ISO 8601 with milliseconds (`2026-01-31T12:00:00.000Z`).
    public var receivedAt: String
    public var item: FeedbackItem

    public init(id: Int64, receivedAt: String, item: FeedbackItem) {
        self.id = id
        self.receivedAt = receivedAt
        self.item = item
    }
}

/// The answer for one stored item.
public struct FeedbackReceipt: Sendable, Equatable {
    public var id: Int64
    /// True when an earlier item with the same client id was found and nothing new was stored.
    public var duplicate: Bool
    public init(id: Int64, duplicate: Bool) {
        self.id = id
        self.duplicate = duplicate
    }
}

/// A store failure, as the API needs to tell them apart.
public enum KeywordStoreError: Error, CustomStringConvertible, Equatable {
    /// The store cannot be reached now (database down); retrying later may work. Nothing was changed.
    case unavailable(String)
    /// The change was made against a list version that is no longer current; nothing was changed.
    case versionMismatch(current: String)
    /// The served list would hold `count` keywords, more than the `limit` of `KeywordRules.checkListSize`;
    /// nothing was changed.
    case listFull(count: Int, limit: Int)
    /// Anything else: a file that cannot be written or read, a database error. The message names the file
    /// or the statement; it goes to the log, not to API clients.
    case failed(String)

    public var description: String {
        switch self {
        case .unavailable(let message): return "store unavailable: \(message)"
        case .versionMismatch(let current): return "the keyword list changed (now version \(current))"
        case .listFull(let count, let limit):
            return "the list would hold \(count) keywords; at most \(limit) are served (remove some first)"
        case .failed(let message): return message
        }
    }
}

/// Where keyword changes and feedback live. Implementations are safe to call from many threads, and from
/// many processes or replicas at once: every change is a read-modify-write under the store's own lock
/// (a file lock, a database row lock), so no acknowledged change is lost.
public protocol KeywordStore: AnyObject, Sendable {
    /// What the store is, for logs (`file:/path`, or the database URL with its password masked).
    var displayName: String { get }
    /// `file` or `postgres`, for metrics.
    var kind: String { get }
    /// False while the store cannot be reached (writes then fail with `unavailable`).
    var isAvailable: Bool { get }

    /// The keyword changes as they are now.
    func loadOverlay() throws(KeywordStoreError) -> KeywordOverlay

    /// Applies `change` to the freshest overlay under the store's lock and returns the new overlay.
    /// `check` runs under the same lock on the overlay before the change, and throws to refuse it (a stale
    /// `If-Match`). Returns only once the change is durable.
    func apply(_ change: KeywordChange,
               check: (KeywordOverlay) throws(KeywordStoreError) -> Void) throws(KeywordStoreError) -> KeywordOverlay

    /// Replaces the whole overlay (import, restore), durably. `check` runs under the store's lock on `overlay`
    /// before it is written, and throws to refuse it (a list past `KeywordRules.checkListSize`).
    func replaceOverlay(_ overlay: KeywordOverlay,
                        check: (KeywordOverlay) throws(KeywordStoreError) -> Void) throws(KeywordStoreError)

    /// Stores decisions, all or none, and returns their ids in order. An item whose client id was stored before
    /// is not stored again; its receipt carries the earlier id.
    func appendFeedback(_ items: [FeedbackItem]) throws(KeywordStoreError) -> [FeedbackReceipt]

    /// Stores records with their ids and times as given (import); records whose id is already present are skipped.
    /// Returns how many were stored.
    func importFeedback(_ records: [FeedbackRecord]) throws(KeywordStoreError) -> Int

    /// Records with an id greater than `after`, oldest first, at most `limit`.
    func feedback(after: Int64, limit: Int) throws(KeywordStoreError) -> [FeedbackRecord]

    /// The id of the `limit`-th record after `after` in id order (of the last one when there are fewer, or with no
    /// limit); nil when there is none. An export fixes its end with it before it streams, so the
    /// `Feedback-Last-Id` it announces first is exactly the last record it sends.
    func lastFeedbackID(after: Int64, limit: Int?) throws(KeywordStoreError) -> Int64?

    /// Calls `onChange` (from a background thread) when another process or replica may have changed the
    /// keyword list, or when the store came back after an outage. Once per store.
    func startWatching(_ onChange: @escaping @Sendable (_ reason: String) -> Void)

    /// Stops watching and closes connections.
    func close()
}

extension KeywordStore {
    /// Applies a change with no precondition.
    public func apply(_ change: KeywordChange) throws(KeywordStoreError) -> KeywordOverlay {
        try apply(change) { (_: KeywordOverlay) throws(KeywordStoreError) in }
    }

    /// Replaces the whole overlay with no precondition.
    public func replaceOverlay(_ overlay: KeywordOverlay) throws(KeywordStoreError) {
        try replaceOverlay(overlay) { (_: KeywordOverlay) throws(KeywordStoreError) in }
    }
}
