// The recipe and lineage in manifest.json: how to train a model again, and which data and parent made it.
import Foundation
import Platform

extension ModelManifest {
    /// One data file as a recipe or a lineage names it: its path, resolved against the working directory (the
    /// repository root), and the SHA-256 of its bytes.
    public struct DataFile: Codable, Sendable, Equatable {
        public var path: String
        public var sha256: String

        public init(path: String, sha256: String) {
            self.path = path
            self.sha256 = sha256
        }

        /// Hashes the file at `path`.
        public static func hashing(_ path: String) throws -> DataFile {
            DataFile(path: path, sha256: try SHA256.hex(file: path))
        }

        /// Checks that the file still holds the recorded bytes; the error names the file.
        public func verify() throws {
            try requireExisting()
            let actual = try SHA256.hex(file: path)
            guard actual == sha256.lowercased() else {
                throw ModelDirectoryError(path: path, message: "SHA-256 is \(actual) but the recipe records \(sha256): "
                    + "this is not the data the model was trained on")
            }
        }

        /// Checks that the file exists where the path resolves; the error names the file and says where recipe paths
        /// resolve (a command run outside the repository root finds none of them).
        public func requireExisting() throws {
            guard FileManager.default.fileExists(atPath: path) else {
                throw ModelDirectoryError(path: path, message: "the recipe names this file, which does not exist here "
                    + "(recipe paths resolve against the working directory: run from the repository root)")
            }
        }
    }

    /// The training options of a recipe, spelled as `kwsuggest train` spells them.
    public struct RecipeOptions: Codable, Sendable, Equatable {
        public var epochs: Int
        public var hidden: Int
        public var sharedEncoder: Bool
        public var attention: Bool
        public var hardNegatives: Int
        public var randomNegatives: Int
        /// Results are deterministic for a seed and a thread count, so the count is part of the recipe.
        public var threads: Int
        public var primaryFirst: Bool
        public var calibrationFraction: Double
        public var calibrationSplit: String
        /// Rows of the hashed sub-word table and its weight decay (absent: none, as before the table existed).
        public var subwordBuckets: Int?
        public var subwordDecay: Double?

        enum CodingKeys: String, CodingKey {
            case epochs, hidden, attention, threads
            case sharedEncoder = "shared_encoder"
            case hardNegatives = "hard_negatives"
            case randomNegatives = "random_negatives"
            case primaryFirst = "primary_first"
            case calibrationFraction = "calibration_fraction"
            case calibrationSplit = "calibration_split"
            case subwordBuckets = "subword_buckets"
            case subwordDecay = "subword_decay"
        }

        public init(epochs: Int, hidden: Int, sharedEncoder: Bool, attention: Bool, hardNegatives: Int, randomNegatives: Int,
                    threads: Int, primaryFirst: Bool, calibrationFraction: Double, calibrationSplit: String,
                    subwordBuckets: Int? = nil, subwordDecay: Double? = nil) {
            self.subwordBuckets = subwordBuckets
            self.subwordDecay = subwordDecay
            self.epochs = epochs
            self.hidden = hidden
            self.sharedEncoder = sharedEncoder
            self.attention = attention
            self.hardNegatives = hardNegatives
            self.randomNegatives = randomNegatives
            self.threads = threads
            self.primaryFirst = primaryFirst
            self.calibrationFraction = calibrationFraction
            self.calibrationSplit = calibrationSplit
        }
    }

    /// How the model was trained, as data: `kwsuggest train --recipe DIR` repeats it, with the model directory
    /// itself as the base (vectors, lexicon, keyword list).
    public struct Recipe: Codable, Sendable, Equatable {
        public var data: [DataFile]
        public var dev: DataFile?
        public var seed: UInt64
        public var options: RecipeOptions

        public init(data: [DataFile], dev: DataFile?, seed: UInt64, options: RecipeOptions) {
            self.data = data
            self.dev = dev
            self.seed = seed
            self.options = options
        }
    }

    /// The annotator decisions a retrained model learnt from: which records of which store.
    public struct FeedbackUse: Codable, Sendable, Equatable {
        /// The store, as logs name it (a database URL with its password masked).
        public var store: String
        /// The first and last record id read (nil when the store held none).
        public var firstID: Int64?
        public var lastID: Int64?
        /// Records read, and the labelled names they resolved to (see `FeedbackLabels`).
        public var records: Int
        public var names: Int
        /// Keywords the decisions named that were not in the parent's list; they joined this model's list.
        public var newKeywords: [String]
        /// How many times each labelled name was trained on (nil in manifests written before it was recorded: 1).
        public var weight: Int?
        /// The most copies one annotator's own labels added for one keyword (nil in manifests written before the
        /// cap existed: none).
        public var cap: Int?

        enum CodingKeys: String, CodingKey {
            case store, records, names, weight, cap
            case firstID = "first_id"
            case lastID = "last_id"
            case newKeywords = "new_keywords"
        }

        public init(store: String, firstID: Int64?, lastID: Int64?, records: Int, names: Int, newKeywords: [String],
                    weight: Int? = nil, cap: Int? = nil) {
            self.store = store
            self.firstID = firstID
            self.lastID = lastID
            self.records = records
            self.names = names
            self.newKeywords = newKeywords
            self.weight = weight
            self.cap = cap
        }
    }

    /// Where a model retrained from a recipe came from.
    public struct Lineage: Codable, Sendable, Equatable {
        /// The version of the model whose recipe was repeated.
        public var parent: String?
        public var data: [DataFile]
        public var dev: DataFile?
        public var feedback: FeedbackUse?

        public init(parent: String?, data: [DataFile], dev: DataFile?, feedback: FeedbackUse?) {
            self.parent = parent
            self.data = data
            self.dev = dev
            self.feedback = feedback
        }
    }
}
