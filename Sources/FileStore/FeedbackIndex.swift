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
