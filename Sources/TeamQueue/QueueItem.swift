// One queued product and the rules that move it: who may lease it, what a label, skip, flag or undo does to
// it, and what its current label is. Pure values: both stores load items, apply these rules and save them.

/// One annotator's label on an item.
public struct QueueVote: Sendable, Equatable {
    public var annotator: String
    public var keywords: [String]
    public var decision: Int64
    public var at: QueueTime
    public init(annotator: String, keywords: [String], decision: Int64, at: QueueTime) {
        self.annotator = annotator
        self.keywords = keywords
        self.decision = decision
        self.at = at
    }

    /// Two labels agree when they hold the same keywords, in any order.
    func agrees(with other: QueueVote) -> Bool { Set(keywords) == Set(other.keywords) }
}

/// An item in one annotator's lease until `until`.
public struct QueueHold: Sendable, Equatable {
    public var annotator: String
    public var lease: String
    public var since: QueueTime
    public var until: QueueTime
    public init(annotator: String, lease: String, since: QueueTime, until: QueueTime) {
        self.annotator = annotator
        self.lease = lease
        self.since = since
        self.until = until
    }
}

/// An annotator who skipped the item, and until when it is not leased to them again.
public struct QueueSkip: Sendable, Equatable {
    public var annotator: String
    public var until: QueueTime
    public init(annotator: String, until: QueueTime) {
        self.annotator = annotator
        self.until = until
    }
}

/// Where an item stands.
public enum QueueItemState: String, Sendable, Equatable, CaseIterable {
    /// Waiting for (more) people: in a lease or not.
    case open
    /// Has its final label (from the model, one annotator, two who agree, or a third).
    case labelled
    /// Set aside by an annotator.
    case flagged
}

/// A product in the queue with the model's answer, the routing chosen when it arrived, and what people did.
public struct QueueItem: Sendable, Equatable {
    public var id: String
    public var name: String
    public var model: String?
    public var suggestions: [QueueSuggestion]
    public var enqueuedAt: QueueTime
    /// Labelled by two annotators (a third when they disagree).
    public var overlap: Bool
    /// The model's label, when its answer was auto-accepted: the top suggestion.
    public var modelKeyword: String?
    /// An auto-accepted item also queued for one person to check.
    public var audit: Bool
    /// The decision memory's label, when the name was decided before: no person is asked.
    public var memoryLabel: QueueMemoryLabel?
    /// The name's key when it arrived (`QueueSubmission.nameKey`).
    public var nameKey: String?
    /// The first suggestion's category when the item arrived (what the auto-accept rule pooled it with).
    public var category: String?
    /// Whether the first suggestion was the head of the name when the item arrived (`QueueSubmission.firstIsHead`).
    public var firstIsHead = true
    public var votes: [QueueVote] = []
    public var holds: [QueueHold] = []
    public var skips: [QueueSkip] = []
    public var flag: QueueVote?

    public init(id: String, name: String, model: String?, suggestions: [QueueSuggestion], enqueuedAt: QueueTime,
                overlap: Bool, modelKeyword: String?, audit: Bool, category: String? = nil) {
        self.id = id
        self.name = name
        self.model = model
        self.suggestions = suggestions
        self.enqueuedAt = enqueuedAt
        self.overlap = overlap
        self.modelKeyword = modelKeyword
        self.audit = audit
        self.category = category
    }

    /// A new item from a submission, routed by `policy`. A submission the memory labels is neither the model's
    /// nor routed to people.
    public init(_ submission: QueueSubmission, at now: QueueTime, policy: QueuePolicy) {
        if let memory = submission.memory, !memory.keywords.isEmpty {
            self.init(id: submission.id, name: submission.name, model: submission.model, suggestions: submission.suggestions,
                      enqueuedAt: now, overlap: false, modelKeyword: nil, audit: false)
            memoryLabel = memory
            nameKey = submission.nameKey
            return
        }
        let top = submission.suggestions.first?.keyword
        let modelKeyword = submission.autoAccept ? top : nil
        self.init(id: submission.id, name: submission.name, model: submission.model, suggestions: submission.suggestions,
                  enqueuedAt: now, overlap: modelKeyword == nil && policy.routesToOverlap(submission.id),
                  modelKeyword: modelKeyword, audit: modelKeyword != nil && policy.routesToAudit(submission.id),
                  category: submission.category)
        nameKey = submission.nameKey
        firstIsHead = submission.firstIsHead
    }

