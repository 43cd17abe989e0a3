// All trainable parameters in one flat vector, their initialisation, and the checkpoint files.
import Foundation
import StrictJSON

/// The model's parameters: a config and one flat Float64 vector laid out by `ParameterLayout`.
public struct ModelWeights: Sendable, Equatable {
    public var config: ModelConfig
    public var values: [Double]
    public var layout: ParameterLayout { ParameterLayout(config) }

    public init(config: ModelConfig, values: [Double]) {
        precondition(values.count == ParameterLayout(config).count, "parameter count does not match the config")
        self.config = config
        self.values = values
    }

    /// Seeded initialisation: W a scaled Gaussian projection (so the untrained encoder roughly preserves
    /// cosines), small convolution kernels, τ = 5, feature weights 0.
    public init(config: ModelConfig, seed: UInt64) {
        let layout = ParameterLayout(config)
        var values = [Double](repeating: 0, count: layout.count)
        var generator = SeededGenerator(seed: seed)
        func fill(_ e: EncoderLayout) {
            let projectionScale = 1 / Double(e.input).squareRoot()
            for i in e.projection..<e.projectionBias { values[i] = generator.normal() * projectionScale }
            for i in e.oov..<e.convolution { values[i] = generator.normal() * 0.1 }
            let convolutionScale = 0.1 / Double(e.hidden).squareRoot()
            for i in e.convolution..<e.convolutionBias { values[i] = generator.normal() * convolutionScale }
        }
        fill(layout.name)
        if !config.sharedEncoder { fill(layout.keyword) }
        values[layout.temperature] = 5
        self.init(config: config, values: values)
    }

    public var temperature: Double { values[layout.temperature] }
    public var featureWeights: [Double] {
        let l = layout
        return Array(values[l.features..<(l.features + l.featureCount)])
    }
}

/// A checkpoint problem; the message names the file.
public struct CheckpointError: Error, CustomStringConvertible {
    public var description: String
}

/// Reads and writes `encoder.json` (config and metadata) and `encoder.bin` (float32 little-endian values).
public enum Checkpoint {
    public static let formatVersion = 1
    public static let headerName = "encoder.json"
    public static let valuesName = "encoder.bin"

    struct Header: Codable {
        var format: Int
        var config: ModelConfig
        var parameterCount: Int
        var blocks: [String: [Int]]
        /// The evidence feature of each weight in the `features` block, in order. Absent in older files, which
        /// hold them in `LexicalFeature.legacyOrder`.
        var features: [String]?
        /// How the `subwords` block's rows are addressed (`SubwordPieces.scheme`); written with a sub-word table.
        var subwordScheme: String?
    }

