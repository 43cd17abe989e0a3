// The annotation queue in a file beside the overlay, safe for any number of processes on one machine.
import Foundation
import Locking
import Platform
import StoreInterface
import TeamQueue
#if canImport(Glibc)
import Glibc
#endif

/// The queue as an append-only JSON-lines log (`QueueLine`: the latest state of an item, or a decision; a later
/// line wins), guarded by an exclusive `flock` on a lock file beside it.
///
/// Every operation takes the lock, reads what other processes appended since this one last looked, runs the
/// operation against that state, appends the lines it changed, fsyncs and unlocks. So a lease in one process
/// and a lease in another never take the same item, and an acknowledged decision is on disk. A last line cut
/// short by a crash was never acknowledged: reads skip it and the next append cuts it off. Label feedback goes
/// to the keyword store before the decision's lines are written (see `QueuePolicy.feedback` for why a retry
/// stores it once).
///
/// Files, for the overlay `keywords.overlay.json`: `keywords.overlay.queue.jsonl` and `keywords.overlay.queue.lock`.
public final class FileQueueStore: QueueStore {
    public let path: String
    public let lockPath: String
    public let policy: QueuePolicy
    private let feedbackStore: any KeywordStore
    private let book = Locked(QueueBook())
    /// The log is compacted only past this many lines (see `compactIfLarge`).
    let compactionLines: Int

    public init(overlayPath: String, feedbackStore: any KeywordStore, policy: QueuePolicy, compactionLines: Int = 10_000) {
        self.compactionLines = compactionLines
        let stem = overlayPath.hasSuffix(".json") ? String(overlayPath.dropLast(5)) : overlayPath
        path = stem + ".queue.jsonl"
        lockPath = stem + ".queue.lock"
        self.feedbackStore = feedbackStore
        self.policy = policy
    }

    private var operations: QueueOperations { QueueOperations(policy: policy, feedbackStore: feedbackStore) }

    public func enqueue(_ submissions: [QueueSubmission], at now: QueueTime) throws(QueueError) -> EnqueueSummary {
        let operations = self.operations
        return try write { (workspace: inout BookWorkspace) throws(QueueError) in
            try operations.enqueue(submissions, at: now, in: &workspace)
        }
    }

    public func lease(_ request: LeaseRequest, at now: QueueTime) throws(QueueError) -> QueueLease {
        let operations = self.operations
        return try write { (workspace: inout BookWorkspace) throws(QueueError) in
            try operations.lease(request, id: LeaseID.make(), at: now, in: &workspace)
        }
    }

    public func decide(_ request: DecisionRequest, at now: QueueTime) throws(QueueError) -> [QueueDecision] {
        let operations = self.operations
        return try write { (workspace: inout BookWorkspace) throws(QueueError) in
            try operations.decide(request, at: now, in: &workspace)
        }
    }

    public func undo(annotator: String, at now: QueueTime) throws(QueueError) -> QueueDecision {
        let operations = self.operations
        return try write { (workspace: inout BookWorkspace) throws(QueueError) in
            try operations.undo(annotator: annotator, at: now, in: &workspace)
        }
    }

    public func stats(at now: QueueTime) throws(QueueError) -> QueueStats {
        try read { $0.stats(at: now) }
    }

    /// Pages of the labels from a sorted list the book keeps until the next change, so an export's pages cost
    /// one sort in all.
    public func labels(after cursor: LabelCursor?, limit: Int) throws(QueueError) -> [QueueLabel] {
        try read { book in
            let sorted = book.sortedLabels ?? SortedQueueList(book.items.values.lazy.compactMap(\.label))
            book.sortedLabels = sorted
            return sorted.page(after: cursor, limit: limit)
        }
    }

    public func flagged(after cursor: LabelCursor?, limit: Int) throws(QueueError) -> [QueueFlag] {
        try read { book in
            let sorted = book.sortedFlags ?? SortedQueueList(book.items.values.lazy.compactMap(QueueFlag.init))
            book.sortedFlags = sorted
            return sorted.page(after: cursor, limit: limit)
        }
    }

    public func withdrawnFeedback() throws(QueueError) -> Set<Int64> {
        try read { $0.withdrawn }
    }

    public func evidence(model: String?) throws(QueueError) -> [QueueEvidence] {
        try read { book in
            book.decisions.values.sorted { $0.id < $1.id }.compactMap { decision in
                guard !decision.undone, let evidence = decision.evidence else { return nil }
                return model == nil || evidence.model == model ? evidence : nil
            }
        }
    }

    public func keywordCounts() throws(QueueError) -> [String: QueueKeywordCounts] {
        try read { $0.keywordCounts }
    }

    // MARK: Locking and the log

    /// Runs `body` on the up-to-date book under the lock.
    private func read<T>(_ body: (inout QueueBook) -> T) throws(QueueError) -> T {
        try catchUp()
        return try QueueLogFile.withLock(lockPath) { () throws(QueueError) -> T in
            try book.withLock { (book: inout QueueBook) throws(QueueError) -> T in
                try refresh(&book)
                return body(&book)
            }
        }
    }

