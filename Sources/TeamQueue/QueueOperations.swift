// The queue's operations, written once for every store: each runs inside a store's critical section (the
// file lock, a database transaction) against a workspace that reads and writes that store's items. Item ids and
// annotator names are taken in the form every store keeps (`QueueRules.canonicalKey`).
import StoreInterface

/// What an operation reads and writes, inside its store's critical section. Items a workspace returns are
/// held for the rest of the operation: no other process changes them until it ends.
package protocol QueueWorkspace {
    /// The item with `id`, or nil.
    mutating func item(_ id: String) throws(QueueError) -> QueueItem?
    /// Items a lease for `request` may take, best first by its order; the operation takes at most `request.count`
    /// of them and stops reading there. A store may return items the lease cannot take (the operation checks
    /// each with `canLease`), but never skip one it could take, unless another lease is taking it right now.
    mutating func candidates(for request: LeaseRequest, at now: QueueTime, _ take: (QueueItem) -> Bool) throws(QueueError)
    mutating func save(_ item: QueueItem) throws(QueueError)
    /// How many items `annotator` holds at `now` (holds not expired), counted so that two leases for one annotator
    /// at once cannot both take the last places under the cap.
    mutating func heldCount(by annotator: String, at now: QueueTime) throws(QueueError) -> Int
    /// The annotator's `limit` latest decisions, newest first.
    mutating func latestDecisions(of annotator: String, limit: Int) throws(QueueError) -> [QueueDecision]
    /// How many decisions the annotator made on the item, undone ones included.
    mutating func decisionCount(of annotator: String, on item: String) throws(QueueError) -> Int
    mutating func nextDecisionID() throws(QueueError) -> Int64
    /// Records a new decision, or a changed one (undone).
    mutating func record(_ decision: QueueDecision) throws(QueueError)
}

