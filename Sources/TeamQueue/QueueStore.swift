// The annotation queue's store contract: the file store and the PostgreSQL store both implement it, with the
// same operations (QueueOperations) inside their own critical sections.
#if canImport(Glibc)
import Glibc
#endif

/// Where the queue lives. Every operation is atomic and exclusive across processes and replicas sharing the
/// store: an item leased to one annotator is not leased to another until it is decided, skipped, flagged or its
/// lease expires (overlap items are leased to two annotators on purpose).
public protocol QueueStore: AnyObject, Sendable {
    var policy: QueuePolicy { get }
    func enqueue(_ submissions: [QueueSubmission], at now: QueueTime) throws(QueueError) -> EnqueueSummary
    func lease(_ request: LeaseRequest, at now: QueueTime) throws(QueueError) -> QueueLease
    /// Applies a decision to each of its items, all or none, and returns one stored decision per item.
    func decide(_ request: DecisionRequest, at now: QueueTime) throws(QueueError) -> [QueueDecision]
    /// Reverts the annotator's latest decision (up to `policy.undoDepth` back) and returns it, marked undone.
    func undo(annotator: String, at now: QueueTime) throws(QueueError) -> QueueDecision
    func stats(at now: QueueTime) throws(QueueError) -> QueueStats
    /// Current labels after `cursor` in (time, id) order, at most `limit`.
    func labels(after cursor: LabelCursor?, limit: Int) throws(QueueError) -> [QueueLabel]
    /// Flagged items after `cursor` in (flag time, id) order, at most `limit`.
    func flagged(after cursor: LabelCursor?, limit: Int) throws(QueueError) -> [QueueFlag]
    /// Feedback records written by decisions that were undone since: they leave the training data.
    func withdrawnFeedback() throws(QueueError) -> Set<Int64>
    /// The evidence of every standing (not undone) label on items `model` suggested, in decision order; every
    /// model's when nil.
    func evidence(model: String?) throws(QueueError) -> [QueueEvidence]
    /// Open and auto-accepted items per first-suggested keyword (items without suggestions are left out).
    func keywordCounts() throws(QueueError) -> [String: QueueKeywordCounts]
}

/// What the lease orders compare: the top confidence, the arrival, the id.
public struct QueueOrderKey: Sendable, Equatable {
    public var confidence: Double
    public var enqueuedAt: QueueTime
    public var id: String

    @inlinable
    public init(confidence: Double, enqueuedAt: QueueTime, id: String) {
        self.confidence = confidence
        self.enqueuedAt = enqueuedAt
        self.id = id
    }
}

extension QueueItem {
    public var orderKey: QueueOrderKey { QueueOrderKey(confidence: confidence, enqueuedAt: enqueuedAt, id: id) }
}

extension QueueOrder {
    /// Whether `a` goes before `b` in this order; ties fall to arrival, then id, so the order is total. Inlinable:
    /// a file store's lease compares once per open item.
    @inlinable
    public func precedes(_ a: QueueOrderKey, _ b: QueueOrderKey) -> Bool {
        switch self {
        case .uncertain where a.confidence != b.confidence: return a.confidence < b.confidence
        case .confident where a.confidence != b.confidence: return a.confidence > b.confidence
        default: return (a.enqueuedAt, a.id) < (b.enqueuedAt, b.id)
        }
    }
}

/// Lease ids: 128 random bits in hex.
package enum LeaseID {
    package static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let parts = [generator.next(), generator.next()] as [UInt64]
        return parts.map { part in
            let hex = String(part, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}

/// The current time for the queue: the system clock in milliseconds.
public enum SystemQueueClock {
    public static let now: QueueClock = {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return QueueTime(spec.tv_sec) * 1000 + QueueTime(spec.tv_nsec / 1_000_000)
    }
}
