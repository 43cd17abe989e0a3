// Lines of an archive read in pieces, so a huge line is refused after a bounded amount of it is held.

/// Splits what `read` returns at "\n" (the "\n" is not part of the line). A line longer than `maxLineBytes` is
/// refused as soon as more than that many of its bytes are held, without reading the rest of it.
struct ArchiveLineReader {
    /// The line being read is longer than `maxLineBytes`.
    struct LineTooLong: Error {}

    let maxLineBytes: Int
    /// The next piece of input; empty at the end.
    private let read: () throws -> [UInt8]
    private var buffer: [UInt8] = []
    /// Where the current line starts in `buffer`, and how far it has been searched for "\n".
    private var start = 0
    private var searched = 0
    private var atEnd = false
    private var finished = false

    init(maxLineBytes: Int, read: @escaping () throws -> [UInt8]) {
        self.maxLineBytes = maxLineBytes
        self.read = read
    }

    /// The next line; nil after the last. Like splitting at every "\n", input that ends with "\n" ends with an
    /// empty line, and empty input is one empty line.
    mutating func next() throws -> [UInt8]? {
        guard !finished else { return nil }
        while true {
            if let newline = buffer[searched...].firstIndex(of: 0x0A) {
                guard newline - start <= maxLineBytes else { throw LineTooLong() }
                let line = Array(buffer[start..<newline])
                start = newline + 1
                searched = start
                return line
            }
            guard buffer.count - start <= maxLineBytes else { throw LineTooLong() }
            if atEnd {
                finished = true
                return Array(buffer[start...])
            }
            buffer.removeFirst(start)
            (start, searched) = (0, buffer.count)
            let piece = try read()
            if piece.isEmpty { atEnd = true } else { buffer.append(contentsOf: piece) }
        }
    }
}
