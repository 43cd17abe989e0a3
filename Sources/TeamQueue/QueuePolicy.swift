// The queue's settings and the rules that are not about one item: routing shares, lease and cool-down
// lengths, which decision an undo reverts, and which feedback a label writes.
import StoreInterface

/// How the queue shares work. The same policy must run on every process sharing a store: routing is a
/// function of the item id, so every replica routes an item the same way.
public struct QueuePolicy: Sendable, Equatable {
    /// The share of queued items labelled by two annotators (`serve --queue-overlap`).
    public var overlapShare: Double
    /// The share of auto-accepted items also queued for a person to check (`serve --queue-audit`).
    public var auditShare: Double
    /// How long a lease holds its items.
    public var leaseMillis: QueueTime
    /// How long a skipped item is not leased to the annotator who skipped it.
    public var skipCooldownMillis: QueueTime
    /// How many of an annotator's latest decisions undo can reach.
    public var undoDepth: Int
    /// The most items one annotator holds at once, over all their leases (`serve --lease-cap`): a lease past it
    /// gets only what fits, so one name cannot take the whole queue.
    public var leaseCap: Int

    public static let defaultLeaseCap = 100
    /// The most decisions one annotator makes on one item, undone ones included: a decide-and-undo loop writes
    /// a feedback record and queue lines each time, and undone records stay in the logs, so without a bound the
    /// logs would grow without one. Twenty leaves room for every honest change of mind.
    public var maxDecisionsPerItem: Int

    public static let defaultOverlapShare = 0.05
    public static let defaultAuditShare = 0.05

    public init(overlapShare: Double = QueuePolicy.defaultOverlapShare, auditShare: Double = QueuePolicy.defaultAuditShare,
                leaseMillis: QueueTime = 10 * 60_000, skipCooldownMillis: QueueTime = 60 * 60_000, undoDepth: Int = 10,
                leaseCap: Int = QueuePolicy.defaultLeaseCap, maxDecisionsPerItem: Int = 20) {
        self.overlapShare = overlapShare
        self.auditShare = auditShare
        self.leaseMillis = leaseMillis
        self.skipCooldownMillis = skipCooldownMillis
        self.undoDepth = undoDepth
        self.leaseCap = leaseCap
        self.maxDecisionsPerItem = maxDecisionsPerItem
    }

    /// Whether the item with `id` is one of the overlap share.
    public func routesToOverlap(_ id: String) -> Bool { Self.unitHash("overlap\u{0}" + id) < overlapShare }
    /// Whether the auto-accepted item with `id` is one of the audit share.
    public func routesToAudit(_ id: String) -> Bool { Self.unitHash("audit\u{0}" + id) < auditShare }

    /// A stable hash of `text` in [0, 1): FNV-1a 64 over its UTF-8 bytes, top 53 bits. Stable across processes
    /// and releases, unlike `Hasher`.
    static func unitHash(_ text: String) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        // FNV's low bits mix poorly for short inputs; fold the high half in before taking the top bits.
        hash ^= hash >> 29
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 32
        return Double(hash >> 11) / Double(UInt64(1) << 53)
    }

    /// The decision an undo reverts: among the annotator's `undoDepth` latest decisions (newest first), the
    /// newest not undone yet.
    public func undoTarget(_ latest: [QueueDecision]) -> QueueDecision? {
        latest.sorted { $0.id > $1.id }.prefix(undoDepth).first { !$0.undone }
    }

    /// Seconds an annotator spent on a decision: from the later of taking the item and their previous decision.
    public static func seconds(at now: QueueTime, held since: QueueTime?, previous: QueueTime?) -> Double {
        let start = max(since ?? now, previous ?? .min)
        return Double(max(0, now - start)) / 1000
    }

    /// The feedback records a label writes: one per keyword, `accept` when the keyword was among the shown
    /// suggestions and `correct` otherwise. The client id is fixed by the item, the annotator and how many
    /// decisions they made on it before, so a retry after a crash between the feedback and the decision
    /// stores nothing twice; it lies in the queue's namespace (`FeedbackRules.queueClientID`), which clients
    /// cannot write.
    public static func feedback(for item: QueueItem, annotator: String, keywords: [String], attempt: Int) -> [FeedbackItem] {
        let shown = item.suggestions.map(\.keyword)
        return keywords.map { keyword in
            FeedbackItem(name: item.name, keyword: keyword, action: shown.contains(keyword) ? .accept : .correct,
                         shown: shown, model: item.model, annotator: annotator,
                         clientID: FeedbackRules.queueClientID(item: item.id, annotator: annotator, attempt: attempt,
                                                                       keyword: keyword))
        }
    }
}
