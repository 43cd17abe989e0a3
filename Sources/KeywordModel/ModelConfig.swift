// The shape of the encoder and scorer, and where each parameter block sits in one flat vector.

/// Hyper-parameters that fix the model's shape. Stored in the checkpoint.
public struct ModelConfig: Codable, Sendable, Equatable {
    /// Dimension of the frozen input word vectors (300 for chiVe).
    public var inputDimension: Int
    /// Dimension of the encoder states.
    public var hiddenDimension: Int
    /// One encoder for names and keywords (true) or one each (false).
    public var sharedEncoder: Bool
    /// Logit scale applied to the cosine in the training loss (the cosine's "inverse temperature").
    public var scale: Double
    /// Number of exact-match features (see `LexicalFeature`).
    public var featureCount: Int
    /// Rows of the hashed sub-word table (see `SubwordPieces`); 0 for a model that reads word rows only.
    public var subwordBuckets: Int

    /// The encoder state width `kwsuggest train` uses unless told otherwise.
    public static let defaultHiddenDimension = 64

    public init(inputDimension: Int, hiddenDimension: Int = ModelConfig.defaultHiddenDimension, sharedEncoder: Bool = true,
                scale: Double = 16, featureCount: Int = LexicalFeature.count, subwordBuckets: Int = 0) {
        self.inputDimension = inputDimension
        self.hiddenDimension = hiddenDimension
        self.sharedEncoder = sharedEncoder
        self.scale = scale
        self.featureCount = featureCount
        self.subwordBuckets = subwordBuckets
    }

    enum CodingKeys: String, CodingKey {
        case inputDimension, hiddenDimension, sharedEncoder, scale, featureCount, subwordBuckets
    }

    /// Headers written before the sub-word table lack `subwordBuckets`: those models have none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        inputDimension = try c.decode(Int.self, forKey: .inputDimension)
        hiddenDimension = try c.decode(Int.self, forKey: .hiddenDimension)
        sharedEncoder = try c.decode(Bool.self, forKey: .sharedEncoder)
        scale = try c.decode(Double.self, forKey: .scale)
        featureCount = try c.decode(Int.self, forKey: .featureCount)
        subwordBuckets = c.contains(.subwordBuckets) ? try c.decode(Int.self, forKey: .subwordBuckets) : 0
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(inputDimension, forKey: .inputDimension)
        try c.encode(hiddenDimension, forKey: .hiddenDimension)
        try c.encode(sharedEncoder, forKey: .sharedEncoder)
        try c.encode(scale, forKey: .scale)
        try c.encode(featureCount, forKey: .featureCount)
        if subwordBuckets > 0 { try c.encode(subwordBuckets, forKey: .subwordBuckets) }
    }
}

/// Offsets of one encoder's blocks inside the flat parameter vector.
///
/// State of token t: `x_t = W v_t + b` (or the learned `oov` state when the token has no vector),
/// `h_t = x_t + tanh(c + K₀ x_{t−1} + K₁ x_t + K₂ x_{t+1})` with zero padding at the ends.
public struct EncoderLayout: Sendable, Equatable {
    public let input: Int
    public let hidden: Int
    /// `W`, hidden × input, row-major.
    public let projection: Int
    public let projectionBias: Int
    public let oov: Int
    /// `K₀, K₁, K₂`, each hidden × hidden, row-major (output row, input column).
    public let convolution: Int
    public let convolutionBias: Int
    public let end: Int
    /// The sub-word table (buckets × hidden, row-major), shared by both encoders; `subwordBuckets` 0 for none.
    public internal(set) var subwords = 0
    public internal(set) var subwordBuckets = 0

    init(input: Int, hidden: Int, start: Int) {
        self.input = input
        self.hidden = hidden
        projection = start
        projectionBias = projection + hidden * input
        oov = projectionBias + hidden
        convolution = oov + hidden
        convolutionBias = convolution + 3 * hidden * hidden
        end = convolutionBias + hidden
    }
}

/// Where every block sits in the flat parameter vector.
public struct ParameterLayout: Sendable, Equatable {
    public let name: EncoderLayout
    public let keyword: EncoderLayout
    /// The hashed sub-word table, buckets × hidden, added to each token's projected input (after the encoders).
    public let subwords: Int
    public let subwordBuckets: Int
    /// The attention softmax temperature τ (weights = softmax(τ · similarity)).
    public let temperature: Int
    /// One weight per exact-match feature, in logit units.
    public let features: Int
    public let featureCount: Int
    public let count: Int

    public init(_ config: ModelConfig) {
        var name = EncoderLayout(input: config.inputDimension, hidden: config.hiddenDimension, start: 0)
        var keyword = config.sharedEncoder ? name
            : EncoderLayout(input: config.inputDimension, hidden: config.hiddenDimension, start: name.end)
        subwords = keyword.end
        subwordBuckets = max(0, config.subwordBuckets)
        name.subwords = subwords
        name.subwordBuckets = subwordBuckets
        keyword.subwords = subwords
        keyword.subwordBuckets = subwordBuckets
        self.name = name
        self.keyword = keyword
        temperature = subwords + subwordBuckets * config.hiddenDimension
        features = temperature + 1
        featureCount = config.featureCount
        count = features + featureCount
    }

    /// Named blocks, for gradient checks and reports.
    public var blocks: [(name: String, range: Range<Int>)] {
        var result: [(String, Range<Int>)] = []
        func add(_ prefix: String, _ e: EncoderLayout) {
            result.append(("\(prefix).projection", e.projection..<e.projectionBias))
            result.append(("\(prefix).projectionBias", e.projectionBias..<e.oov))
            result.append(("\(prefix).oov", e.oov..<e.convolution))
            result.append(("\(prefix).convolution", e.convolution..<e.convolutionBias))
            result.append(("\(prefix).convolutionBias", e.convolutionBias..<e.end))
        }
        add("name", name)
        if keyword != name { add("keyword", keyword) }
        if subwordBuckets > 0 { result.append(("subwords", subwords..<temperature)) }
        result.append(("temperature", temperature..<temperature + 1))
        result.append(("features", features..<features + featureCount))
        return result
    }
}
