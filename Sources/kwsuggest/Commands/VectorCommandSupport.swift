#if canImport(Glibc)
import Glibc
#endif
import KeywordVectors

/// Loads word vectors, turning a load failure into a command failure (exit 1).
func loadVectors(_ path: String) throws -> WordVectors {
    do {
        return try WordVectors.load(path: path)
    } catch let error as VectorFileError {
        throw CommandError.failure(error.description)
    }
}

/// Calls `body` with every word of standard input, splitting at ASCII white space as fastText's
/// `std::cin >> word` does.
func forEachInputWord(_ body: (String) throws -> Void) throws {
    try forEachInputWordBytes { try body(String(decoding: $0, as: UTF8.self)) }
}

/// `forEachInputWord` with the word's raw bytes (which need not be valid UTF-8).
func forEachInputWordBytes(_ body: ([UInt8]) throws -> Void) throws {
    var word: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw CommandError.failure("cannot read standard input")
        }
        if count == 0 { break }
        for byte in chunk[0 ..< count] {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D:
                if !word.isEmpty {
                    try body(word)
                    word.removeAll(keepingCapacity: true)
                }
            default:
                word.append(byte)
            }
        }
    }
    if !word.isEmpty { try body(word) }
}

/// A float formatted like C's `%.*g`: the shortest form with `significantDigits` digits.
/// With the default 9 digits, any float32 round-trips.
func formatFloat(_ value: Float, significantDigits: Int = 9) -> String {
    var buffer = [CChar](repeating: 0, count: 48)
    let count = buffer.withUnsafeMutableBufferPointer { pointer in
        withVaList([Int32(significantDigits), Double(value)]) { vsnprintf(pointer.baseAddress, pointer.count, "%.*g", $0) }
    }
    return String(decoding: buffer[0 ..< Int(max(count, 0))].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Collects output and writes it to standard output in large pieces.
final class OutputBuffer {
    private var bytes: [UInt8] = []

    func write(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= 1 << 16 { flush() }
    }

    func write(bytes more: [UInt8]) {
        bytes.append(contentsOf: more)
        if bytes.count >= 1 << 16 { flush() }
    }

    func flush() {
        var offset = 0
        bytes.withUnsafeBytes { buffer in
            while offset < buffer.count {
                let written = Glibc.write(1, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
