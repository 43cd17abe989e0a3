// What the feedback log's readers and appenders learn about the file, kept between calls so a page or an
// append reads only what it needs.
import StoreInterface
#if canImport(Glibc)
import Glibc
#endif


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

/// What the feedback file holds, kept between appends: re-read only from where the last scan stopped, streamed
/// (see `LineReader`), so the first append after a start holds one block of the file, not the file.
struct FeedbackIndex: Sendable {
    /// Where a client id's record is: its id, and its line (offset and length, newline excluded) to compare a
    /// retry's decision with.
    struct ClientEntry: Sendable {
        var id: Int64
        var offset: Int
        var length: Int
    }

    var device: UInt64 = 0
    var inode: UInt64 = 0
    /// Bytes of whole batches read so far.
    var scanned = 0
    var fileSize = 0
    var lines = 0
    var lastID: Int64 = 0
    /// Keyed by `FeedbackRules.clientKey` of the stored id.
    var byClientID: [String: ClientEntry] = [:]
    /// Whether every line so far has a larger id than all before it, and the end of the lines known to.
    var increasing = true
    var ordered: ScanCheckpoint?
    /// The most bytes a refresh held at once (for tests: a block and a line, not the log).
    var largestBuffer = 0
    /// Set on a `continuation()`: its client ids are only those read after the index it continues.
    private var continuing = false

    /// This index without its client ids, to read on from where it stopped (`refresh`) without holding the lock
    /// that guards it; `absorb` then adds what was read. A refresh that starts over (another file) clears the mark.
    func continuation() -> FeedbackIndex {
        var next = self
        next.byClientID = [:]
        next.continuing = true
        return next
    }

    /// Takes what `later`, a `continuation()` of this index read on, learnt; nothing when this index moved since
    /// (an append read on under the lock) or `later` read less.
    mutating func absorb(_ later: FeedbackIndex, continuing start: (device: UInt64, inode: UInt64, scanned: Int)) {
        guard device == start.device, inode == start.inode, scanned == start.scanned else { return }
        guard later.continuing else {
            // It started over on another file (or a shorter one): a whole index of what is there now.
            self = later
            return
        }
        guard later.device == device, later.inode == inode, later.scanned > scanned else { return }
        var clients = byClientID
        byClientID = [:]
        clients.merge(later.byClientID) { $1 }
        self = later
        byClientID = clients
        continuing = false
    }

    /// Notes a record whose line starts at `offset` and is `length` bytes long (newline excluded).
    mutating func note(id: Int64, clientID: String?, offset: Int, length: Int) {
        if id <= lastID { increasing = false }
        lines += 1
        lastID = max(lastID, id)
        if let clientID { byClientID[FeedbackRules.clientKey(clientID)] = ClientEntry(id: id, offset: offset, length: length) }
    }

    /// After whole lines up to `scanned` are noted: while ids still increase, they do so up to there.
    mutating func noteOrderedEnd() {
        guard increasing, scanned > 0 else { return }
        ordered = ScanCheckpoint(device: device, inode: inode, offset: scanned, lines: lines, largestID: lastID)
    }

    /// Reads batches appended since the last scan (by this or another process); starts over if the file was
    /// replaced. Stops before a batch whose bytes are not all there (one never acknowledged, cut by a crash):
    /// `scanned` then ends before its header, where the next append cuts the file. On an error the index starts
    /// over at the next call.
    ///
    /// `locked` says whether the caller holds the feedback lock. Without it, another process may cut an unfinished
    /// tail and append in its place while this reads, so the read stops at the last newline the file had when it
    /// began: a line after it is never read, and a tail that may still be cut is left for a read under the lock.
    /// (A whole header line of an unfinished batch can lie before that newline; the read stops at it, since its
    /// batch is not all there, and a header cut and overwritten while being read fails to parse or to frame.)
    mutating func refresh(fd: Int32, path: String, locked: Bool = true) throws(KeywordStoreError) {
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
        do {
            let end = locked ? size : try Self.endOfLastLine(fd: fd, path: path, after: scanned, before: size)
            guard end > scanned else { return }
            try readBatches(fd: fd, path: path, size: end)
        } catch {
            let (device, inode) = (self.device, self.inode)
            self = FeedbackIndex()
            (self.device, self.inode) = (device, inode)
            throw error
        }
    }

    private mutating func readBatches(fd: Int32, path: String, size: Int) throws(KeywordStoreError) {
        // The open batch: where its records end, and how many are still to come.
        var batch: (end: Int, remaining: Int)?
        var lineStart = scanned
        largestBuffer = try LineReader(fd: fd, path: path).forEachLine(from: scanned, until: size) { (line, next) throws(KeywordStoreError) -> Bool in
            defer { lineStart = next }
            let number = lines + 1
            if batch == nil, FeedbackFrame.isHeader(line) {
                guard let frame = FeedbackFrame.parse(line) else {
                    throw .failed("\(path):\(number): not a batch header ({\"batch\":records,\"bytes\":bytes})")
                }
                // A batch cut short: never acknowledged, and cut off by the next append.
                guard next + frame.bytes <= size else { return false }
                batch = (next + frame.bytes, frame.records)
                lines += 1
                return true
            }
            let record = try Self.quickRecord(line, path: path, number: number)
            note(id: record.id, clientID: record.clientID, offset: lineStart, length: line.count)
            if var open = batch {
                open.remaining -= 1
                guard next <= open.end, (next == open.end) == (open.remaining == 0) else {
                    throw .failed("\(path):\(number): the batch does not hold the records and bytes its header announces")
                }
                batch = open.remaining == 0 ? nil : open
            }
            if batch == nil {
                scanned = next
                if increasing {
                    ordered = ScanCheckpoint(device: device, inode: inode, offset: scanned, lines: lines, largestID: lastID)
                }
            }
            return true
        }
    }

    /// The offset just past the last newline in the file's bytes `start..<end`, or `start` when there is none.
    static func endOfLastLine(fd: Int32, path: String, after start: Int, before end: Int) throws(KeywordStoreError) -> Int {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var chunkEnd = end
        while chunkEnd > start {
            let chunkStart = max(start, chunkEnd - buffer.count)
            let count = buffer.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress, chunkEnd - chunkStart, off_t(chunkStart))
            }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw .failed("\(path): pread failed: \(String(cString: strerror(code))) (errno \(code))")
            }
            guard count == chunkEnd - chunkStart else { return start }
            if let last = buffer[0..<count].lastIndex(of: 0x0A) { return chunkStart + last + 1 }
            chunkEnd = chunkStart
        }
        return start
    }

    /// The id and client id of a record line: read from its bytes without decoding when it has the shape
    /// `FeedbackLine.encode` writes (`FeedbackLine.quickKeys`), else from the decoded line. The error names the
    /// file and line.
    static func quickRecord(_ line: ArraySlice<UInt8>, path: String, number: Int) throws(KeywordStoreError) -> (id: Int64, clientID: String?) {
        if let keys = FeedbackLine.quickKeys(line) { return keys }
        do {
            let record = try FeedbackLine.decode(line)
            return (record.id, record.item.clientID)
        } catch {
            throw .failed("\(path):\(number): \(error)")
        }
    }
}
