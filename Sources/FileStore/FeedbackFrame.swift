// How the feedback log keeps a batch all or none: a header line announcing the batch's records and bytes.
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface

/// `{"batch":N,"bytes":B}`: the next N lines, B bytes with their newlines, are one batch. A batch is written with
/// its header in one append and fsynced before it is acknowledged; a crash can cut it anywhere, so a header whose
/// bytes do not all follow it marks a batch never acknowledged: readers stop before the header, and the next
/// append cuts the file back to it. A record line outside a batch is a batch of one (a line cut short has no
/// newline and is dropped the same way), which is also how logs written before headers existed read.
enum FeedbackFrame {
    private static let prefix = Array(#"{"batch":"#.utf8)
    private static let middle = Array(#","bytes":"#.utf8)

    static func header(records: Int, bytes: Int) -> [UInt8] {
        prefix + Array(String(records).utf8) + middle + Array(String(bytes).utf8) + [UInt8(ascii: "}"), 0x0A]
    }

    /// Whether `line` is a header (well formed or not); a record line starts with `{"action":`.
    static func isHeader(_ line: ArraySlice<UInt8>) -> Bool {
        line.starts(with: prefix)
    }

    /// The counts of a well-formed header, nil for anything else.
    static func parse(_ line: ArraySlice<UInt8>) -> (records: Int, bytes: Int)? {
        guard isHeader(line) else { return nil }
        var index = line.startIndex + prefix.count
        func digits() -> Int? {
            var value = 0, count = 0
            while index < line.endIndex, line[index] >= 0x30, line[index] <= 0x39, count < 15 {
                value = value * 10 + Int(line[index] - 0x30)
                index += 1
                count += 1
            }
            return count > 0 ? value : nil
        }
        guard let records = digits(), line[index...].starts(with: middle) else { return nil }
        index += middle.count
        guard let bytes = digits(), index + 1 == line.endIndex, line[index] == UInt8(ascii: "}"),
              records >= 1, bytes >= records else { return nil }
        return (records, bytes)
    }
}

/// Complete lines of a file from an offset, read 64 KiB at a time: memory follows the longest line, not the file.
struct LineReader {
    let fd: Int32
    let path: String

    /// Calls `body` with each complete line (without its newline) and the offset just after its newline, starting
    /// at `offset`, until `body` answers false or no complete line is left (a last line without a newline is not
    /// passed). Returns the most bytes it held at once (a block plus the part of a line it had not finished).
    @discardableResult
    func forEachLine(from offset: Int, until end: Int? = nil,
                     _ body: (ArraySlice<UInt8>, Int) throws(KeywordStoreError) -> Bool) throws(KeywordStoreError) -> Int {
        // `buffer[0..<filled]` holds the file from `bufferStart`: the unfinished line, then what the last read added.
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var filled = 0
        var position = offset
        var bufferStart = offset
        var largest = 0
        while end.map({ position < $0 }) ?? true {
            // A line longer than the buffer doubles it.
            if filled == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
            let want = min(buffer.count - filled, (end ?? Int.max) - position)
            let count = buffer.withUnsafeMutableBytes { raw in pread(fd, raw.baseAddress! + filled, want, off_t(position)) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                // A read error is not the end of the file: lines past it would silently vanish.
                throw .failed("\(path): pread failed: \(String(cString: strerror(code))) (errno \(code))")
            }
            if count == 0 { break }
            position += count
            let searched = filled
            filled += count
            largest = max(largest, filled)
            var lineStart = 0
            var from = searched
            while let newline = Self.newline(in: buffer, from: from, to: filled) {
                guard try body(buffer[lineStart..<newline], bufferStart + newline + 1) else { return largest }
                lineStart = newline + 1
                from = lineStart
            }
            if lineStart > 0 {
                let rest = filled - lineStart
                buffer.withUnsafeMutableBytes { raw in
                    if rest > 0 { memmove(raw.baseAddress!, raw.baseAddress! + lineStart, rest) }
                }
                filled = rest
                bufferStart += lineStart
            }
        }
        return largest
    }

    /// The index of the first newline in `buffer[from..<to]`, found with `memchr`.
    private static func newline(in buffer: [UInt8], from: Int, to: Int) -> Int? {
        guard from < to else { return nil }
        return buffer.withUnsafeBytes { raw in
            memchr(raw.baseAddress! + from, 0x0A, to - from).map { raw.baseAddress!.distance(to: UnsafeRawPointer($0)) }
        }
    }
}
