// The `.kwv` word-vector format: kwsuggest's own, made to load without parsing text.
//
// All integers are little-endian. Layout, by byte offset:
//
//     0   8 bytes  magic "KWVECTRS"
//     8   u32      version, 1
//    12   u32      scalar kind: 1 = IEEE binary16 (float16), 2 = IEEE binary32 (float32)
//    16   u32      dimension D (> 0)
//    20   u32      row count R
//    24   u32      key count K
//    28   u32      flags, 0 (reserved)
//    32   u64      rows offset     (64: the rows follow the header)
//    40   u64      counts offset   (rows offset + R × D × scalar size)
//    48   u64      keys offset     (counts offset + 4 × R)
//    56   u64      keys byte length; the file ends exactly at keys offset + keys byte length
//    rows:   R × D scalars, row-major
//    counts: R × u32, the number of keys of each row; they sum to K
//    keys:   K keys, each UTF-8 (non-empty, no 0 byte) followed by one 0 byte, grouped by row:
//            the keys of row 0, then those of row 1, … Within a row the first key is its label
//            (what `nn` prints). Keys are unique, so many keys can share one row but each key
//            names exactly one row.
//
// Loading is one read of the whole file into one buffer, a float16 → float32 conversion into
// one contiguous matrix, and a hash table built over the key bytes. Nothing is parsed as text.

/// Reads and writes the `.kwv` format described at the top of this file.
public enum NativeVectorFormat {
    public static let magic: [UInt8] = Array("KWVECTRS".utf8)
    public static let version: UInt32 = 1
    static let headerSize = 64

    /// How rows are stored on disk; in memory they are always `Float`.
    public enum Precision: UInt32, Sendable {
        case float16 = 1
        case float32 = 2

        var byteWidth: Int { self == .float16 ? 2 : 4 }
    }

    /// True when the file begins with the `.kwv` magic.
    static func matches(_ prefix: [UInt8]) -> Bool { prefix.starts(with: magic) }

    /// Loads a `.kwv` file.
    /// - Complexity: O(file size).
    static func load(path: String) throws -> WordVectors {
        try decode(try readFile(path: path), path: path)
    }

    /// The whole file; an empty one is an error.
    private static func readFile(path: String) throws -> [UInt8] {
        let reader = try FileReader(path: path)
        if reader.size == 0 { throw VectorFileError(path: path, kind: .emptyFile, location: .file, message: "file is empty") }
        return try reader.readRest()
    }

    /// A little-endian integer of `file` at byte offset `at` (the caller has checked the length).
    private static func u32(_ file: [UInt8], _ at: Int) -> UInt32 {
        file.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
    }

    private static func u64(_ file: [UInt8], _ at: Int) -> UInt64 {
        file.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
    }

    /// The error for a bad field at byte `offset` of the file at `path`.
    private static func failure(_ path: String, _ kind: VectorFileError.Kind, _ offset: Int, _ message: String) -> VectorFileError {
        VectorFileError(path: path, kind: kind, location: .byteOffset(offset), message: message)
    }

    /// The header fields, checked against each other and against the file's length.
    struct Header {
        var precision: Precision
        var dimension: Int
        var rowCount: Int
        var keyCount: Int
        var rowsOffset: UInt64
        var countsOffset: UInt64
        var keysOffset: UInt64
        var end: UInt64
    }