/// The operations. `feedback` stores a label's feedback records and returns their ids.
package struct QueueOperations {
    package var policy: QueuePolicy
    package var feedback: ([FeedbackItem]) throws(KeywordStoreError) -> [FeedbackReceipt]

    package init(policy: QueuePolicy, feedback: @escaping ([FeedbackItem]) throws(KeywordStoreError) -> [FeedbackReceipt]) {
        self.policy = policy
        self.feedback = feedback
    }

    /// The operations of a queue whose labels' feedback goes to `store`.
    package init(policy: QueuePolicy, feedbackStore store: any KeywordStore) {
        self.init(policy: policy) { (items: [FeedbackItem]) throws(KeywordStoreError) -> [FeedbackReceipt] in
            try store.appendFeedback(items)
        }
    }

    /// New ids are queued or labelled by the model; the same id with the same name, or a name with the same name
    /// key, is a duplicate; the same id with a new name starts over under the new name. Submissions apply in order, as separate calls would: an id
    /// given twice in one call with two names is renamed by the second.
    package func enqueue(_ submissions: [QueueSubmission], at now: QueueTime,
                 in workspace: inout some QueueWorkspace) throws(QueueError) -> EnqueueSummary {
        var summary = EnqueueSummary()
        var seen: [String: QueueItem] = [:]
        for var submission in submissions {
            submission.id = QueueRules.canonicalKey(submission.id)
            if let earlier = seen[submission.id] {
                if earlier.isSame(as: submission) {
                    summary.duplicates += 1
                    continue
                }
            } else if let existing = try workspace.item(submission.id), existing.isSame(as: submission) {
                seen[submission.id] = existing
                summary.duplicates += 1
                continue
            }
            let item = QueueItem(submission, at: now, policy: policy)
            // Nothing is written that a store would refuse to read back.
            do {
                try QueueRules.check(item)
            } catch {
                throw .store(.failed("item '\(item.id)' breaks the queue's rules: \(error.message)"))
            }
            seen[submission.id] = item
            try workspace.save(item)
            if item.memoryLabel != nil {
                summary.fromMemory += 1
            } else if item.modelKeyword != nil {
                summary.autoAccepted += 1
            } else {
                summary.queued += 1
            }
        }
        return summary
    }

    /// Holds up to `request.count` items for the annotator under a new lease, and no more than the annotator's
    /// room under `policy.leaseCap`: earlier leases are kept, a lease at the cap is empty.
    package func lease(_ request: LeaseRequest, id: String, at now: QueueTime,
               in workspace: inout some QueueWorkspace) throws(QueueError) -> QueueLease {
        var request = request
        request.annotator = QueueRules.canonicalKey(request.annotator)
        let until = now + policy.leaseMillis
        let room = policy.leaseCap - (try workspace.heldCount(by: request.annotator, at: now))
        guard room > 0 else { return QueueLease(id: id, expiresAt: until, items: []) }
        request.count = min(request.count, room)
        var taken: [QueueItem] = []
        try workspace.candidates(for: request, at: now) { item in
            if item.canLease(to: request.annotator, at: now), request.keyword == nil || item.topKeyword == request.keyword {
                var held = item
                held.hold(for: request.annotator, lease: id, at: now, until: until)
                taken.append(held)
            }
            return taken.count < request.count
        }
        for item in taken { try workspace.save(item) }
        return QueueLease(id: id, expiresAt: until, items: taken)
    }

    /// Applies a label (to one item or many), a skip or a flag, all or none; writes a label's feedback first, every
    /// item's in one batch, which the store takes all or none: when one record is refused, no item's feedback is
    /// stored and no item is decided.
    package func decide(_ request: DecisionRequest, at now: QueueTime,
                in workspace: inout some QueueWorkspace) throws(QueueError) -> [QueueDecision] {
        var request = request
        request.annotator = QueueRules.canonicalKey(request.annotator)
        request.ids = request.ids.map(QueueRules.canonicalKey)
        var items: [QueueItem] = []
        for id in request.ids where !items.contains(where: { $0.id == id }) {
            guard let item = try workspace.item(id) else { throw .unknownItem(id) }
            try item.check(request.annotator, lease: request.lease)
            items.append(item)
        }
        var records: [FeedbackItem] = []
        for item in items {
            let attempt = try workspace.decisionCount(of: request.annotator, on: item.id)
            guard attempt < policy.maxDecisionsPerItem else { throw .tooManyDecisions(item.id, policy.maxDecisionsPerItem) }
            if request.kind == .label {
                records += QueuePolicy.feedback(for: item, annotator: request.annotator, keywords: request.keywords,
                                                attempt: attempt)
            }
        }
        var feedbackIDs: [Int64] = []
        if !records.isEmpty {
            do {
                feedbackIDs = try feedback(records).map(\.id)
            } catch {
                throw .store(error)
            }
        }
        let perItem = request.kind == .label ? request.keywords.count : 0
        var previous = try workspace.latestDecisions(of: request.annotator, limit: 1).first?.at
        var decisions: [QueueDecision] = []
        for (index, var item) in items.enumerated() {
            let since = item.hold(of: request.annotator, lease: request.lease)?.since
            let written = Array(feedbackIDs[min(feedbackIDs.count, index * perItem)..<min(feedbackIDs.count, (index + 1) * perItem)])
            let decision = QueueDecision(id: try workspace.nextDecisionID(), annotator: request.annotator, item: item.id,
                                         kind: request.kind, lease: request.lease, keywords: request.keywords,
                                         feedback: written, at: now,
                                         seconds: QueuePolicy.seconds(at: now, held: since, previous: previous),
                                         evidence: request.kind == .label ? QueueEvidence(item: item, keywords: request.keywords) : nil)
            previous = now
            item.apply(decision, skipUntil: now + policy.skipCooldownMillis)
            try workspace.save(item)
            try workspace.record(decision)
            decisions.append(decision)
        }
        return decisions
    }

    /// Reverts the annotator's latest decision within reach; the item returns to their lease. Refused when the item
    /// cannot go back to them (`QueueItem.undoProblem`): the decision stands.
    package func undo(annotator: String, at now: QueueTime, in workspace: inout some QueueWorkspace) throws(QueueError) -> QueueDecision {
        let annotator = QueueRules.canonicalKey(annotator)
        let latest = try workspace.latestDecisions(of: annotator, limit: policy.undoDepth)
        guard var decision = policy.undoTarget(latest) else { throw .nothingToUndo }
        guard var item = try workspace.item(decision.item) else { throw .unknownItem(decision.item) }
        if let problem = item.undoProblem(decision, at: now) { throw .cannotUndo(item.id, problem) }
        item.revert(decision, at: now, until: now + policy.leaseMillis)
        decision.undone = true
        try workspace.save(item)
        try workspace.record(decision)
        return decision
    }
}

extension QueueStats {
    /// The median of `values` (the mean of the middle two for an even count); nil for none.
    package static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