    public var topKeyword: String? { suggestions.first?.keyword }
    /// The top suggestion's confidence; 0 for a model without calibration or a name with no suggestions.
    public var confidence: Double { suggestions.first?.confidence ?? 0 }

    // MARK: Derived state

    /// How many annotators must label the item: none for an auto-accepted one (one when it is audited), one
    /// normally, two for an overlap item, three once those two disagree.
    public var needed: Int {
        if memoryLabel != nil { return 0 }
        if modelKeyword != nil { return audit ? 1 : 0 }
        guard overlap else { return 1 }
        return votes.count >= 2 && !votes[0].agrees(with: votes[1]) ? 3 : 2
    }

    /// The vote that decides the item: the only one, the second of two that agree, or of three the latest that
    /// another agrees with (the third's own when all three differ). Nil while more labels are needed.
    public var decidingVote: QueueVote? {
        let needed = self.needed
        guard needed > 0, votes.count >= needed else { return nil }
        let counted = Array(votes.prefix(needed))
        if needed == 3 {
            return counted.reversed().first { vote in counted.contains { $0.decision != vote.decision && $0.agrees(with: vote) } }
                ?? counted[2]
        }
        return counted[needed - 1]
    }

    public var state: QueueItemState {
        if flag != nil { return .flagged }
        return votes.count >= needed ? .labelled : .open
    }

    /// The current label: the deciding annotator's, else the memory's, else the model's.
    public var label: QueueLabel? {
        if let vote = decidingVote {
            return QueueLabel(id: id, name: name, keywords: vote.keywords, decidedBy: .annotator, annotator: vote.annotator,
                              model: model, at: vote.at)
        }
        if let memoryLabel {
            return QueueLabel(id: id, name: name, keywords: memoryLabel.keywords, decidedBy: .memory, annotator: nil,
                              model: model, at: enqueuedAt, annotators: memoryLabel.annotators)
        }
        guard let modelKeyword else { return nil }
        return QueueLabel(id: id, name: name, keywords: [modelKeyword], decidedBy: .model, annotator: nil, model: model,
                          at: enqueuedAt)
    }

    /// Holds that have not expired at `now`.
    public func activeHolds(at now: QueueTime) -> [QueueHold] { holds.filter { $0.until > now } }

    /// True while some annotator holds the open item.
    public func isLeased(at now: QueueTime) -> Bool { state == .open && holds.contains { $0.until > now } }

    /// Whether a lease for `annotator` may take the item now: it is open, needs another person, and this
    /// annotator has not labelled it, does not hold it and is not cooling down after skipping it.
    public func canLease(to annotator: String, at now: QueueTime) -> Bool {
        guard state == .open, !votes.contains(where: { $0.annotator == annotator }) else { return false }
        guard !holds.contains(where: { $0.annotator == annotator && $0.until > now }) else { return false }
        guard !skips.contains(where: { $0.annotator == annotator && $0.until > now }) else { return false }
        return votes.count + activeHolds(at: now).count < needed
    }

    /// The earliest time anyone may lease the item, counting every hold it carries as if none had expired: its
    /// arrival while it needs more people than hold it, else the first hold's expiry; nil once it is labelled or
    /// flagged. Never later than the item really becomes leasable, so a store can index it to find candidates.
    public var leasableFrom: QueueTime? {
        guard state == .open else { return nil }
        if votes.count + holds.count < needed { return enqueuedAt }
        return holds.map(\.until).min()
    }

    /// How an audited item's check came out: nil before a person labelled it, else whether they kept the model's keyword.
    public var auditOutcome: Bool? {
        guard audit, let modelKeyword, let first = votes.first else { return nil }
        return first.keywords.contains(modelKeyword)
    }

