// The default store: files beside the overlay, safe for any number of processes on one machine.
import Foundation
import Locking
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Keyword changes in the overlay file, feedback in an append-only JSON-lines file, both guarded by an
/// exclusive `flock` on a lock file beside them.
///
/// Every keyword change is a read-modify-write under the lock: read the overlay, apply the change, write it
/// atomically (`KeywordOverlayStore.save`), unlock. Every feedback append writes whole lines and fsyncs before
/// unlocking. So any number of processes sharing the files on one machine lose nothing. `flock` is not
/// reliable on network file systems (NFS, RWX volumes); replicas on several machines use PostgreSQL.
///
/// Files, for the overlay `keywords.overlay.json`: the lock `keywords.overlay.lock`, the feedback
/// `keywords.overlay.feedback.jsonl`.
public final class FileKeywordStore: KeywordStore {
    public let overlayPath: String
    public let lockPath: String
    public let feedbackPath: String
    public var displayName: String { "file:\(overlayPath)" }
    public var kind: String { "file" }
    public var isAvailable: Bool { true }

    private let overlayFile: KeywordOverlayStore
    /// The overlay file's bytes as this store last read or wrote them, and the overlay they hold. While the file
    /// holds exactly these bytes it is not parsed and checked again, and the same overlay value is handed out,
    /// so a caller can tell it from the one it already serves by identity rather than keyword by keyword.
    private let cache = Locked<(bytes: [UInt8], overlay: KeywordOverlay)?>(nil)
    /// Revisions stamped on the overlays this process's file stores hand out (see `KeywordOverlay.revision`).
    private static let revisions = Atomic<UInt64>(0)
    private let index = Locked(FeedbackIndex())
    /// Where earlier scans of the feedback file got to (see `scanFeedback`).
    private let checkpoints = Locked<[ScanCheckpoint]>([])
    private let stopped = Atomic<Bool>(false)
    private let watching = Atomic<Bool>(false)
    /// How often the watcher compares the overlay file's identity, size and modification time.
    private let pollInterval: Double

    public init(overlayPath: String, pollInterval: Double = 0.5) {
        self.overlayPath = overlayPath
        self.pollInterval = pollInterval
        let stem = overlayPath.hasSuffix(".json") ? String(overlayPath.dropLast(5)) : overlayPath
        lockPath = stem + ".lock"
        feedbackPath = stem + ".feedback.jsonl"
        overlayFile = KeywordOverlayStore(path: overlayPath)
    }

    // MARK: Keywords

    public func loadOverlay() throws(KeywordStoreError) -> KeywordOverlay {
        do {
            guard let bytes = try overlayFile.read() else { return KeywordOverlay() }
            if let cached = cache.withLock({ $0 }), cached.bytes == bytes { return cached.overlay }
            var overlay = try KeywordOverlayStore.decode(bytes, path: overlayPath)
            overlay.revision = Self.revisions.add(1, ordering: .relaxed).newValue
            cache.withLock { $0 = (bytes, overlay) }
            return overlay
        } catch {
            throw .failed("\(error)")
        }
    }

    public func apply(_ change: KeywordChange,
                      check: (KeywordOverlay) throws(KeywordStoreError) -> Void) throws(KeywordStoreError) -> KeywordOverlay {
        try withFileLock { () throws(KeywordStoreError) -> KeywordOverlay in
            let current = try loadOverlay()
            try check(current)
            let next = current.applying(add: change.add, remove: change.remove)
            return next == current ? current : try save(next)
        }
    }

    public func replaceOverlay(_ overlay: KeywordOverlay) throws(KeywordStoreError) {
        try withFileLock { () throws(KeywordStoreError) in _ = try save(overlay) }
    }