    /// Runs an operation under the lock, then appends and fsyncs the lines it changed and applies them.
    private func write<T>(_ body: (inout BookWorkspace) throws(QueueError) -> T) throws(QueueError) -> T {
        try catchUp()
        return try QueueLogFile.withLock(lockPath) { () throws(QueueError) -> T in
            try book.withLock { (book: inout QueueBook) throws(QueueError) -> T in
                try refresh(&book)
                // The workspace shares the book's storage: it must be gone before the book changes, or the
                // change would copy every item.
                let (result, lines) = try { () throws(QueueError) -> (T, [QueueLine]) in
                    var workspace = BookWorkspace(book: book)
                    let result = try body(&workspace)
                    return (result, workspace.lines)
                }()
                guard !lines.isEmpty else { return result }
                let bytes = lines.flatMap { $0.encoded() } + QueueLine.commit.encoded()
                do throws(KeywordStoreError) {
                    try QueueLogFile.append(bytes, to: path, keepingFirst: book.scanned)
                } catch {
                    throw .store(error)
                }
                for line in lines { book.apply(line) }
                book.scanned += bytes.count
                book.lines += lines.count + 1
                try compactIfLarge(&book)
                return result
            }
        }
    }

    /// Rewrites the log as one line per item and decision once it has grown past four times that (and past
    /// `compactionLines`): a new file beside it, fsynced, renamed over it. Other processes see another file and read
    /// it whole. Runs under the lock, after an operation.
    private func compactIfLarge(_ book: inout QueueBook) throws(QueueError) {
        let live = book.items.count + book.decisions.count
        guard book.lines > compactionLines, book.lines > 4 * (live + 1) else { return }
        var bytes: [UInt8] = []
        for item in book.items.values { bytes += QueueLine.item(item).encoded() }
        for decision in book.decisions.values.sorted(by: { $0.id < $1.id }) { bytes += QueueLine.decision(decision).encoded() }
        bytes += QueueLine.commit.encoded()
        do throws(KeywordStoreError) {
            let file = try QueueLogFile.replace(path, with: bytes)
            book.device = file.device
            book.inode = file.inode
            book.scanned = bytes.count
            book.lines = live + 1
        } catch {
            throw .store(error)
        }
    }

    /// Reads what other processes committed since, without the file lock: committed lines never change and the
    /// log is only cut back to a commit, so this is safe, and a process reading a large log for the first time
    /// does not hold up the others. Under the lock only the last few lines are then left to read.
    private func catchUp() throws(QueueError) {
        try book.withLock { (book: inout QueueBook) throws(QueueError) in try refresh(&book) }
    }

    private func refresh(_ book: inout QueueBook) throws(QueueError) {
        do {
            try book.refresh(path: path)
        } catch {
            throw .store(error)
        }
    }
}

/// A book seen through one operation: reads see the operation's own changes; nothing reaches the book until
/// its lines are on disk.
struct BookWorkspace: QueueWorkspace {
    let book: QueueBook
    private var changedItems: [String: QueueItem] = [:]
    private var changedDecisions: [Int64: QueueDecision] = [:]
    private var nextID: Int64
    private(set) var lines: [QueueLine] = []

    init(book: QueueBook) {
        self.book = book
        nextID = book.lastDecisionID
    }

    mutating func item(_ id: String) -> QueueItem? { changedItems[id] ?? book.items[id] }

    mutating func candidates(for request: LeaseRequest, at now: QueueTime, _ take: (QueueItem) -> Bool) {
        // The best `count` eligible items, found in one pass over the compact index of the open ones: an entry
        // is looked at whole only when it would make the best so far.
        var best: [(key: QueueOrderKey, item: QueueItem)] = []
        let order = request.order
        for entry in book.openEntries.values {
            if let keyword = request.keyword, entry.top != keyword { continue }
            if entry.leasableFrom > now { continue }
            if best.count == request.count, let last = best.last, !order.precedes(entry.key, last.key) { continue }
            guard let item = changedItems[entry.key.id] ?? book.items[entry.key.id],
                  item.canLease(to: request.annotator, at: now) else { continue }
            let index = best.partitioningIndex { order.precedes(entry.key, $0.key) }
            best.insert((entry.key, item), at: index)
            if best.count > request.count { best.removeLast() }
        }
        for (_, item) in best where !take(item) { break }
    }

    mutating func save(_ item: QueueItem) {
        changedItems[item.id] = item
        lines.append(.item(item))
    }

    mutating func heldCount(by annotator: String, at now: QueueTime) -> Int {
        // Only open items are held; the index says which of them have a hold that has not expired.
        var count = 0
        for entry in book.openEntries.values where entry.heldUntil > now {
            let item = changedItems[entry.key.id] ?? book.items[entry.key.id]
            if item?.holds.contains(where: { $0.annotator == annotator && $0.until > now }) == true { count += 1 }
        }
        return count
    }

    mutating func latestDecisions(of annotator: String, limit: Int) -> [QueueDecision] {
        let ids = (book.byAnnotator[annotator] ?? []).suffix(limit).reversed()
        let mine = changedDecisions.values.filter { $0.annotator == annotator && book.decisions[$0.id] == nil }
        let stored = ids.compactMap { changedDecisions[$0] ?? book.decisions[$0] }
        return Array((mine + stored).sorted { $0.id > $1.id }.prefix(limit))
    }

    mutating func decisionCount(of annotator: String, on item: String) -> Int {
        let pending = changedDecisions.values.filter {
            $0.annotator == annotator && $0.item == item && book.decisions[$0.id] == nil
        }.count
        return (book.attempts[QueueBook.attemptKey(annotator, item)] ?? 0) + pending
    }

    mutating func nextDecisionID() -> Int64 {
        nextID += 1
        return nextID
    }

    mutating func record(_ decision: QueueDecision) {
        changedDecisions[decision.id] = decision
        lines.append(.decision(decision))
    }
}
