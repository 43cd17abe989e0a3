// The feedback log of the file store: an append-only JSON-lines file beside the overlay, appended under a
// lock file of its own and read in pages without holding it.
import Foundation
import Locking
import Platform
import StoreInterface
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Feedback records as JSON lines (`FeedbackLine`), one per record, a batch of several behind a header
/// (`FeedbackFrame`). Appends write whole batches and fsync before the lock is released; a batch cut short by a
/// crash was never acknowledged, and is skipped whole by readers and cut off by the next append.
final class FeedbackLog: Sendable {
    let feedbackPath: String
    private let lock: FileLock
    private let index = Locked(FeedbackIndex())
    /// Held while `catchUp` reads the file, so concurrent appends wait for one read instead of each making its own.
    private let catchingUp = Locked(())
    /// What earlier scans of the feedback file learnt about it (see `scanFeedback`).
    private let scanMap = Locked(FeedbackScanMap())
    /// Bytes read from the feedback file by scans, for tests to check how much a page costs.
    let scannedBytes = Atomic<Int>(0)

    /// The most bytes the last refresh of the append index held at once.
    var largestRefreshBuffer: Int { index.withLock { $0.largestBuffer } }
    /// Bytes of the file the append index has read (whole batches).
    var indexedBytes: Int { index.withLock { $0.scanned } }

    init(path: String, lock: FileLock) {
        feedbackPath = path
        self.lock = lock
    }

    func appendFeedback(_ items: [FeedbackItem]) throws(KeywordStoreError) -> [FeedbackReceipt] {
        guard !items.isEmpty else { return [] }
        return try withFeedbackFile { (fd, index) throws(KeywordStoreError) -> [FeedbackReceipt] in
            var records: [FeedbackRecord] = []
            var nextID = index.lastID
            let now = UTCTime.now()
            let path = feedbackPath, lastID = index.lastID, stored = index
            let receipts = try FeedbackAppend.receipts(
                for: items, receivedAt: now,
                earlier: { (key) throws(KeywordStoreError) -> FeedbackRecord? in try storedRecord(key, fd: fd, index: stored) },
                write: { (item) throws(KeywordStoreError) -> Int64 in
                    // Written below, all at once, when the whole batch is accepted.
                    guard nextID < FeedbackRules.maxRecordID else {
                        throw .failed("\(path): record ids are used up (the largest is \(lastID), a store gives at most "
                            + "\(FeedbackRules.maxRecordID)); nothing was stored")
                    }
                    nextID += 1
                    records.append(FeedbackRecord(id: nextID, receivedAt: now, item: item))
                    return nextID
                })
            try append(records, to: fd, index: &index)
            return receipts
        }
    }

