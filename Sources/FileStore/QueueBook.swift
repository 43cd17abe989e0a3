// The file store's in-memory queue: every item and decision as the log holds them, with a compact index of the
// open items (what a lease scans) and running counts (what the figures need), kept up to date line by line.
import StoreInterface
import TeamQueue
#if canImport(Glibc)
import Glibc
#endif

/// What a lease and the figures need of an open item: small enough to scan 100,000 of in a few milliseconds.
struct OpenEntry: Sendable {
    var key: QueueOrderKey
    var top: String?
    /// See `QueueItem.leasableFrom`.
    var leasableFrom: QueueTime
    /// The last expiry of its holds (0 without holds): leased while it is later than now.
    var heldUntil: QueueTime

    init(_ item: QueueItem) {
        key = item.orderKey
        top = item.topKeyword
        leasableFrom = item.leasableFrom ?? .max
        heldUntil = item.holds.map(\.until).max() ?? 0
    }
}

/// Counts over all items that do not depend on the time, kept as items change.
struct ItemCounts: Sendable, Equatable {
    var open = 0, labelled = 0, flagged = 0
    var autoAccepted = 0, audited = 0, auditAgreed = 0, overlapItems = 0, agreed = 0

    /// Adds (`sign` 1) or takes away (-1) one item's part.
    mutating func add(_ item: QueueItem, _ sign: Int) {
        switch item.state {
        case .open: open += sign
        case .labelled: labelled += sign
        case .flagged: flagged += sign
        }
        if item.modelKeyword != nil { autoAccepted += sign }
        if let outcome = item.auditOutcome {
            audited += sign
            if outcome { auditAgreed += sign }
        }
        if let outcome = item.overlapOutcome {
            overlapItems += sign
            if outcome { agreed += sign }
        }
    }
}

/// The queue as the log holds it, kept between operations: re-read only from where the last read stopped.
struct QueueBook: Sendable {
    var items: [String: QueueItem] = [:]
    /// The open items: the only ones a lease looks at.
    var openEntries: [String: OpenEntry] = [:]
    var counts = ItemCounts()
    /// Open and auto-accepted items per first-suggested keyword.
    var keywordCounts: [String: QueueKeywordCounts] = [:]
    var decisions: [Int64: QueueDecision] = [:]
    /// Each annotator's decision ids, oldest first.
    var byAnnotator: [String: [Int64]] = [:]
    var attempts: [String: Int] = [:]
    var lastDecisionID: Int64 = 0
    var withdrawn: Set<Int64> = []
    var device: UInt64 = 0
    var inode: UInt64 = 0
    /// Bytes read and applied so far: always the end of a commit line.
    var scanned = 0
    var lines = 0
    /// The labels and the flags sorted for the exports' pages, made by the first page read after a change and
    /// dropped by the next change.
    var sortedLabels: SortedQueueList<QueueLabel>?
    var sortedFlags: SortedQueueList<QueueFlag>?

    mutating func apply(_ line: QueueLine) {
        sortedLabels = nil
        sortedFlags = nil
        switch line {
        case .commit:
            break
        case .item(let item):
            if let previous = items.updateValue(item, forKey: item.id) {
                counts.add(previous, -1)
                if let top = previous.topKeyword { keywordCounts[top, default: QueueKeywordCounts()].add(previous, -1) }
            }
            counts.add(item, 1)
            if let top = item.topKeyword { keywordCounts[top, default: QueueKeywordCounts()].add(item, 1) }
            openEntries[item.id] = item.state == .open ? OpenEntry(item) : nil
        case .decision(let decision):
            if decisions.updateValue(decision, forKey: decision.id) == nil {
                byAnnotator[decision.annotator, default: []].append(decision.id)
                attempts[Self.attemptKey(decision.annotator, decision.item), default: 0] += 1
            }
            lastDecisionID = max(lastDecisionID, decision.id)
            if decision.undone { withdrawn.formUnion(decision.feedback) }
        }
    }

    /// The figures at `now`.
    func stats(at now: QueueTime) -> QueueStats {
        var stats = QueueStats()
        let leased = openEntries.values.reduce(0) { $0 + ($1.heldUntil > now ? 1 : 0) }
        stats.items = QueueStats.Items(queued: counts.open - leased, leased: leased, labelled: counts.labelled,
                                       flagged: counts.flagged)
        stats.autoAccepted = counts.autoAccepted
        stats.audited = counts.audited
        stats.auditAgreed = counts.auditAgreed
        stats.overlapItems = counts.overlapItems
        stats.agreed = counts.agreed
        var seconds: [String: [Double]] = [:]
        for decision in decisions.values where !decision.undone {
            seconds[decision.annotator, default: []].append(decision.seconds)
        }
        for (annotator, values) in seconds {
            stats.annotators[annotator] = QueueStats.Annotator(decisions: values.count, medianSeconds: QueueStats.median(values))
        }
        return stats
    }

    static func attemptKey(_ annotator: String, _ item: String) -> String { annotator + "\u{0}" + item }

    /// Reads the operations committed since the last read; starts over when the file was replaced or cut shorter.
    mutating func refresh(path: String) throws(KeywordStoreError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { self = QueueBook(); return }
            throw QueueLogFile.failure("open", path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw QueueLogFile.failure("fstat", path) }
        let size = Int(info.st_size)
        if UInt64(info.st_dev) != device || UInt64(info.st_ino) != inode || size < scanned {
            self = QueueBook()
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
        guard size > scanned else { return }
        let bytes = try QueueLogFile.read(fd, from: scanned, count: size - scanned, path: path)
        var start = 0, committed = 0
        var pending: [QueueLine] = []
        while let end = bytes[start...].firstIndex(of: 0x0A) {
            let line: QueueLine
            do {
                line = try QueueLine.decode(bytes[start..<end])
            } catch {
                // What was applied stays read, so the next read starts after it and names the same line.
                scanned += committed
                throw .failed("\(path):\(lines + pending.count + 1): \(error)")
            }
            start = end + 1
            guard case .commit = line else {
                pending.append(line)
                continue
            }
            for line in pending { apply(line) }
            lines += pending.count + 1
            pending.removeAll(keepingCapacity: true)
            committed = start
        }
        scanned += committed
    }
}