    /// Reads and checks the header and the section offsets; errors give the byte offset of the bad field.
    static func header(_ file: [UInt8], path: String) throws -> Header {
        func fail(_ kind: VectorFileError.Kind, _ offset: Int, _ message: String) -> VectorFileError {
            failure(path, kind, offset, message)
        }
        guard file.count >= headerSize else {
            if file.count >= magic.count && !matches(file) { throw fail(.badMagic, 0, "not a .kwv file (wrong magic)") }
            throw fail(.truncated, file.count, "file is truncated: the header needs \(headerSize) bytes, the file has \(file.count)")
        }
        guard matches(file) else { throw fail(.badMagic, 0, "not a .kwv file (wrong magic)") }
        func u32(_ at: Int) -> UInt32 { NativeVectorFormat.u32(file, at) }
        func u64(_ at: Int) -> UInt64 { NativeVectorFormat.u64(file, at) }
        let version = u32(8)
        guard version == Self.version else { throw fail(.unsupportedVersion, 8, "unsupported .kwv version \(version) (this build reads version \(Self.version))") }
        guard let precision = Precision(rawValue: u32(12)) else { throw fail(.unsupportedFormat, 12, "unknown scalar kind \(u32(12))") }
        let dimension = Int(u32(16)), rowCount = Int(u32(20)), keyCount = Int(u32(24))
        guard dimension > 0 else { throw fail(.dimensionMismatch, 16, "dimension must be positive, found 0") }
        guard u32(28) == 0 else { throw fail(.unsupportedFormat, 28, "unknown flags \(u32(28))") }
        let rowsOffset = u64(32), countsOffset = u64(40), keysOffset = u64(48), keysLength = u64(56)
        let rowBytes = UInt64(rowCount) * UInt64(dimension) * UInt64(precision.byteWidth)
        guard rowsOffset == UInt64(headerSize) else { throw fail(.malformed, 32, "rows offset must be \(headerSize), found \(rowsOffset)") }
        guard countsOffset == rowsOffset + rowBytes else {
            throw fail(.dimensionMismatch, 40, "counts offset \(countsOffset) does not match \(rowCount) rows × \(dimension) dimensions (expected \(rowsOffset + rowBytes))")
        }
        guard keysOffset == countsOffset + UInt64(rowCount) * 4 else { throw fail(.malformed, 48, "keys offset \(keysOffset) does not follow the row counts") }
        let end = keysOffset + keysLength
        guard end <= UInt64(file.count) else {
            throw fail(.truncated, file.count, "file is truncated: the sections need \(end) bytes, the file has \(file.count)")
        }
        guard end == UInt64(file.count) else { throw fail(.malformed, Int(end), "\(UInt64(file.count) - end) unexpected bytes after the keys") }
        return Header(precision: precision, dimension: dimension, rowCount: rowCount, keyCount: keyCount,
                      rowsOffset: rowsOffset, countsOffset: countsOffset, keysOffset: keysOffset, end: end)
    }

