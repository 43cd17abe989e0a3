// Converting loaded word vectors to `.kwv`: what a fastText `.vec` or `.bin` file becomes in kwsuggest's own
// format, so that no other tool is needed to prepare vectors.

extension NativeVectorFormat {
    /// The `.kwv` file for `vectors`, loaded from `path` (named in errors).
    ///
    /// - fastText `.bin`: one row per dictionary word (labels and n-gram buckets are not kept), holding the
    ///   word's fastText vector (its own row and its n-gram rows averaged, as `print-word-vectors` prints it and
    ///   fastText writes its `.vec` file). Words outside the dictionary then have no vector.
    /// - `.vec` and `.kwv`: every row and every key as they are, in order; a `.kwv` file converts to itself.
    ///
    /// With `.float16` each value is rounded to nearest even, as `tools/vectors/kwv.py` (NumPy) does.
    /// - Throws: `VectorFileError` naming `path`: a word `.kwv` cannot hold (empty, not UTF-8, with a 0 byte,
    ///   or given twice), or a value that is not finite or, for `.float16`, outside its range.
    /// - Complexity: O(R × D + total key bytes); for `.bin`, O(words × D × n-grams).
    public static func encode(_ vectors: WordVectors, precision: Precision, path: String) throws -> [UInt8] {
        let keys = vectors.keys, dimension = vectors.dimension
        var rows: [Float] = [], keyRows: [Int] = [], texts: [String] = []
        texts.reserveCapacity(keys.count)
        keyRows.reserveCapacity(keys.count)
        // Keys are compared as bytes, as the `.kwv` key table does (String equality would fold Unicode forms).
        var seen = Set<[UInt8]>()
        for index in 0 ..< keys.count {
            let bytes = keys.keyBytes(at: index)
            let word = String(decoding: bytes, as: UTF8.self)
            func refuse(_ kind: VectorFileError.Kind, _ problem: String) -> VectorFileError {
                VectorFileError(path: path, kind: kind, location: .file,
                                message: "word \(index + 1) (row \(keys.row(ofKey: index))) \(problem): .kwv cannot hold it")
            }
            if bytes.isEmpty { throw refuse(.malformed, "is empty") }
            if UTF8Validation.firstInvalidIndex(in: Array(bytes), 0 ..< bytes.count) != nil {
                throw refuse(.invalidUTF8, "is not valid UTF-8")
            }
            if bytes.contains(0) { throw refuse(.malformed, "holds a 0 byte") }
            guard seen.insert(Array(bytes)).inserted else { throw refuse(.malformed, "'\(word)' is given twice") }
            texts.append(word)
            keyRows.append(vectors.subwords == nil ? keys.row(ofKey: index) : index)
        }
        if vectors.subwords != nil {
            rows.reserveCapacity(keys.count * dimension)
            for index in 0 ..< keys.count {
                rows.append(contentsOf: vectors.vector(forUTF8: Array(keys.keyBytes(at: index))) ?? [])
            }
        } else {
            rows = vectors.withMatrix { Array($0) }
        }
        func storable(_ value: Float) -> Bool {
            value.isFinite && (precision == .float32 || halfToFloat(floatToHalf(value)).isFinite)
        }
        if let bad = rows.firstIndex(where: { !storable($0) }) {
            let row = bad / dimension
            let word = keyRows.firstIndex(of: row).map { " ('\(texts[$0])')" } ?? ""
            let problem = rows[bad].isFinite ? "outside float16's range (convert to float32)" : "not a finite number"
            throw VectorFileError(path: path, kind: .nonNumeric, location: .file,
                                  message: "value \(bad % dimension + 1) of row \(row)\(word) is \(rows[bad]), \(problem)")
        }
        return encode(dimension: dimension, rows: rows, keys: texts, keyRows: keyRows, precision: precision)
    }
}