    /// Writes `overlay` and returns it with the revision it is cached under.
    @discardableResult
    private func save(_ overlay: KeywordOverlay) throws(KeywordStoreError) -> KeywordOverlay {
        do {
            let bytes = KeywordOverlayStore.encode(overlay)
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

    // MARK: Feedback

    public func appendFeedback(_ items: [FeedbackItem]) throws(KeywordStoreError) -> [FeedbackReceipt] {
        guard !items.isEmpty else { return [] }
        return try withFeedbackFile { (fd, index) throws(KeywordStoreError) -> [FeedbackReceipt] in
            var receipts: [FeedbackReceipt] = []
            var bytes: [UInt8] = []
            var records: [FeedbackRecord] = []
            var pending: [String: Int64] = [:]
            var nextID = index.lastID
            let now = UTCTimestamp.now()
            for item in items {
                if let client = item.clientID, let earlier = index.byClientID[client] ?? pending[client] {
                    receipts.append(FeedbackReceipt(id: earlier, duplicate: true))
                    continue
                }
                nextID += 1
                let record = FeedbackRecord(id: nextID, receivedAt: now, item: item)
                if let client = item.clientID { pending[client] = nextID }
                records.append(record)
                bytes += FeedbackLine.encode(record)
                receipts.append(FeedbackReceipt(id: nextID, duplicate: false))
            }
            try append(bytes, to: fd, index: &index)
            for record in records { index.note(record) }
            return receipts
        }
    }

    public func importFeedback(_ records: [FeedbackRecord]) throws(KeywordStoreError) -> Int {
        try withFeedbackFile { (fd, index) throws(KeywordStoreError) -> Int in
            var bytes: [UInt8] = []
            var fresh: [FeedbackRecord] = []
            var seen = Set<Int64>()
            for record in records.sorted(by: { $0.id < $1.id }) {
                guard !index.ids.contains(record.id), seen.insert(record.id).inserted else { continue }
                if let client = record.item.clientID, index.byClientID[client] != nil { continue }
                fresh.append(record)
                bytes += FeedbackLine.encode(record)
            }
            try append(bytes, to: fd, index: &index)
            for record in fresh { index.note(record) }
            return fresh.count
        }
    }

    /// Reads the file once, in blocks, and keeps at most about `limit` records: memory follows the page, not the
    /// file. Lines whose id is at most `after` are skipped without decoding them (see `FeedbackLine.quickID`).
    public func feedback(after: Int64, limit: Int) throws(KeywordStoreError) -> [FeedbackRecord] {
        let limit = max(0, limit)
        var records: [FeedbackRecord] = []
        // Once `limit` records are kept, a line with a larger id than all of them cannot be in the page.
        var cutoff = Int64.max
        try scanFeedback(after: after) { (line, number) throws(KeywordStoreError) in
            if let id = FeedbackLine.quickID(line), id <= after || id > cutoff { return }
            let record: FeedbackRecord
            do {
                record = try FeedbackLine.decode(line)
            } catch {
                throw .failed("\(feedbackPath):\(number): \(error)")
            }
            guard record.id > after, record.id <= cutoff else { return }
            records.append(record)
            // Imported records may stand out of id order: keep the smallest ids seen so far.
            if records.count >= 2 * limit + 64 {
                records.sort { $0.id < $1.id }
                records.removeLast(records.count - limit)
                cutoff = records.last?.id ?? cutoff
            }
        }
        records.sort { $0.id < $1.id }
        return Array(records.prefix(limit))
    }

    public func lastFeedbackID(after: Int64, limit: Int?) throws(KeywordStoreError) -> Int64? {
        var ids: [Int64] = []
        var largest: Int64?
        try scanFeedback(after: after) { (line, number) throws(KeywordStoreError) in
            let id: Int64
            if let quick = FeedbackLine.quickID(line) {
                id = quick
            } else {
                do {
                    id = try FeedbackLine.decode(line).id
                } catch {
                    throw .failed("\(feedbackPath):\(number): \(error)")
                }
            }
            guard id > after else { return }
            largest = max(largest ?? id, id)
            guard let limit else { return }
            ids.append(id)
            if ids.count >= limit + 4096 {
                ids.sort()
                ids.removeLast(ids.count - limit)
            }
        }
        guard let limit else { return largest }
        ids.sort()
        return ids.prefix(max(1, limit)).last
    }

    /// Calls `body` with each complete line of the feedback file (without its newline) and its 1-based number,
    /// reading 1 MiB at a time. A last line without its newline is a write cut short by a crash: never
    /// acknowledged, skipped. A missing file has no lines.
    ///
    /// With `after`, lines that cannot hold an id above it may be skipped: each scan notes, at the end of every
    /// block, the largest id in the file up to there (`ScanCheckpoint`), and a later scan starts at the furthest
    /// point whose prefix holds no id above `after`. The file is only ever appended to, so a prefix never changes
    /// while the file (device and inode) is the same; paging through an export thus reads the file about once.
    private func scanFeedback(after: Int64? = nil,
                              _ body: (ArraySlice<UInt8>, Int) throws(KeywordStoreError) -> Void) throws(KeywordStoreError) {
        let fd = open(feedbackPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return }
            throw Self.failure("open", feedbackPath)
        }
        defer { Glibc.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Self.failure("fstat", feedbackPath) }
        let file = (UInt64(info.st_dev), UInt64(info.st_ino))
        var start = ScanCheckpoint(device: file.0, inode: file.1, offset: 0, lines: 0, largestID: 0)
        if let after {
            start = checkpoints.withLock { points in
                // A file cut shorter than a checkpoint is not the file it was taken in.
                points.last { $0.device == file.0 && $0.inode == file.1 && $0.largestID <= after && $0.offset <= Int(info.st_size) }
            } ?? start
            if start.offset > 0, lseek(fd, off_t(start.offset), SEEK_SET) < 0 { throw Self.failure("lseek", feedbackPath) }
        }
        var buffer: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 1 << 20)
        var position = start
        while true {
            let count = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.failure("read", feedbackPath)
            }
            if count == 0 { return }
            buffer.append(contentsOf: block[0..<count])
            var lineStart = 0
            while let end = buffer[lineStart...].firstIndex(of: 0x0A) {
                position.lines += 1
                let line = buffer[lineStart..<end]
                try body(line, position.lines)
                let id = FeedbackLine.quickID(line) ?? (try? FeedbackLine.decode(line))?.id ?? Int64.max
                position.largestID = max(position.largestID, id)
                lineStart = end + 1
            }
            position.offset += lineStart
            buffer.removeFirst(lineStart)
            note(position)
        }
    }

    /// Keeps the checkpoints of one file, in file order, at most 4096 of them (4 GiB of feedback at 1 MiB apart).
    private func note(_ point: ScanCheckpoint) {
        checkpoints.withLock { points in
            if let last = points.last, last.device != point.device || last.inode != point.inode { points.removeAll() }
            guard points.last.map({ $0.offset < point.offset }) ?? true else { return }
            points.append(point)
            if points.count > 4096 { points.removeFirst(points.count - 4096) }
        }
    }

    // MARK: Watching

    public func startWatching(_ onChange: @escaping @Sendable (String) -> Void) {
        guard !watching.exchange(true, ordering: .relaxed) else { return }
        let path = overlayPath, interval = pollInterval
        let thread = Thread { [weak self] in
            var last = FileIdentity(path: path)
            // The file may have changed between the caller's first read and now.
            onChange("watch started")
            while let self, !self.stopped.load(ordering: .relaxed) {
                usleep(useconds_t(interval * 1_000_000))
                let now = FileIdentity(path: path)
                if now != last {
                    last = now
                    onChange("overlay file changed")
                }
            }
        }
        thread.name = "kwsuggest-store-watch"
        thread.start()
    }

    public func close() {
        stopped.store(true, ordering: .relaxed)
    }

    // MARK: Locking and appending

    /// Runs `body` holding the exclusive lock on the lock file (blocking until other processes release it).
    private func withFileLock<T>(_ body: () throws(KeywordStoreError) -> T) throws(KeywordStoreError) -> T {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.failure("open", lockPath) }
        defer { Glibc.close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Self.failure("flock", lockPath) }
        }
        return try body()
    }

    /// Runs `body` under the file lock with the feedback file open and the index brought up to date.
    private func withFeedbackFile<T>(_ body: (Int32, inout FeedbackIndex) throws(KeywordStoreError) -> T) throws(KeywordStoreError) -> T {
        try withFileLock { () throws(KeywordStoreError) -> T in
            let existed = access(feedbackPath, F_OK) == 0
            let fd = open(feedbackPath, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw Self.failure("open", feedbackPath) }
            defer { Glibc.close(fd) }
            if !existed { try Self.syncDirectory(of: feedbackPath) }
            return try index.withLock { (index: inout FeedbackIndex) throws(KeywordStoreError) -> T in
                try index.refresh(fd: fd, path: feedbackPath)
                return try body(fd, &index)
            }
        }
    }

    /// Writes whole lines and fsyncs. A torn last line left by a crash is cut off first.
    private func append(_ bytes: [UInt8], to fd: Int32, index: inout FeedbackIndex) throws(KeywordStoreError) {
        guard !bytes.isEmpty else { return }
        if index.fileSize > index.scanned {
            guard ftruncate(fd, off_t(index.scanned)) == 0 else { throw Self.failure("ftruncate", feedbackPath) }
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress! + offset, raw.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                let code = errno
                _ = ftruncate(fd, off_t(index.scanned))
                errno = code
                throw Self.failure("write", feedbackPath)
            }
            offset += written
        }
        guard fsync(fd) == 0 else { throw Self.failure("fsync", feedbackPath) }
        index.scanned += bytes.count
        index.fileSize = index.scanned
    }

    private static func syncDirectory(of path: String) throws(KeywordStoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open directory", directory) }
        defer { Glibc.close(fd) }
        guard fsync(fd) == 0 else { throw failure("fsync directory", directory) }
    }

    private static func failure(_ call: String, _ path: String) -> KeywordStoreError {
        let code = errno
        return .failed("\(path): \(call) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}

/// A place in the feedback file a scan reached: the byte offset just after a line, the lines before it, and the
/// largest id among them.
struct ScanCheckpoint: Sendable {
    var device: UInt64
    var inode: UInt64
    var offset: Int
    var lines: Int
    var largestID: Int64
}

/// What the feedback file holds, kept between appends: re-read only from where the last scan stopped.
struct FeedbackIndex: Sendable {
    var device: UInt64 = 0
    var inode: UInt64 = 0
    /// Bytes of whole lines read so far.
    var scanned = 0
    var fileSize = 0
    var lines = 0
    var lastID: Int64 = 0
    var ids = Set<Int64>()
    var byClientID: [String: Int64] = [:]

    mutating func note(_ record: FeedbackRecord) {
        lines += 1
        lastID = max(lastID, record.id)
        ids.insert(record.id)
        if let client = record.item.clientID { byClientID[client] = record.id }
    }

    /// Reads lines appended since the last scan (by this or another process); starts over if the file was replaced.
    mutating func refresh(fd: Int32, path: String) throws(KeywordStoreError) {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            throw .failed("\(path): fstat failed: \(String(cString: strerror(code))) (errno \(code))")
        }
        let size = Int(info.st_size)
        if UInt64(info.st_dev) != device || UInt64(info.st_ino) != inode || size < scanned {
            self = FeedbackIndex()
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
        fileSize = size
        guard size > scanned else { return }
        var buffer = [UInt8](repeating: 0, count: size - scanned)
        var filled = 0
        while filled < buffer.count {
            let got = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return pread(fd, base + filled, raw.count - filled, off_t(scanned + filled))
            }
            if got < 0 {
                let code = errno
                if code == EINTR { continue }
                // A read error is not the end of the file: lines past it would silently vanish from exports.
                throw .failed("\(path): pread failed: \(String(cString: strerror(code))) (errno \(code))")
            }
            if got == 0 { break }
            filled += got
        }
        var start = 0
        while let end = buffer[start..<filled].firstIndex(of: 0x0A) {
            let record: FeedbackRecord
            do {
                record = try FeedbackLine.decode(buffer[start..<end])
            } catch {
                throw .failed("\(path):\(lines + 1): \(error)")
            }
            note(record)
            start = end + 1
        }
        scanned += start
    }
}

/// Identity, size and modification time of a file; any change means it was rewritten.
struct FileIdentity: Equatable {
    var device: UInt64 = 0, inode: UInt64 = 0, size: Int64 = 0, seconds: Int = 0, nanoseconds: Int = 0
    var exists = false

    init(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        exists = true
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        seconds = Int(info.st_mtim.tv_sec)
        nanoseconds = Int(info.st_mtim.tv_nsec)
    }
}