    /// Converts the rows section to Float32 into `target` (`rowCount × dimension` elements).
    static func decodeRows(_ file: [UInt8], _ header: Header, into target: UnsafeMutableBufferPointer<Float>) {
        file.withUnsafeBytes { raw in
            let base = Int(header.rowsOffset)
            switch header.precision {
            case .float16:
                for index in 0 ..< target.count {
                    let bits = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: base + 2 * index, as: UInt16.self))
                    target[index] = halfToFloat(bits)
                }
            case .float32:
                for index in 0 ..< target.count {
                    target[index] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: base + 4 * index, as: UInt32.self)))
                }
            }
        }
    }

    /// Only the rows of a `.kwv` file, row-major: the header and offsets are checked as by `load`, the keys
    /// section is not read (no key table is built), so this is faster and needs less memory.
    /// - Complexity: O(R × D).
    static func loadRows(path: String) throws -> (dimension: Int, rows: [Float]) {
        let file = try readFile(path: path)
        let header = try header(file, path: path)
        let count = header.rowCount * header.dimension
        let rows = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            decodeRows(file, header, into: buffer)
            initialized = count
        }
        return (header.dimension, rows)
    }

    static func decode(_ file: [UInt8], path: String) throws -> WordVectors {
        func fail(_ kind: VectorFileError.Kind, _ offset: Int, _ message: String) -> VectorFileError {
            failure(path, kind, offset, message)
        }
        func u32(_ at: Int) -> UInt32 { NativeVectorFormat.u32(file, at) }
        let header = try header(file, path: path)
        let rowCount = header.rowCount, keyCount = header.keyCount, countsOffset = header.countsOffset
        let keysOffset = header.keysOffset, end = header.end

        // Rows → one Float matrix.
        let matrix = FloatMatrix(rows: rowCount, columns: header.dimension)
        matrix.withMutableStorage { decodeRows(file, header, into: $0) }

        // Row counts → the row of each key.
        var keyRows: [UInt32] = []
        keyRows.reserveCapacity(keyCount)
        var total = 0
        for row in 0 ..< rowCount {
            let count = Int(u32(Int(countsOffset) + 4 * row))
            total += count
            guard total <= keyCount else { throw fail(.malformed, Int(countsOffset) + 4 * row, "row key counts exceed the key count \(keyCount)") }
            keyRows.append(contentsOf: repeatElement(UInt32(row), count: count))
        }
        guard total == keyCount else { throw fail(.malformed, Int(countsOffset), "row key counts sum to \(total), the header says \(keyCount) keys") }

        // Keys: 0-terminated UTF-8.
        let keysStart = Int(keysOffset), keysEnd = Int(end)
        if let bad = UTF8Validation.firstInvalidIndex(in: file, keysStart ..< keysEnd) {
            throw fail(.invalidUTF8, bad, "invalid UTF-8 in a key")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keysEnd - keysStart)
        var starts: [UInt32] = [0]
        starts.reserveCapacity(keyCount + 1)
        var position = keysStart
        while position < keysEnd {
            guard starts.count <= keyCount else { throw fail(.malformed, position, "more keys than the header's \(keyCount)") }
            guard let zero = file[position ..< keysEnd].firstIndex(of: 0) else {
                throw fail(.truncated, keysEnd, "file is truncated inside a key: no terminating 0 byte")
            }
            guard zero > position else { throw fail(.malformed, position, "empty key") }
            bytes.append(contentsOf: file[position ..< zero])
            starts.append(UInt32(bytes.count))
            position = zero + 1
        }
        guard starts.count == keyCount + 1 else { throw fail(.truncated, keysEnd, "found \(starts.count - 1) keys, the header says \(keyCount)") }
        let keys = KeyTable(bytes: bytes, starts: starts, rows: keyRows, rowCount: rowCount)
        if let duplicate = keys.firstDuplicate {
            // Key i starts after i earlier keys' bytes and their i terminating zeros.
            throw fail(.malformed, keysStart + Int(starts[duplicate]) + duplicate, "duplicate key '\(keys.key(at: duplicate))'")
        }
        return WordVectors(format: .native, matrix: matrix, keys: keys, subwords: nil)
    }

    /// Encodes rows and keys as a `.kwv` file. `keys[i]` names row `rows[i]`; within a row the
    /// first key given becomes its label.
    /// - Complexity: O(R × D + total key bytes).
    public static func encode(dimension: Int, rows: [Float], keys: [String], keyRows: [Int], precision: Precision) -> [UInt8] {
        precondition(dimension > 0 && rows.count % dimension == 0 && keys.count == keyRows.count)
        let rowCount = rows.count / dimension
        var file = magic
        func put32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { file.append(contentsOf: $0) } }
        func put64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { file.append(contentsOf: $0) } }
        var grouped = [[String]](repeating: [], count: rowCount)
        for (key, row) in zip(keys, keyRows) { grouped[row].append(key) }
        var keyBytes: [UInt8] = []
        for group in grouped { for key in group { keyBytes.append(contentsOf: key.utf8); keyBytes.append(0) } }
        let rowBytes = UInt64(rows.count * precision.byteWidth)
        put32(version); put32(precision.rawValue); put32(UInt32(dimension)); put32(UInt32(rowCount))
        put32(UInt32(keys.count)); put32(0)
        put64(UInt64(headerSize)); put64(UInt64(headerSize) + rowBytes)
        put64(UInt64(headerSize) + rowBytes + UInt64(4 * rowCount)); put64(UInt64(keyBytes.count))
        for value in rows {
            switch precision {
            case .float16: withUnsafeBytes(of: floatToHalf(value).littleEndian) { file.append(contentsOf: $0) }
            case .float32: put32(value.bitPattern)
            }
        }
        for group in grouped { put32(UInt32(group.count)) }
        file.append(contentsOf: keyBytes)
        return file
    }

    /// IEEE binary16 bits → Float (exact).
    @inline(__always)
    static func halfToFloat(_ bits: UInt16) -> Float {
        let sign = UInt32(bits & 0x8000) << 16
        let exponent = Int(bits >> 10) & 0x1F
        let fraction = UInt32(bits & 0x03FF)
        if exponent == 0x1F { return Float(bitPattern: sign | 0x7F80_0000 | (fraction << 13)) }
        if exponent == 0 {
            // Zero or subnormal: fraction × 2^-24.
            let magnitude = Float(fraction) * 0x1p-24
            return sign == 0 ? magnitude : -magnitude
        }
        return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | (fraction << 13))
    }

    /// Float → IEEE binary16 bits, rounding to nearest even (as NumPy's `astype(float16)`).
    static func floatToHalf(_ value: Float) -> UInt16 {
        let bits = value.bitPattern
        let sign = UInt16((bits >> 16) & 0x8000)
        if value.isNaN { return sign | 0x7E00 }
        let magnitude = abs(value)
        if magnitude >= 65520 { return sign | 0x7C00 }
        if magnitude < 0x1p-14 {
            // Subnormal half: round magnitude / 2^-24 to an integer, ties to even.
            let scaled = (magnitude * 0x1p24).rounded(.toNearestOrEven)
            return sign | UInt16(scaled)
        }
        let exponent = Int((bits >> 23) & 0xFF) - 127 + 15
        var mantissa = bits & 0x007F_FFFF
        var half = UInt32(exponent) << 10 | (mantissa >> 13)
        mantissa &= 0x1FFF
        if mantissa > 0x1000 || (mantissa == 0x1000 && half & 1 == 1) { half += 1 }
        return sign | UInt16(half)
    }
}
