// The trained encoder in Float32 for inference, plus the "untrained" identity encoder.
import KeywordModel
#if canImport(Glibc)
import Glibc
#endif

/// One side's encoder in Float32 (see `EncoderLayout` for the equations), or the identity on word vectors.
public struct FloatEncoder: Sendable {
    public let input: Int
    public let hidden: Int
    public let isIdentity: Bool
    let projection: [Float]
    let projectionBias: [Float]
    let oov: [Float]
    let convolution: [Float]
    let convolutionBias: [Float]
    /// The hashed sub-word table, buckets × hidden (empty without one; see `SubwordPieces`).
    let subwords: [Float]
    let subwordBuckets: Int

    init(_ weights: ModelWeights, _ e: EncoderLayout) {
        let table = e.subwordBuckets > 0
            ? weights.values[e.subwords..<(e.subwords + e.subwordBuckets * e.hidden)].map(Float.init) : []
        self.init(weights, e, subwords: table, subwordBuckets: e.subwordBuckets)
    }

    init(_ weights: ModelWeights, _ e: EncoderLayout, sharing table: FloatEncoder) {
        self.init(weights, e, subwords: table.subwords, subwordBuckets: table.subwordBuckets)
    }

    private init(_ weights: ModelWeights, _ e: EncoderLayout, subwords: [Float], subwordBuckets: Int) {
        let v = weights.values
        input = e.input
        hidden = e.hidden
        isIdentity = false
        projection = v[e.projection..<e.projectionBias].map(Float.init)
        projectionBias = v[e.projectionBias..<e.oov].map(Float.init)
        oov = v[e.oov..<e.convolution].map(Float.init)
        convolution = v[e.convolution..<e.convolutionBias].map(Float.init)
        convolutionBias = v[e.convolutionBias..<e.end].map(Float.init)
        self.subwordBuckets = subwordBuckets
        self.subwords = subwords
    }

    init(identity dimension: Int) {
        input = dimension
        hidden = dimension
        isIdentity = true
        projection = []; projectionBias = []; convolution = []; convolutionBias = []
        oov = [Float](repeating: 0, count: dimension)
        subwords = []
        subwordBuckets = 0
    }

    /// Writes the n × hidden states of `rows` into `states`, using `projected` (n × hidden) as work space.
    /// `kernel` picks the matrix-vector product (the results differ only by Float32 rounding).
    /// - Complexity: O(n · hidden · (input + 3 · hidden)).
    func encode(_ rows: UnsafeBufferPointer<Int32>, subwords pieces: SubwordPieces, vectors: InputVectors,
                kernel: ScoringKernel, projected: UnsafeMutablePointer<Float>, states: UnsafeMutablePointer<Float>) {
        let n = rows.count, h = hidden, d = input
        vectors.storage.withUnsafeBufferPointer { table in
            guard let tableBase = table.baseAddress else { return }
            for t in 0..<n {
                let row = rows[t]
                let x = isIdentity ? states + t * h : projected + t * h
                if vectors.contains(row) && d == vectors.dimension {
                    let v = tableBase + Int(row) * d
                    if isIdentity {
                        for q in 0..<h { x[q] = v[q] }
                    } else {
                        for o in 0..<h { x[o] = projectionBias[o] }
                        projection.withUnsafeBufferPointer { w in
                            FloatKernels.matvecAdd(kernel: kernel, w.baseAddress!, rows: h, cols: d, v, x)
                        }
                    }
                } else {
                    for q in 0..<h { x[q] = oov[q] }
                }
            }
        }
        if isIdentity { return }
        if subwordBuckets > 0 {
            subwords.withUnsafeBufferPointer { table in
                pieces.hashes.withUnsafeBufferPointer { hashes in
                    for t in 0..<n {
                        let range = pieces.range(t)
                        if range.isEmpty { continue }
                        let weight = 1 / Float(range.count), x = projected + t * h
                        for j in range {
                            let base = Int(hashes[j] % UInt32(subwordBuckets)) * h
                            for q in 0..<h { x[q] += weight * table[base + q] }
                        }
                    }
                }
            }
        }
        convolution.withUnsafeBufferPointer { weights in
            let k = weights.baseAddress!
            for t in 0..<n {
                let out = states + t * h
                for o in 0..<h { out[o] = convolutionBias[o] }
                for tap in 0..<3 {
                    let s = t + tap - 1
                    if s < 0 || s >= n { continue }
                    FloatKernels.matvecAdd(kernel: kernel, k + tap * h * h, rows: h, cols: h, projected + s * h, out)
                }
                FloatKernels.addTanh(kernel: kernel, projected + t * h, out, count: h)
            }
        }
    }
}

/// Everything inference needs: both encoders, the attention temperature and the exact-match weights
/// (already divided by the training scale, so a score is "cosine + evidence").
public struct InferenceModel: Sendable {
    public let name: FloatEncoder
    public let keyword: FloatEncoder
    public var temperature: Float
    public var featureWeights: [Float]
    public var hidden: Int { name.hidden }

    public init(_ weights: ModelWeights) {
        let layout = weights.layout
        name = FloatEncoder(weights, layout.name)
        keyword = layout.keyword == layout.name ? name : FloatEncoder(weights, layout.keyword, sharing: name)
        temperature = Float(weights.temperature)
        // Checkpoint.load has already mapped the file's feature weights onto this build's features by name.
        precondition(weights.featureWeights.count == LexicalFeature.count, "feature weights not mapped to this build's features")
        featureWeights = weights.featureWeights.map { Float($0 / weights.config.scale) }
    }

    /// The "untrained" baseline: raw word vectors on both sides, the article's attention with τ = 5, no evidence.
    public init(identity dimension: Int, temperature: Float = 5) {
        name = FloatEncoder(identity: dimension)
        keyword = name
        self.temperature = temperature
        featureWeights = [Float](repeating: 0, count: LexicalFeature.count)
    }
}
