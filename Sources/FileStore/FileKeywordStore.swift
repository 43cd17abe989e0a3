// The default store: files beside the overlay, safe for any number of processes on one machine.
import Foundation
import Locking
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface

/// Keyword changes in the overlay file, feedback in an append-only JSON-lines file, each guarded by an
/// exclusive `flock` on a lock file of its own beside them, so a keyword change never waits behind a feedback
/// append (nor the other way round).
///
/// Every keyword change is a read-modify-write under the lock: read the overlay, apply the change, write it
/// atomically (`KeywordOverlayFile.save`), unlock. Every feedback append writes whole lines and fsyncs before
/// unlocking. So any number of processes sharing the files on one machine lose nothing. `flock` is not
/// reliable on network file systems (NFS, RWX volumes); replicas on several machines use PostgreSQL.
///
/// Files, for the overlay `keywords.overlay.json`: its lock `keywords.overlay.lock`, the feedback
/// `keywords.overlay.feedback.jsonl` and its lock `keywords.overlay.feedback.lock`.
public final class FileKeywordStore: KeywordStore {
    public let overlayPath: String
    public let lockPath: String
    public let feedbackLockPath: String
    public let feedbackPath: String
    public var displayName: String { "file:\(overlayPath)" }
    public var kind: String { "file" }
    public var isAvailable: Bool { true }

    private let overlayFile: KeywordOverlayFile
    /// The overlay file's bytes as this store last read or wrote them, and the overlay they hold. While the file
    /// holds exactly these bytes it is not parsed and checked again, and the same overlay value is handed out,
    /// so a caller can tell it from the one it already serves by identity rather than keyword by keyword.
    private let cache = Locked<(bytes: [UInt8], overlay: KeywordOverlay)?>(nil)
    /// Revisions stamped on the overlays this process's file stores hand out (see `KeywordOverlay.revision`).
    private static let revisions = Atomic<UInt64>(0)
    /// The feedback file and what is known of it.
    let feedbackLog: FeedbackLog
    private let lock: FileLock
    private let stopped = Atomic<Bool>(false)
    private let watching = Atomic<Bool>(false)
    /// How often the watcher compares the overlay file's identity, size and modification time.
    private let pollInterval: Double

    public init(overlayPath: String, pollInterval: Double = 0.5) {
        self.overlayPath = overlayPath
        self.pollInterval = pollInterval
        let stem = overlayPath.hasSuffix(".json") ? String(overlayPath.dropLast(5)) : overlayPath
        lockPath = stem + ".lock"
        feedbackLockPath = stem + ".feedback.lock"
        feedbackPath = stem + ".feedback.jsonl"
        lock = FileLock(lockPath: lockPath)
        feedbackLog = FeedbackLog(path: feedbackPath, lock: FileLock(lockPath: feedbackLockPath))
        overlayFile = KeywordOverlayFile(path: overlayPath)
    }

    // MARK: Keywords

    public func loadOverlay() throws(KeywordStoreError) -> KeywordOverlay {
        do {
            guard let bytes = try overlayFile.read() else { return KeywordOverlay() }
            if let cached = cache.withLock({ $0 }), cached.bytes == bytes { return cached.overlay }
            var overlay = try KeywordOverlayFile.decode(bytes, path: overlayPath)
            overlay.revision = Self.revisions.add(1, ordering: .relaxed).newValue
            cache.withLock { $0 = (bytes, overlay) }
            return overlay
        } catch {
            throw .failed("\(error)")
        }
    }

    public func apply(_ change: KeywordChange,
                      check: (KeywordOverlay) throws(KeywordStoreError) -> Void) throws(KeywordStoreError) -> KeywordOverlay {
        try lock.withLock { () throws(KeywordStoreError) -> KeywordOverlay in
            let current = try loadOverlay()
            try check(current)
            let next = current.applying(add: change.add, remove: change.remove)
            return next == current ? current : try save(next)
        }
    }

    public func replaceOverlay(_ overlay: KeywordOverlay,
                               check: (KeywordOverlay) throws(KeywordStoreError) -> Void) throws(KeywordStoreError) {
        try lock.withLock { () throws(KeywordStoreError) in
            try check(overlay)
            _ = try save(overlay)
        }
    }

    /// Writes `overlay` and returns it with the revision it is cached under.
    @discardableResult
    private func save(_ overlay: KeywordOverlay) throws(KeywordStoreError) -> KeywordOverlay {
        do {
            let bytes = KeywordOverlayFile.encode(overlay)
            cache.withLock { $0 = nil }
            try overlayFile.writeFile(bytes)
            var saved = overlay
            saved.revision = Self.revisions.add(1, ordering: .relaxed).newValue
            cache.withLock { $0 = (bytes, saved) }
            return saved
        } catch {
            throw .failed("\(error)")
        }
    }

    // MARK: Feedback (see `FeedbackLog`)

    public func appendFeedback(_ items: [FeedbackItem]) throws(KeywordStoreError) -> [FeedbackReceipt] {
        try feedbackLog.appendFeedback(items)
    }

    public func importFeedback(_ records: [FeedbackRecord]) throws(KeywordStoreError) -> Int {
        try feedbackLog.importFeedback(records)
    }

    public func feedback(after: Int64, limit: Int) throws(KeywordStoreError) -> [FeedbackRecord] {
        try feedbackLog.feedback(after: after, limit: limit)
    }

    public func lastFeedbackID(after: Int64, limit: Int?) throws(KeywordStoreError) -> Int64? {
        try feedbackLog.lastFeedbackID(after: after, limit: limit)
    }

    // MARK: Watching

    /// Also reads the feedback log's index in the background, without its lock, so that the first post after a
    /// start finds it read rather than reading the whole log itself (see `FeedbackLog.catchUp`).
    public func startWatching(_ onChange: @escaping @Sendable (String) -> Void) {
        guard !watching.exchange(true, ordering: .relaxed) else { return }
        let log = feedbackLog
        let reader = Thread { log.catchUp() }
        reader.name = "kwsuggest-feedback-index"
        reader.start()
        FilePoller.start(path: overlayPath, interval: pollInterval, threadName: "kwsuggest-store-watch",
                         reason: "overlay file changed", isStopped: { [weak self] in self?.stopped.load(ordering: .relaxed) ?? true },
                         onChange: onChange)
    }

    public func close() {
        stopped.store(true, ordering: .relaxed)
    }
}