    /// How an overlap item's double labelling came out: nil before two labels, else whether they agree.
    public var overlapOutcome: Bool? {
        guard overlap, votes.count >= 2 else { return nil }
        return votes[0].agrees(with: votes[1])
    }

    // MARK: Transitions

    /// Adds `annotator`'s hold under `lease`; expired holds of others are dropped.
    public mutating func hold(for annotator: String, lease: String, at now: QueueTime, until: QueueTime) {
        holds.removeAll { $0.until <= now || $0.annotator == annotator }
        holds.append(QueueHold(annotator: annotator, lease: lease, since: now, until: until))
    }

    /// The annotator's hold under `lease`, expired or not, as long as nobody took the item over since.
    public func hold(of annotator: String, lease: String) -> QueueHold? {
        holds.first { $0.annotator == annotator && $0.lease == lease }
    }

    /// Checks that `decision` may be applied: the item is open and held by its annotator under its lease.
    public func check(_ annotator: String, lease: String) throws(QueueError) {
        guard state == .open else { throw .notOpen(id) }
        guard hold(of: annotator, lease: lease) != nil else { throw .notHeld(id) }
    }

    /// Applies a checked decision: the hold ends, and the label, skip or flag is recorded.
    public mutating func apply(_ decision: QueueDecision, skipUntil: QueueTime) {
        holds.removeAll { $0.annotator == decision.annotator }
        let vote = QueueVote(annotator: decision.annotator, keywords: decision.keywords, decision: decision.id, at: decision.at)
        switch decision.kind {
        case .label:
            votes.append(vote)
        case .skip:
            skips.removeAll { $0.annotator == decision.annotator }
            skips.append(QueueSkip(annotator: decision.annotator, until: skipUntil))
        case .flag:
            flag = vote
        }
    }

    /// Reverts `decision` and gives the item back to its annotator's lease until `until`.
    /// Check `undoProblem` first.
    public mutating func revert(_ decision: QueueDecision, at now: QueueTime, until: QueueTime) {
        _ = removeEffect(of: decision)
        holds.removeAll { $0.annotator == decision.annotator }
        holds.append(QueueHold(annotator: decision.annotator, lease: decision.lease, since: now, until: until))
    }

    /// Why `decision` cannot be reverted now, or nil. Its effect must still be on the item (a rename sets what
    /// people did aside), and the item must be one its annotator could hold again under the lease rules: open,
    /// and not held by as many other annotators as it needs.
    public func undoProblem(_ decision: QueueDecision, at now: QueueTime) -> String? {
        var reverted = self
        guard reverted.removeEffect(of: decision) else { return "the product was renamed since" }
        guard reverted.state == .open else { return "other annotators labelled or flagged it, even without this decision" }
        let others = reverted.activeHolds(at: now).filter { $0.annotator != decision.annotator }.count
        guard reverted.votes.count + others < reverted.needed else { return "another annotator holds it now" }
        return nil
    }

    /// Takes `decision`'s label, skip or flag off the item; false when it is not there.
    private mutating func removeEffect(of decision: QueueDecision) -> Bool {
        switch decision.kind {
        case .label:
            guard votes.contains(where: { $0.decision == decision.id }) else { return false }
            votes.removeAll { $0.decision == decision.id }
        case .skip:
            guard skips.contains(where: { $0.annotator == decision.annotator }) else { return false }
            skips.removeAll { $0.annotator == decision.annotator }
        case .flag:
            guard flag?.decision == decision.id else { return false }
            flag = nil
        }
        return true
    }

    /// Takes a new name (the product was renamed): everything people did on the old name is set aside.
    public mutating func rename(to submission: QueueSubmission, at now: QueueTime, policy: QueuePolicy) {
        self = QueueItem(submission, at: now, policy: policy)
    }

    /// Whether `submission` is this item as it stands (same name): nothing to do.
    /// The same name, or one with the same non-empty name key (a cosmetic change of the listing).
    public func isSame(as submission: QueueSubmission) -> Bool {
        name == submission.name || (nameKey.map { !$0.isEmpty && $0 == submission.nameKey } ?? false)
    }
}
