/// Reads fastText's binary model (`.bin`, magic 793712314, version ≤ 12): the arguments, the
/// dictionary and the dense input matrix. The output matrix is checked for size and skipped.
/// Quantized models (`.ftz`) are refused with a clear error.
///
/// Layout (little-endian), as fastText's `saveModel` writes it:
///   i32 magic, i32 version;
///   args: i32 dim, ws, epoch, minCount, neg, wordNgrams, loss, model, bucket, minn, maxn,
///         lrUpdateRate; f64 t;
///   dictionary: i32 size, nwords, nlabels; i64 ntokens, pruneidx_size;
///         size × (0-terminated word, i64 count, i8 type); pruneidx_size × (i32, i32);
///   u8 quantized input; input matrix: i64 rows, i64 columns, rows × columns f32;
///   u8 quantized output; output matrix: i64 rows, i64 columns, rows × columns f32.
enum FastTextBinaryFormat {
    static let magic: Int32 = 793_712_314
    static let version: Int32 = 12
    /// fastText's `model_name::sup`.
    static let supervisedModel: Int32 = 3

    static func matches(_ prefix: [UInt8]) -> Bool {
        prefix.count >= 4 && prefix.withUnsafeBytes { Int32(littleEndian: $0.loadUnaligned(as: Int32.self)) } == magic
    }

