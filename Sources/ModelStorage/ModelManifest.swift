// manifest.json: what a model directory holds, where it came from, and how good it was.
import Foundation
import StrictJSON

/// The model directory's manifest. Unknown fields are ignored when reading; a repeated key, trailing data or a
/// field of the wrong type is an error naming the file, and the line and byte when it is not valid JSON.
public struct ModelManifest: Codable, Sendable, Equatable {
    public struct Metrics: Codable, Sendable, Equatable {
        public var n: Int
        public var accuracyAt1: Double
        public var accuracyAt5: Double
        public var mrr: Double
        enum CodingKeys: String, CodingKey {
            case n
            case accuracyAt1 = "accuracy_at_1"
            case accuracyAt5 = "accuracy_at_5"
            case mrr
        }
        public init(n: Int, accuracyAt1: Double, accuracyAt5: Double, mrr: Double) {
            self.n = n
            self.accuracyAt1 = accuracyAt1
            self.accuracyAt5 = accuracyAt5
            self.mrr = mrr
        }
    }

    /// The confidence calibration (calibration.json) and where it was fitted.
    public struct Calibration: Codable, Sendable, Equatable {
        public var file: String
        public var sha256: String
        public var data: String
        public var names: Int
        /// The share of the training names held out for it, when it came from a calibration split.
        public var fraction: Double?

        public init(file: String, sha256: String, data: String, names: Int, fraction: Double?) {
            self.file = file
            self.sha256 = sha256
            self.data = data
            self.names = names
            self.fraction = fraction
        }
    }

    public var formatVersion: Int
    public var modelVersion: String
    /// Where the sources and their licences are described (relative to the model directory).
    public var sources: String
    public var trainingData: String?
    public var trainingDataSHA256: String?
    public var seed: UInt64?
    public var epochs: Int?
    public var trainingSeconds: Double?
    /// The dev-chosen evidence multiplier already folded into the encoder's feature weights.
    public var evidenceScale: Double?
    /// The dev-chosen value of the variety evidence for brand and product-line rows of `varieties.tsv` (1 for
    /// other rows, and for all rows while training); absent means 1.
    public var brandEvidenceScale: Double?
    public var hidden: Int?
    public var sharedEncoder: Bool?
    public var command: String?
    public var devMetrics: [String: Metrics]?
    public var calibration: Calibration?
    /// SHA-256 (hex) of each model file the loader reads, by file name; checked at load.
    public var fileSHA256: [String: String]?

    enum CodingKeys: String, CodingKey {
        case formatVersion = "format_version"
        case modelVersion = "model_version"
        case sources
        case trainingData = "training_data"
        case trainingDataSHA256 = "training_data_sha256"
        case seed, epochs
        case trainingSeconds = "training_seconds"
        case evidenceScale = "evidence_scale"
        case brandEvidenceScale = "brand_evidence_scale"
        case hidden
        case sharedEncoder = "shared_encoder"
        case command
        case devMetrics = "dev_metrics"
        case calibration
        case fileSHA256 = "file_sha256"
    }

    public init(formatVersion: Int = 1, modelVersion: String, sources: String = "MODEL.md") {
        self.formatVersion = formatVersion
        self.modelVersion = modelVersion
        self.sources = sources
    }

    public static func load(path: String) throws -> ModelManifest {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ModelDirectoryError(path: path, message: "cannot read the manifest")
        }
        return try ModelDirectoryError.decode(ModelManifest.self, from: [UInt8](data), path: path, what: "a model manifest")
    }

    public func save(path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

/// A problem with a file of the model directory; the description names the file (and line, when known).
public struct ModelDirectoryError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var line: Int?
    public var message: String
    public init(path: String, line: Int? = nil, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }
    public var description: String {
        if let line { return "\(path):\(line): \(message)" }
        return "\(path): \(message)"
    }

    /// Decodes a whole JSON file with the strict reader; a failure names `path`, with the line and byte offset
    /// when the text is not valid JSON (a repeated key, trailing data) and the field when a value is wrong.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], path: String, what: String) throws -> T {
        do {
            return try JSONDecoding.decode(type, from: bytes)
        } catch {
            throw ModelDirectoryError(path: path, line: error.line(in: bytes), message: "not \(what): \(error)")
        }
    }
}