    /// Writes the two files into `directory`.
    public static func save(_ weights: ModelWeights, directory: String) throws {
        let layout = weights.layout
        var blocks: [String: [Int]] = [:]
        for block in layout.blocks { blocks[block.name] = [block.range.lowerBound, block.range.upperBound] }
        precondition(weights.config.featureCount == LexicalFeature.count, "feature weights do not match this build's features")
        let header = Header(format: formatVersion, config: weights.config, parameterCount: layout.count, blocks: blocks,
                            features: LexicalFeature.allCases.map(\.name),
                            subwordScheme: weights.config.subwordBuckets > 0 ? SubwordPieces.scheme : nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var json = try encoder.encode(header)
        json.append(0x0A)
        try json.write(to: URL(fileURLWithPath: directory).appendingPathComponent(headerName), options: .atomic)
        try valuesData(weights).write(to: URL(fileURLWithPath: directory).appendingPathComponent(valuesName), options: .atomic)
    }

    /// The bytes of `encoder.bin`: every parameter as a little-endian Float32, in layout order.
    public static func valuesData(_ weights: ModelWeights) -> Data {
        var data = Data(capacity: weights.values.count * 4)
        for value in weights.values {
            var bits = Float(value).bitPattern.littleEndian
            withUnsafeBytes(of: &bits) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// Largest weight magnitude a loaded encoder may hold. Training keeps weights small (the shipped encoder's
    /// largest is 4.7); values near Float's range overflow the encoder into NaN scores.
    public static let maxWeightMagnitude = 1e4

    /// Reads the two files from `directory`; errors name the file. Evidence weights are mapped to this build's
    /// features by name (see `mapFeatures`); `notes` receives a line for each feature the file lacks.
    public static func load(directory: String, notes: ((String) -> Void)? = nil) throws -> ModelWeights {
        let headerPath = URL(fileURLWithPath: directory).appendingPathComponent(headerName).path
        let valuesPath = URL(fileURLWithPath: directory).appendingPathComponent(valuesName).path
        guard let json = FileManager.default.contents(atPath: headerPath) else {
            throw CheckpointError(description: "\(headerPath): cannot read the encoder header")
        }
        let header: Header
        do {
            header = try JSONDecoding.decode(Header.self, from: [UInt8](json))
        } catch {
            let line = error.line(in: json).map { ":\($0)" } ?? ""
            throw CheckpointError(description: "\(headerPath)\(line): not an encoder header: \(error)")
        }
        guard header.format == formatVersion else {
            throw CheckpointError(description: "\(headerPath): format \(header.format) is not supported (expected \(formatVersion))")
        }
        guard header.config.inputDimension > 0, header.config.hiddenDimension > 0, header.config.featureCount >= 0,
              header.config.hiddenDimension <= 4096, header.config.inputDimension <= 65536 else {
            throw CheckpointError(description: "\(headerPath): implausible dimensions")
        }
        if header.config.subwordBuckets > 0, let scheme = header.subwordScheme, scheme != SubwordPieces.scheme {
            throw CheckpointError(description: "\(headerPath): sub-word scheme '\(scheme)' is not this build's ('\(SubwordPieces.scheme)')")
        }
        guard header.config.subwordBuckets >= 0, header.config.subwordBuckets <= 1 << 22 else {
            throw CheckpointError(description: "\(headerPath): implausible subwordBuckets \(header.config.subwordBuckets)")
        }
        let layout = ParameterLayout(header.config)
        guard layout.count == header.parameterCount else {
            throw CheckpointError(description: "\(headerPath): parameterCount \(header.parameterCount) does not match the config (\(layout.count))")
        }
        guard let data = FileManager.default.contents(atPath: valuesPath) else {
            throw CheckpointError(description: "\(valuesPath): cannot read the encoder weights")
        }
        guard data.count == layout.count * 4 else {
            throw CheckpointError(description: "\(valuesPath): \(data.count) bytes, expected \(layout.count * 4)")
        }
        var values = [Double](repeating: 0, count: layout.count)
        data.withUnsafeBytes { raw in
            for i in 0..<layout.count {
                let bits = raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
                values[i] = Double(Float(bitPattern: UInt32(littleEndian: bits)))
            }
        }
        if let bad = values.firstIndex(where: { !$0.isFinite || abs($0) > maxWeightMagnitude }) {
            let what = values[bad].isFinite ? "a weight of \(values[bad]), beyond ±\(Int(maxWeightMagnitude))," : "a non-finite weight"
            throw CheckpointError(description: "\(valuesPath): \(what) at index \(bad) (byte \(bad * 4)); the file is damaged")
        }
        let stored = ModelWeights(config: header.config, values: values)
        return try mapFeatures(stored, names: header.features, file: headerPath, notes: notes)
    }

    /// Rearranges a checkpoint's evidence weights into this build's feature order, by name. A file without names
    /// holds them in `LexicalFeature.legacyOrder`. A name this build does not know is an error (its weight would
    /// be silently dropped); a feature the file lacks gets weight 0, and `notes` says so.
    static func mapFeatures(_ stored: ModelWeights, names: [String]?, file: String,
                            notes: ((String) -> Void)?) throws -> ModelWeights {
        let storedCount = stored.config.featureCount
        let fileNames: [String]
        if let names {
            fileNames = names
        } else {
            guard storedCount <= LexicalFeature.legacyOrder.count else {
                throw CheckpointError(description: "\(file): \(storedCount) unnamed feature weights, more than the \(LexicalFeature.legacyOrder.count) of the legacy order")
            }
            fileNames = Array(LexicalFeature.legacyOrder.prefix(storedCount))
        }
        guard fileNames.count == storedCount else {
            throw CheckpointError(description: "\(file): \(fileNames.count) feature names for \(storedCount) feature weights")
        }
        guard Set(fileNames).count == fileNames.count else {
            throw CheckpointError(description: "\(file): a feature is named twice")
        }
        var byFeature = [Double](repeating: 0, count: LexicalFeature.count)
        for (offset, name) in fileNames.enumerated() {
            guard let feature = LexicalFeature(name: name) else {
                throw CheckpointError(description: "\(file): unknown evidence feature '\(name)' (this build knows \(LexicalFeature.allCases.map(\.name).joined(separator: ", ")))")
            }
            byFeature[feature.rawValue] = stored.values[stored.layout.features + offset]
        }
        for feature in LexicalFeature.allCases where !fileNames.contains(feature.name) {
            notes?("\(file): no weight for evidence feature '\(feature.name)'; it gets weight 0")
        }
        var config = stored.config
        config.featureCount = LexicalFeature.count
        let layout = ParameterLayout(config)
        // The features block is the last one, so every other parameter keeps its position.
        precondition(stored.layout.features == layout.features, "the features block must come last")
        let values = Array(stored.values[0..<stored.layout.features]) + byFeature
        return ModelWeights(config: config, values: values)
    }
}
