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

/// A float formatted like C's `%.*g`: the shortest form with `significantDigits` digits.
/// With the default 9 digits, any float32 round-trips.
func formatFloat(_ value: Float, significantDigits: Int = 9) -> String {
    var buffer = [CChar](repeating: 0, count: 48)
    let count = buffer.withUnsafeMutableBufferPointer { pointer in
        withVaList([Int32(significantDigits), Double(value)]) { vsnprintf(pointer.baseAddress, pointer.count, "%.*g", $0) }
    }
    return String(decoding: buffer[0 ..< Int(max(count, 0))].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
