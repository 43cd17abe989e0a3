// The default store: files beside the overlay, safe for any number of processes on one machine.
import Foundation
import Locking
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface

/// Keyword changes in the overlay file, feedback in an append-only JSON-lines file, both guarded by an
/// exclusive `flock` on a lock file beside them.
///
/// Every keyword change is a read-modify-write under the lock: read the overlay, apply the change, write it
/// atomically (`KeywordOverlayFile.save`), unlock. Every feedback append writes whole lines and fsyncs before
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

    private let overlayFile: KeywordOverlayFile
    /// The overlay file's bytes as this store last read or wrote them, and the overlay they hold. While the file
    /// holds exactly these bytes it is not parsed and checked again, and the same overlay value is handed out,
    /// so a caller can tell it from the one it already serves by identity rather than keyword by keyword.
    private let cache = Locked<(bytes: [UInt8], overlay: KeywordOverlay)?>(nil)
    /// Revisions stamped on the overlays this process's file stores hand out (see `KeywordOverlay.revision`).
    private static let revisions = Atomic<UInt64>(0)
    private let index = Locked(FeedbackIndex())
    /// What earlier scans of the feedback file learnt about it (see `scanFeedback`).
    private let scanMap = Locked(FeedbackScanMap())
    /// Bytes read from the feedback file by scans, for tests to check how much a page costs.
    let scannedBytes = Atomic<Int>(0)
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
            index.noteOrderedEnd()
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
            index.noteOrderedEnd()
            return fresh.count
        }
    }

    /// Keeps at most about `limit` records: memory follows the page, not the file. Lines whose id is at most
    /// `after` are skipped without decoding them (see `FeedbackLine.quickID`); the scan stops once the rest of the
    /// file is known to hold only larger ids than the page's (see `scanFeedback`).
    public func feedback(after: Int64, limit: Int) throws(KeywordStoreError) -> [FeedbackRecord] {
        let limit = max(0, limit)
        guard limit > 0 else { return [] }
        var records: [FeedbackRecord] = []
        var inOrder = true
        // Once `limit` records are kept, a line with a larger id than all of them cannot be in the page.
        var cutoff = Int64.max
        try scanFeedback(after: after) { (line, number) throws(KeywordStoreError) -> Int64 in
            if let id = FeedbackLine.quickID(line), id <= after || id > cutoff { return cutoff }
            let record: FeedbackRecord
            do {
                record = try FeedbackLine.decode(line)
            } catch {
                throw .failed("\(feedbackPath):\(number): \(error)")
            }
            guard record.id > after, record.id <= cutoff else { return cutoff }
            if let last = records.last, last.id >= record.id { inOrder = false }
            records.append(record)
            if inOrder, records.count == limit {
                cutoff = record.id
            } else if records.count >= 2 * limit + 64 {
                // Imported records may stand out of id order: keep the smallest ids seen so far.
                records.sort { $0.id < $1.id }
                records.removeLast(records.count - limit)
                cutoff = records.last?.id ?? cutoff
                inOrder = true
            }
            return cutoff
        }
        records.sort { $0.id < $1.id }
        return Array(records.prefix(limit))
    }

    public func lastFeedbackID(after: Int64, limit: Int?) throws(KeywordStoreError) -> Int64? {
        var ids: [Int64] = []
        var inOrder = true
        var wanted = Int64.max
        let end = try scanFeedback(after: after) { (line, number) throws(KeywordStoreError) -> Int64 in
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
            // Without a limit only the largest id counts, and the scan's end position holds it.
            guard let limit else { return Int64.min }
            guard id > after, id <= wanted else { return wanted }
            if let last = ids.last, last >= id { inOrder = false }
            ids.append(id)
            if inOrder, ids.count == max(1, limit) {
                wanted = id
            } else if ids.count >= limit + 4096 {
                ids.sort()
                ids.removeLast(ids.count - limit)
                wanted = ids.last ?? wanted
                inOrder = true
            }
            return wanted
        }
        guard limit != nil else { return end.largestID > after ? end.largestID : nil }
        ids.sort()
        return ids.prefix(max(1, limit ?? 1)).last
    }

    /// Calls `body` with each complete line of the feedback file (without its newline) and its 1-based number,
    /// reading 64 KiB at a time, and returns where it stopped. A last line without its newline is a write cut
    /// short by a crash: never acknowledged, skipped. A missing file has no lines.
    ///
    /// `body` answers the largest id it still wants. Scans learn two things about the file, kept while it is the
    /// same file (device and inode) and only ever appended to, so a prefix never changes:
    /// - checkpoints (`ScanCheckpoint`): the largest id up to a point; a scan with `after` starts at the furthest
    ///   point whose prefix holds no id above `after`;
    /// - how far the file's ids are known to increase line by line (`FeedbackScanMap.ordered`). Ids are assigned
    ///   increasing under the file lock, so only records imported below the largest id break the order.
    /// Inside that ordered prefix, once a line's id reaches what `body` still wants, the lines up to the end of the
    /// prefix hold only larger ids: the scan notes where it is and goes on at the end of the ordered prefix,
    /// reading only what was appended since. Paging through an export thus reads the file about once.
    @discardableResult
    private func scanFeedback(after: Int64? = nil,
                              _ body: (ArraySlice<UInt8>, Int) throws(KeywordStoreError) -> Int64) throws(KeywordStoreError) -> ScanCheckpoint {
        let fd = open(feedbackPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return ScanCheckpoint(device: 0, inode: 0, offset: 0, lines: 0, largestID: 0) }
            throw Self.failure("open", feedbackPath)
        }
        defer { Glibc.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Self.failure("fstat", feedbackPath) }
        let file = (UInt64(info.st_dev), UInt64(info.st_ino))
        let size = Int(info.st_size)
        var position = ScanCheckpoint(device: file.0, inode: file.1, offset: 0, lines: 0, largestID: 0)
        var ordered = position
        scanMap.withLock { map in
            map.adopt(device: file.0, inode: file.1, size: size)
            ordered = map.ordered
            if let after, let start = map.start(after: after) { position = start }
        }
        if position.offset > 0, lseek(fd, off_t(position.offset), SEEK_SET) < 0 { throw Self.failure("lseek", feedbackPath) }
        // Whether every line up to `position` is known to have a larger id than the one before it.
        var increasing = position.offset <= ordered.offset
        var buffer: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.failure("read", feedbackPath)
            }
            if count == 0 { return position }
            scannedBytes.add(count, ordering: .relaxed)
            buffer.append(contentsOf: block[0..<count])
            var lineStart = 0
            var jumped = false
            while let end = buffer[lineStart...].firstIndex(of: 0x0A) {
                let line = buffer[lineStart..<end]
                position.lines += 1
                let wanted = try body(line, position.lines)
                let id = FeedbackLine.quickID(line) ?? (try? FeedbackLine.decode(line))?.id
                if let id, id > position.largestID {
                    position.largestID = id
                } else {
                    increasing = false
                    position.largestID = max(position.largestID, id ?? Int64.max)
                }
                position.offset += end + 1 - lineStart
                lineStart = end + 1
                if increasing, let id, id >= wanted, ordered.offset > position.offset {
                    // Every line up to the end of the ordered prefix has a larger id than this one.
                    let furthest = noteOrdered(position)
                    if furthest.offset > position.offset {
                        note(position)
                        guard lseek(fd, off_t(furthest.offset), SEEK_SET) >= 0 else { throw Self.failure("lseek", feedbackPath) }
                        position = furthest
                        jumped = true
                        break
                    }
                }
            }
            if jumped {
                buffer.removeAll(keepingCapacity: true)
            } else {
                buffer.removeFirst(lineStart)
            }
            note(position)
            if increasing { ordered = noteOrdered(position) }
        }
    }

    /// Hands what the append index read (every line, under the lock) to the scans: how far ids increase.
    private func shareOrder(of index: FeedbackIndex) {
        index.ordered.map(note)
        scanMap.withLock { map in
            map.adopt(device: index.device, inode: index.inode, size: index.fileSize)
            if let point = index.ordered, point.device == map.device, point.inode == map.inode,
               point.offset > map.ordered.offset {
                map.ordered = point
            }
        }
    }

    /// Adds a checkpoint of the current file.
    private func note(_ point: ScanCheckpoint) {
        scanMap.withLock { $0.note(point) }
    }

    /// Records that the file's ids increase line by line up to `point`; returns the furthest such point known.
    private func noteOrdered(_ point: ScanCheckpoint) -> ScanCheckpoint {
        scanMap.withLock { map in
            if map.device == point.device, map.inode == point.inode, point.offset > map.ordered.offset { map.ordered = point }
            return map.device == point.device && map.inode == point.inode ? map.ordered : point
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
                defer { shareOrder(of: index) }
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

/// What scans learnt about one feedback file: checkpoints in file order, and how far its ids are known to increase.
struct FeedbackScanMap: Sendable {
    var device: UInt64 = 0
    var inode: UInt64 = 0
    var points: [ScanCheckpoint] = []
    /// Lines before `ordered.offset` have ids that increase line by line (so `ordered.largestID` is the last).
    var ordered = ScanCheckpoint(device: 0, inode: 0, offset: 0, lines: 0, largestID: 0)

    /// Forgets what was learnt about another file, or about one cut shorter than a point (not the file it was).
    mutating func adopt(device: UInt64, inode: UInt64, size: Int) {
        let shrunk = ordered.offset > size || (points.last.map { $0.offset > size } ?? false)
        guard self.device != device || self.inode != inode || shrunk else { return }
        self = FeedbackScanMap(device: device, inode: inode)
        ordered.device = device
        ordered.inode = inode
    }

    /// The furthest checkpoint whose prefix holds no id above `after`.
    func start(after: Int64) -> ScanCheckpoint? {
        // Largest ids only grow along the file: binary search for the last point with `largestID <= after`.
        var low = 0, high = points.count
        while low < high {
            let middle = (low + high) / 2
            if points[middle].largestID <= after { low = middle + 1 } else { high = middle }
        }
        var best = low > 0 ? points[low - 1] : nil
        if ordered.offset > 0, ordered.largestID <= after, ordered.offset > (best?.offset ?? 0) { best = ordered }
        return best
    }

    /// Keeps checkpoints sorted by offset, at most 8192 of them (thinned by half beyond that).
    mutating func note(_ point: ScanCheckpoint) {
        guard point.device == device, point.inode == inode, point.offset > 0 else { return }
        var low = 0, high = points.count
        while low < high {
            let middle = (low + high) / 2
            if points[middle].offset < point.offset { low = middle + 1 } else { high = middle }
        }
        guard low == points.count || points[low].offset != point.offset else { return }
        points.insert(point, at: low)
        if points.count > 8192 {
            let last = points[points.count - 1]
            points = points.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            if points.last?.offset != last.offset { points.append(last) }
        }
    }
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
    /// Whether every line so far has a larger id than all before it, and the end of the lines known to.
    var increasing = true
    var ordered: ScanCheckpoint?

    mutating func note(_ record: FeedbackRecord) {
        if record.id <= lastID { increasing = false }
        lines += 1
        lastID = max(lastID, record.id)
        ids.insert(record.id)
        if let client = record.item.clientID { byClientID[client] = record.id }
    }

    /// After whole lines up to `scanned` are noted: while ids still increase, they do so up to there.
    mutating func noteOrderedEnd() {
        guard increasing, scanned > 0 else { return }
        ordered = ScanCheckpoint(device: device, inode: inode, offset: scanned, lines: lines, largestID: lastID)
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
            if increasing {
                ordered = ScanCheckpoint(device: device, inode: inode, offset: scanned + start, lines: lines, largestID: lastID)
            }
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
