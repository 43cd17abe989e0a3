#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file into memory and decodes little-endian fields from it, checking bounds.
///
/// The only type in KeywordText that touches raw memory: every read is bounds-checked first,
/// and typed arrays are filled with one copy per section. KeywordVectors has a streaming reader of its own
/// (`FileReader`) for files too large to hold whole; its comment says why the two stay apart.
struct ByteReader {
    let path: String
    let bytes: [UInt8]
    private(set) var offset = 0

    init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
    }

    /// Reads the file at `path` in one go.
    static func readFile(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            let reason = errno == ENOENT ? "no such file" : "cannot open: \(String(cString: strerror(errno)))"
            throw TextFileError(path: path, location: .file, message: reason)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw TextFileError(path: path, location: .file, message: "not a regular file")
        }
        let size = Int(status.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        try bytes.withUnsafeMutableBytes { buffer in
            while done < size {
                guard let base = buffer.baseAddress else { break }
                let got = read(descriptor, base + done, size - done)
                if got < 0 {
                    if errno == EINTR { continue }
                    throw TextFileError(path: path, location: .byteOffset(done),
                                        message: "read failed: \(String(cString: strerror(errno)))")
                }
                if got == 0 { break }
                done += got
            }
        }
        guard done == size else {
            throw TextFileError(path: path, location: .byteOffset(done), message: "file shrank while reading")
        }
        return bytes
    }

    func error(_ message: String, at position: Int? = nil) -> TextFileError {
        TextFileError(path: path, location: .byteOffset(position ?? offset), message: message)
    }

    private func require(_ count: Int, _ what: String) throws {
        guard count >= 0, count <= bytes.count - offset else {
            throw error("file is truncated: \(what) needs \(count) bytes, only \(bytes.count - offset) left")
        }
    }

    mutating func skip(_ count: Int, _ what: String) throws {
        try require(count, what)
        offset += count
    }

    mutating func bytes(_ count: Int, _ what: String) throws -> [UInt8] {
        try require(count, what)
        defer { offset += count }
        return Array(bytes[offset ..< offset + count])
    }

    mutating func uint16(_ what: String) throws -> UInt16 {
        try require(2, what)
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    mutating func uint32(_ what: String) throws -> UInt32 {
        try require(4, what)
        defer { offset += 4 }
        var value: UInt32 = 0
        for index in 0 ..< 4 { value |= UInt32(bytes[offset + index]) << (8 * index) }
        return value
    }

    /// `count` little-endian values of a fixed-width integer type, copied in one go.
    mutating func array<T: FixedWidthInteger>(_ type: T.Type, count: Int, _ what: String) throws -> [T] {
        let size = MemoryLayout<T>.size
        guard count >= 0, count <= Int.max / size else { throw error("\(what): bad count \(count)") }
        try require(count * size, what)
        var result = [T](repeating: 0, count: count)
        let start = offset
        result.withUnsafeMutableBytes { destination in
            bytes.withUnsafeBytes { source in
                destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start ..< start + count * size]))
            }
        }
        offset += count * size
        #if _endian(big)
        result = result.map { T(littleEndian: $0) }
        #endif
        return result
    }
}
