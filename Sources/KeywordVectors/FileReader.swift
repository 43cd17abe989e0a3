#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sequential, buffered reads from one file, with the current byte offset for error messages.
///
/// Alongside `FloatMatrix`, the only place that hands raw pointers to system calls.
///
/// Why this is not KeywordText's `ByteReader`: vector files are large (a fastText `.bin` runs to gigabytes), so
/// this reader streams through a fixed buffer and fills typed rows straight from it, where `ByteReader` holds a
/// small lexicon file whole for random access. Each reports errors in its own module's error type, and the two
/// modules are leaves that share nothing, so one reader for both would need a module of its own for ~200 lines.
final class FileReader {
    let path: String
    /// The file's size in bytes when it was opened.
    let size: Int
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var bufferPosition = 0
    /// File offset of `buffer[0]`.
    private var bufferOffset = 0

    /// The offset of the next byte `read…` returns.
    var offset: Int { bufferOffset + bufferPosition }
    var remaining: Int { size - offset }

    init(path: String) throws {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            let kind: VectorFileError.Kind = code == ENOENT ? .missingFile : .unreadable
            let reason = code == ENOENT ? "no such file" : "cannot open: \(String(cString: strerror(code)))"
            throw VectorFileError(path: path, kind: kind, location: .file, message: reason)
        }
        var status = stat()
        if fstat(descriptor, &status) != 0 || (status.st_mode & S_IFMT) != S_IFREG {
            close(descriptor)
            throw VectorFileError(path: path, kind: .unreadable, location: .file, message: "not a regular file")
        }
        self.descriptor = descriptor
        size = Int(status.st_size)
    }

    deinit {
        close(descriptor)
    }

    func error(_ kind: VectorFileError.Kind, _ message: String, at offset: Int? = nil) -> VectorFileError {
        VectorFileError(path: path, kind: kind, location: .byteOffset(offset ?? self.offset), message: message)
    }

    private func truncated(_ what: String, needing count: Int) -> VectorFileError {
        error(.truncated, "file is truncated: \(what) needs \(count) bytes, only \(max(remaining, 0)) left")
    }

    /// Reads up to `count` bytes at the file position into `destination`; returns how many arrived.
    private func readSystem(into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        var done = 0
        while done < destination.count {
            let got = read(descriptor, destination.baseAddress! + done, destination.count - done)
            if got < 0 {
                if errno == EINTR { continue }
                throw error(.unreadable, "read failed: \(String(cString: strerror(errno)))", at: offset + done)
            }
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// Makes at least `count` bytes available in the buffer, or throws `truncated`.
    private func fill(_ count: Int, what: String) throws {
        let available = buffer.count - bufferPosition
        if available >= count { return }
        guard count <= remaining else { throw truncated(what, needing: count) }
        var fresh = Array(buffer[bufferPosition...])
        bufferOffset += bufferPosition
        bufferPosition = 0
        let want = max(count, 1 << 16) - fresh.count
        let old = fresh.count
        fresh.append(contentsOf: repeatElement(0, count: want))
        let got = try fresh.withUnsafeMutableBytes { try readSystem(into: UnsafeMutableRawBufferPointer(rebasing: $0[old...])) }
        fresh.removeLast(want - got)
        buffer = fresh
        if buffer.count < count { throw truncated(what, needing: count) }
    }

    func readBytes(_ count: Int, what: String) throws -> [UInt8] {
        try fill(count, what: what)
        defer { bufferPosition += count }
        return Array(buffer[bufferPosition ..< bufferPosition + count])
    }

    func readInt32(_ what: String) throws -> Int32 {
        try fill(4, what: what)
        defer { bufferPosition += 4 }
        return buffer.withUnsafeBytes { Int32(littleEndian: $0.loadUnaligned(fromByteOffset: bufferPosition, as: Int32.self)) }
    }

    func readInt64(_ what: String) throws -> Int64 {
        try fill(8, what: what)
        defer { bufferPosition += 8 }
        return buffer.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(fromByteOffset: bufferPosition, as: Int64.self)) }
    }

    func readDouble(_ what: String) throws -> Double {
        Double(bitPattern: UInt64(bitPattern: try readInt64(what)))
    }

    func readUInt8(_ what: String) throws -> UInt8 {
        try fill(1, what: what)
        defer { bufferPosition += 1 }
        return buffer[bufferPosition]
    }

    /// Bytes up to (not including) the next 0 byte, which is consumed.
    func readCString(_ what: String) throws -> [UInt8] {
        var result: [UInt8] = []
        while true {
            if bufferPosition == buffer.count {
                guard remaining > 0 else { throw error(.truncated, "file is truncated inside \(what): no terminating 0 byte") }
                try fill(1, what: what)
            }
            let slice = buffer[bufferPosition...]
            if let zero = slice.firstIndex(of: 0) {
                result.append(contentsOf: buffer[bufferPosition ..< zero])
                bufferPosition = zero + 1
                return result
            }
            result.append(contentsOf: slice)
            bufferPosition = buffer.count
        }
    }

    /// Reads `count` little-endian floats straight into `destination`.
    func readFloats(into destination: UnsafeMutableBufferPointer<Float>, what: String) throws {
        let byteCount = destination.count * 4
        guard byteCount <= remaining else { throw truncated(what, needing: byteCount) }
        let raw = UnsafeMutableRawBufferPointer(destination)
        let buffered = min(buffer.count - bufferPosition, byteCount)
        buffer.withUnsafeBytes { source in
            raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[bufferPosition ..< bufferPosition + buffered]))
        }
        bufferPosition += buffered
        if buffered < byteCount {
            // The buffer is drained: read the rest directly, then continue after it.
            let start = offset
            let got = try readSystem(into: UnsafeMutableRawBufferPointer(rebasing: raw[buffered...]))
            buffer = []
            bufferPosition = 0
            bufferOffset = start + got
            if got < byteCount - buffered { throw truncated(what, needing: byteCount) }
        }
    }

    /// Moves the position forward without reading the bytes.
    func skip(_ count: Int, what: String) throws {
        guard count <= remaining else { throw truncated(what, needing: count) }
        let buffered = buffer.count - bufferPosition
        if count <= buffered {
            bufferPosition += count
            return
        }
        let target = offset + count
        guard lseek(descriptor, off_t(target), SEEK_SET) == off_t(target) else {
            throw error(.unreadable, "seek failed: \(String(cString: strerror(errno)))")
        }
        buffer = []
        bufferPosition = 0
        bufferOffset = target
    }

    /// Reads the next chunk of at most `maximum` bytes (empty at the end of the file).
    func readChunk(maximum: Int) throws -> [UInt8] {
        if bufferPosition < buffer.count {
            let count = min(maximum, buffer.count - bufferPosition)
            defer { bufferPosition += count }
            return Array(buffer[bufferPosition ..< bufferPosition + count])
        }
        let start = offset
        var chunk = [UInt8](repeating: 0, count: min(maximum, max(remaining, 0)))
        if chunk.isEmpty { return [] }
        let got = try chunk.withUnsafeMutableBytes { try readSystem(into: $0) }
        chunk.removeLast(chunk.count - got)
        buffer = []
        bufferPosition = 0
        bufferOffset = start + got
        return chunk
    }

    /// The whole rest of the file, in one read.
    func readRest() throws -> [UInt8] {
        var all: [UInt8] = []
        all.reserveCapacity(max(remaining, 0))
        while true {
            let chunk = try readChunk(maximum: max(remaining, 1 << 16))
            if chunk.isEmpty { return all }
            if all.isEmpty { all = chunk } else { all.append(contentsOf: chunk) }
        }
    }
}
