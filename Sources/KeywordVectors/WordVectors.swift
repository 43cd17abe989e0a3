/// Word vectors loaded from a fastText `.vec` or `.bin` file or from kwsuggest's `.kwv` format.
///
/// Rows live in one contiguous `Float` matrix (`rowCount × dimension`, row-major). A vocabulary
/// maps keys to rows; in `.kwv` many keys share a row. For fastText `.bin` models the matrix is
/// the input matrix (`nwords + bucket` rows: words, then hashed character n-grams) and
/// `vector(for:)` computes fastText's word vector, subwords included.
///
/// Immutable after loading, so it can be shared freely between tasks.
public final class WordVectors: Sendable {
    /// Which kind of file the vectors came from.
    public enum Format: String, Sendable {
        case fastTextText = "fastText .vec"
        case fastTextBinary = "fastText .bin"
        case native = ".kwv"
        case memory = "in memory"
    }

    public let format: Format
    /// Numbers per row.
    public let dimension: Int
    /// Rows in the matrix (for `.bin`: words + n-gram buckets).
    public let rowCount: Int
    let matrix: FloatMatrix
    let keys: KeyTable
    let subwords: FastTextSubwords?

    init(format: Format, matrix: FloatMatrix, keys: KeyTable, subwords: FastTextSubwords?) {
        self.format = format
        self.matrix = matrix
        self.keys = keys
        self.subwords = subwords
        dimension = matrix.columns
        rowCount = matrix.rows
    }

    /// Vectors built in memory, e.g. for tests: `rows` is row-major (`rows.count / dimension`
    /// rows) and `keys[i]` names row `keyRows[i]`; within a row the first key given is its label.
    /// A repeated key keeps its first row.
    /// - Complexity: O(rows.count + total key bytes).
    public convenience init(dimension: Int, rows: [Float], keys: [String], keyRows: [Int]) {
        precondition(dimension > 0 && rows.count % dimension == 0, "rows must hold whole rows of \(dimension) values")
        precondition(keys.count == keyRows.count, "one row per key")
        let matrix = FloatMatrix(rows: rows.count / dimension, columns: dimension)
        matrix.withMutableStorage { storage in
            for index in rows.indices { storage[index] = rows[index] }
        }
        precondition(keyRows.allSatisfy { $0 >= 0 && $0 < matrix.rows }, "key rows must be in 0 ..< \(matrix.rows)")
        let table = KeyTable(keys: keys, rows: keyRows.map { UInt32($0) }, rowCount: matrix.rows)
        self.init(format: .memory, matrix: matrix, keys: table, subwords: nil)
    }

    /// Number of vocabulary keys.
    public var keyCount: Int { keys.count }

    /// Loads a file, choosing the format by its first bytes: the `.kwv` magic, the fastText
    /// binary magic, or else fastText text (`.vec`).
    /// - Throws: `VectorFileError` naming the file and the line or byte offset.
    /// - Complexity: O(file size); `.bin` output matrices are skipped, not read.
    public static func load(path: String) throws -> WordVectors {
        let prefix = try formatMagic(path: path)
        if NativeVectorFormat.matches(prefix) { return try NativeVectorFormat.load(path: path) }
        if FastTextBinaryFormat.matches(prefix) { return try FastTextBinaryFormat.load(path: path) }
        if path.hasSuffix(".kwv") { return try NativeVectorFormat.load(path: path) }
        if path.hasSuffix(".bin") || path.hasSuffix(".ftz") { return try FastTextBinaryFormat.load(path: path) }
        return try FastTextTextFormat.load(path: path)
    }

    /// Only the matrix of a vector file, row-major (`rows.count == rowCount × dimension`), for callers that map
    /// words to rows themselves. For `.kwv` the keys are not read, which saves the key table's time and memory;
    /// other formats are loaded in full and copied.
    /// - Complexity: O(R × D) for `.kwv`; as `load` otherwise.
    public static func loadRows(path: String) throws -> (dimension: Int, rows: [Float]) {
        if NativeVectorFormat.matches(try formatMagic(path: path)) { return try NativeVectorFormat.loadRows(path: path) }
        let vectors = try load(path: path)
        return (vectors.dimension, vectors.withMatrix { Array($0) })
    }

    /// The first (up to) 8 bytes of the file, which name its format; an empty file is an error.
    private static func formatMagic(path: String) throws -> [UInt8] {
        let reader = try FileReader(path: path)
        if reader.size == 0 { throw VectorFileError(path: path, kind: .emptyFile, location: .file, message: "file is empty") }
        return try reader.readBytes(min(8, reader.size), what: "the format magic")
    }

    /// The row of a vocabulary key (for `.bin`: the word's id in the fastText dictionary).
    /// - Complexity: O(key length) expected.
    public func row(forKey key: String) -> Int? {
        keys.index(of: key).map { keys.row(ofKey: $0) }
    }

    /// Every key that maps to `row`, label first.
    /// - Complexity: O(number of keys of the row).
    public func keys(forRow row: Int) -> [String] {
        keys.keyIndices(forRow: row).map { keys.key(at: $0) }
    }

    /// The key that names `row` in listings: its first key; nil for rows no key maps to
    /// (such as fastText n-gram buckets).
    public func label(forRow row: Int) -> String? {
        keys.firstKeyIndex(forRow: row).map { keys.key(at: $0) }
    }

    /// A float32 view of one row. `row` must be in `0 ..< rowCount`.
    /// - Complexity: O(1).
    @inlinable
    public func withRow<R>(_ row: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try _withRow(row, body)
    }

    @usableFromInline
    func _withRow<R>(_ row: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try matrix.withRow(row, body)
    }

    /// A float32 view of the whole matrix, row-major (`rowCount × dimension`).
    /// - Complexity: O(1).
    public func withMatrix<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try matrix.withAll(body)
    }

    /// The vector of `word`.
    ///
    /// For fastText `.bin` models this is exactly fastText's `getWordVector`: the mean of the
    /// word's own row (when in the vocabulary) and its character n-gram rows; an unknown word
    /// gets the mean of its n-gram rows, and the zero vector when it has none. For `.vec` and
    /// `.kwv` it is the key's row, or nil when the key is absent.
    /// - Complexity: O(dimension × n-grams) for `.bin`, O(dimension) otherwise.
    public func vector(for word: String) -> [Float]? {
        vector(forUTF8: Array(word.utf8))
    }

    /// `vector(for:)` on raw bytes, which need not be valid UTF-8 (fastText works on bytes).
    /// - Complexity: as `vector(for:)`.
    public func vector(forUTF8 word: [UInt8]) -> [Float]? {
        let wordIndex = keys.index(ofBytes: word)
        if let subwords {
            let ids = subwords.rows(for: word, wordId: wordIndex)
            var sum = [Float](repeating: 0, count: dimension)
            for id in ids { matrix.addRow(id, to: &sum) }
            if !ids.isEmpty {
                let scale = Float(1.0 / Double(ids.count))
                for index in 0 ..< dimension { sum[index] *= scale }
            }
            return sum
        }
        guard let wordIndex else { return nil }
        return matrix.withRow(keys.row(ofKey: wordIndex)) { Array($0) }
    }
}