    /// - Complexity: O(input matrix size + dictionary size).
    static func load(path: String) throws -> WordVectors {
        let reader = try FileReader(path: path)
        if reader.size == 0 { throw VectorFileError(path: path, kind: .emptyFile, location: .file, message: "file is empty") }
        let fileMagic = try reader.readInt32("the magic number")
        guard fileMagic == magic else {
            throw reader.error(.badMagic, "not a fastText binary model (magic \(fileMagic), expected \(magic))", at: 0)
        }
        let fileVersion = try reader.readInt32("the version")
        guard fileVersion == 11 || fileVersion == version else {
            throw reader.error(.unsupportedVersion, "unsupported fastText model version \(fileVersion) (supported: 11, 12)", at: 4)
        }

        // Args.
        let dimensionOffset = reader.offset
        let dimension = Int(try reader.readInt32("args.dim"))
        for name in ["ws", "epoch", "minCount", "neg", "wordNgrams", "loss"] { _ = try reader.readInt32("args.\(name)") }
        let model = try reader.readInt32("args.model")
        let bucketOffset = reader.offset
        let bucket = Int(try reader.readInt32("args.bucket"))
        let minn = Int(try reader.readInt32("args.minn"))
        var maxn = Int(try reader.readInt32("args.maxn"))
        _ = try reader.readInt32("args.lrUpdateRate")
        _ = try reader.readDouble("args.t")
        guard dimension > 0 else { throw reader.error(.dimensionMismatch, "dimension must be positive, found \(dimension)", at: dimensionOffset) }
        guard bucket >= 0 else { throw reader.error(.malformed, "bucket must not be negative, found \(bucket)", at: bucketOffset) }
        if fileVersion == 11 && model == supervisedModel { maxn = 0 } // as fastText: old supervised models had no n-grams

        // Dictionary.
        let sizeOffset = reader.offset
        let size = Int(try reader.readInt32("dictionary.size"))
        let wordCount = Int(try reader.readInt32("dictionary.nwords"))
        let labelCount = Int(try reader.readInt32("dictionary.nlabels"))
        _ = try reader.readInt64("dictionary.ntokens")
        let prunedSize = Int(try reader.readInt64("dictionary.pruneidx_size"))
        guard size >= 0, wordCount >= 0, labelCount >= 0, wordCount + labelCount == size else {
            throw reader.error(.malformed, "inconsistent dictionary sizes: size \(size), nwords \(wordCount), nlabels \(labelCount)", at: sizeOffset)
        }
        // Each entry takes at least 10 bytes (0 terminator, i64 count, i8 type).
        guard size <= reader.remaining / 10 else {
            throw reader.error(.truncated, "file is truncated: \(size) dictionary entries cannot fit in the \(reader.remaining) bytes left", at: sizeOffset)
        }
        var bytes: [UInt8] = []
        var starts: [UInt32] = [0]
        starts.reserveCapacity(size + 1)
        for index in 0 ..< size {
            let word = try reader.readCString("dictionary entry \(index)")
            _ = try reader.readInt64("the count of dictionary entry \(index)")
            _ = try reader.readUInt8("the type of dictionary entry \(index)")
            bytes.append(contentsOf: word)
            starts.append(UInt32(bytes.count))
        }
        var pruned: [Int32: Int32] = [:]
        if prunedSize > 0 {
            guard prunedSize <= reader.remaining / 8 else {
                throw reader.error(.truncated, "file is truncated: \(prunedSize) pruned n-gram pairs do not fit")
            }
            for _ in 0 ..< prunedSize {
                let from = try reader.readInt32("a pruned n-gram index")
                pruned[from] = try reader.readInt32("a pruned n-gram index")
            }
        }

        // Input matrix.
        let quantizedOffset = reader.offset
        let quantized = try reader.readUInt8("the quantization flag")
        if quantized != 0 {
            throw reader.error(.unsupportedFormat, "quantized fastText models (.ftz) are not supported; use the .bin or .vec file", at: quantizedOffset)
        }
        if prunedSize > 0 {
            throw reader.error(.malformed, "a dense model with a pruned dictionary is invalid (fastText refuses it too)", at: quantizedOffset)
        }
        let shapeOffset = reader.offset
        let rows = try reader.readInt64("the input matrix row count")
        let columns = try reader.readInt64("the input matrix column count")
        guard columns == Int64(dimension) else {
            throw reader.error(.dimensionMismatch, "input matrix has \(columns) columns, args.dim is \(dimension)", at: shapeOffset + 8)
        }
        guard rows == Int64(wordCount + bucket) else {
            throw reader.error(.dimensionMismatch, "input matrix has \(rows) rows, expected nwords + bucket = \(wordCount + bucket)", at: shapeOffset)
        }
        let rowCount = Int(rows)
        guard rowCount.multipliedReportingOverflow(by: dimension * 4).overflow == false,
              rowCount * dimension * 4 <= reader.remaining else {
            throw reader.error(.truncated, "file is truncated: the input matrix needs \(rowCount * dimension * 4) bytes, only \(reader.remaining) left")
        }
        let matrix = FloatMatrix(rows: rowCount, columns: dimension)
        try matrix.withMutableStorage { try reader.readFloats(into: $0, what: "the input matrix") }

        // Output matrix: check it is all there, but do not read it.
        let quantizedOutput = try reader.readUInt8("the output quantization flag")
        guard quantizedOutput == 0 else {
            throw reader.error(.unsupportedFormat, "quantized output matrices are not supported", at: reader.offset - 1)
        }
        let outputShapeOffset = reader.offset
        let outputRows = try reader.readInt64("the output matrix row count")
        let outputColumns = try reader.readInt64("the output matrix column count")
        guard outputRows >= 0, outputColumns == Int64(dimension) else {
            throw reader.error(.dimensionMismatch, "output matrix is \(outputRows) × \(outputColumns), expected \(dimension) columns", at: outputShapeOffset)
        }
        let (outputBytes, overflow) = Int(outputRows).multipliedReportingOverflow(by: Int(outputColumns) * 4)
        guard !overflow, outputBytes <= reader.remaining else {
            throw reader.error(.truncated, "file is truncated: the output matrix needs \(outputBytes) bytes, only \(reader.remaining) left")
        }

        // The vocabulary is the words (entries 0 ..< nwords); labels of supervised models follow
        // them in the dictionary but have no input row of their own (`vector(for:)` still treats
        // them as fastText does, through `labelIds`).
        let ids = (0 ..< wordCount).map { UInt32($0) }
        let keys = KeyTable(bytes: Array(bytes[0 ..< Int(starts[wordCount])]), starts: Array(starts[0 ... wordCount]),
                            rows: ids, rowCount: rowCount)
        var subwords = FastTextSubwords(wordCount: wordCount, minn: minn, maxn: maxn, bucket: bucket,
                                        prunedSize: prunedSize, pruned: pruned)
        var entryRows: [[Int32]] = []
        entryRows.reserveCapacity(size)
        for index in 0 ..< size {
            // fastText gives every entry its own id as first "subword"; for a label that id points
            // into the bucket rows (past them when bucket < nlabels, which fastText does not check:
            // such ids are dropped here).
            var rows: [Int32] = index < rowCount ? [Int32(index)] : []
            let word = Array(bytes[Int(starts[index]) ..< Int(starts[index + 1])])
            if word != FastTextSubwords.endOfSentence { subwords.appendNgramRows(of: word, to: &rows) }
            entryRows.append(rows)
            if index >= wordCount { subwords.labelIds[word] = index }
        }
        subwords.entryRows = entryRows
        return WordVectors(format: .fastTextBinary, matrix: matrix, keys: keys, subwords: subwords)
    }
}