    /// The stored record with client id `key`, read back from its line.
    private func storedRecord(_ key: String, fd: Int32, index: FeedbackIndex) throws(KeywordStoreError) -> FeedbackRecord? {
        guard let entry = index.byClientID[key] else { return nil }
        var line = [UInt8](repeating: 0, count: entry.length)
        var filled = 0
        while filled < line.count {
            let got = line.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress.map { $0 + filled }, raw.count - filled, off_t(entry.offset + filled))
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw Self.failure("pread", feedbackPath) }
            filled += got
        }
        do {
            return try FeedbackLine.decode(line)
        } catch {
            throw .failed("\(feedbackPath): the record of client id '\(key.prefix(200))' at byte \(entry.offset): \(error)")
        }
    }

    /// Appends the records whose id and client id the log does not hold yet, as one batch; the caller has checked
    /// them (`FeedbackRules`).
    func importFeedback(_ records: [FeedbackRecord]) throws(KeywordStoreError) -> Int {
        try FeedbackRules.checkImportable(records)
        return try withFeedbackFile { (fd, index) throws(KeywordStoreError) -> Int in
            var present = Set<Int64>()
            var number = 0
            try LineReader(fd: fd, path: feedbackPath).forEachLine(from: 0, until: index.scanned) { (line, _) throws(KeywordStoreError) -> Bool in
                number += 1
                if !FeedbackFrame.isHeader(line) {
                    present.insert(try FeedbackIndex.quickRecord(line, path: feedbackPath, number: number).id)
                }
                return true
            }
            var fresh: [FeedbackRecord] = []
            var clients = Set<String>()
            for var record in records.sorted(by: { $0.id < $1.id }) {
                guard present.insert(record.id).inserted else { continue }
                if let client = record.item.clientID {
                    let key = FeedbackRules.clientKey(client)
                    guard index.byClientID[key] == nil, clients.insert(key).inserted else { continue }
                    record.item.clientID = key
                }
                fresh.append(record)
            }
            try append(fresh, to: fd, index: &index)
            return fresh.count
        }
    }

    /// Keeps at most about `limit` records: memory follows the page, not the file. Lines whose id is at most
    /// `after` are skipped without decoding them (see `FeedbackLine.quickID`); the scan stops once the rest of the
    /// file is known to hold only larger ids than the page's (see `scanFeedback`).
    func feedback(after: Int64, limit: Int) throws(KeywordStoreError) -> [FeedbackRecord] {
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

    func lastFeedbackID(after: Int64, limit: Int?) throws(KeywordStoreError) -> Int64? {
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
        var knownSize = size
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
                if FeedbackFrame.isHeader(line) {
                    guard let frame = FeedbackFrame.parse(line) else {
                        throw .failed("\(feedbackPath):\(position.lines + 1): not a batch header ({\"batch\":records,\"bytes\":bytes})")
                    }
                    // A batch still being written, or cut short by a crash (never acknowledged): the log ends here.
                    let batchEnd = position.offset + (end + 1 - lineStart) + frame.bytes
                    if batchEnd > knownSize {
                        guard fstat(fd, &info) == 0 else { throw Self.failure("fstat", feedbackPath) }
                        knownSize = Int(info.st_size)
                        if batchEnd > knownSize { return position }
                    }
                    position.lines += 1
                    position.offset += end + 1 - lineStart
                    lineStart = end + 1
                    continue
                }
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

    // MARK: Appending

    /// Runs `body` under the feedback lock with the feedback file open and the index brought up to date.
    private func withFeedbackFile<T>(_ body: (Int32, inout FeedbackIndex) throws(KeywordStoreError) -> T) throws(KeywordStoreError) -> T {
        catchUp()
        return try lock.withLock { () throws(KeywordStoreError) -> T in
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

    /// Most bytes appended since the index's last read that an append reads under the feedback lock; more (the
    /// whole log, on the first append after a start) is read first without it (`catchUp`).
    static let lockedReadLimit = 1 << 20

    /// Brings the index up to the file's end without the feedback lock when more than `lockedReadLimit` bytes are
    /// unread, so a long read (the whole log after a start) never holds the lock other writers and processes wait
    /// on. Sound without the lock: the file is only appended to, a batch is one write, the read stops before a
    /// batch whose bytes are not all there yet, exactly as it does under the lock, and it reads no further than
    /// the last newline the file had when it began, so an unfinished record line another process cuts off and
    /// writes over meanwhile lies after where it stops (see `FeedbackIndex.refresh`). Catch-ups run one at a time; a failed one leaves the index as it was
    /// (the append's own read under the lock reports the error).
    func catchUp() {
        catchingUp.withLock { _ in
            let fd = open(feedbackPath, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { Glibc.close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { return }
            let (device, inode, size) = (UInt64(info.st_dev), UInt64(info.st_ino), Int(info.st_size))
            let start = index.withLock { index -> (FeedbackIndex, (device: UInt64, inode: UInt64, scanned: Int))? in
                let unread = index.device == device && index.inode == inode && size >= index.scanned ? size - index.scanned : size
                guard unread > Self.lockedReadLimit else { return nil }
                return (index.continuation(), (index.device, index.inode, index.scanned))
            }
            guard let start else { return }
            var later = start.0
            let from = start.1
            do {
                try later.refresh(fd: fd, path: feedbackPath, locked: false)
            } catch {
                return
            }
            index.withLock { index in
                index.absorb(later, continuing: from)
                shareOrder(of: index)
            }
        }
    }

    /// Writes `records` as one batch (`FeedbackFrame`: a header first when there are several) and fsyncs, then
    /// notes them in the index. A batch left unfinished by a crash is cut off first.
    private func append(_ records: [FeedbackRecord], to fd: Int32, index: inout FeedbackIndex) throws(KeywordStoreError) {
        guard !records.isEmpty else { return }
        var lines: [[UInt8]] = records.map { FeedbackLine.encode($0) }
        let body = lines.reduce(0) { $0 + $1.count }
        var bytes: [UInt8] = []
        if records.count > 1 { bytes = FeedbackFrame.header(records: records.count, bytes: body) }
        bytes.reserveCapacity(bytes.count + body)
        var offsets: [Int] = []
        offsets.reserveCapacity(lines.count)
        for line in lines {
            offsets.append(index.scanned + bytes.count)
            bytes += line
        }
        if index.fileSize > index.scanned {
            guard ftruncate(fd, off_t(index.scanned)) == 0 else { throw Self.failure("ftruncate", feedbackPath) }
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                let code = errno
                _ = ftruncate(fd, off_t(index.scanned))
                errno = code
                throw Self.failure("write", feedbackPath)
            }
            offset += written
        }
        guard fsync(fd) == 0 else {
            let failure = Self.failure("fsync", feedbackPath)
            _ = ftruncate(fd, off_t(index.scanned))
            throw failure
        }
        if records.count > 1 { index.lines += 1 }
        for (position, record) in records.enumerated() {
            index.note(id: record.id, clientID: record.item.clientID, offset: offsets[position], length: lines[position].count - 1)
        }
        lines.removeAll()
        index.scanned += bytes.count
        index.fileSize = index.scanned
        index.noteOrderedEnd()
    }

    private static func syncDirectory(of path: String) throws(KeywordStoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open directory", directory) }
        defer { Glibc.close(fd) }
        guard fsync(fd) == 0 else { throw failure("fsync directory", directory) }
    }

    private static func failure(_ call: String, _ path: String) -> KeywordStoreError {
        FileLock.failure(call, path)
    }
}
