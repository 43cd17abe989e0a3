// Loads a model directory: vectors, text pipeline, keyword list, varieties, encoder and manifest.
import Foundation
import KeywordModel
import KeywordText
import KeywordVectors

/// The files of a model directory (`models/default` is the shipped one):
/// `vectors.kwv`, `lexicon.kwlex`, `stop-phrases.txt`, `keywords.txt`, `varieties.tsv` (optional),
/// `encoder.json` + `encoder.bin`, `calibration.json` (optional: the confidence calibrator fitted for that encoder),
/// `manifest.json` (optional), and `keywords.overlay.json` (written by the API).
public enum ModelDirectory {
    public static let vectorsName = "vectors.kwv"
    public static let keywordsName = "keywords.txt"
    public static let varietiesName = "varieties.tsv"
    public static let manifestName = "manifest.json"

    /// Reads everything but the overlay. Errors name the file (and line or offset where known).
    /// - Parameter requireEncoder: false lets a directory without encoder files load (for training and the
    ///   untrained / lexical ablations).
    public static func load(path directory: String, requireEncoder: Bool = true) throws -> ModelComponents {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ModelDirectoryError(path: directory, message: "not a model directory")
        }
        func file(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
        // The lexicon first: read in this order, glibc returns the vectors' large transient buffers to the system
        // (measured: 80 MB resident after loading, against 109 MB the other way round).
        let pipeline: TextPipeline
        do {
            pipeline = try TextPipeline.load(directory: directory)
        } catch {
            throw ModelDirectoryError(path: directory, message: "\(error)")
        }
        let vectors: InputVectors
        do {
            // The lexicon maps words to rows, so the vectors' own keys are not needed here (`loadRows` skips them).
            let matrix = try WordVectors.loadRows(path: file(vectorsName))
            vectors = InputVectors(dimension: matrix.dimension, storage: matrix.rows)
        } catch let error as VectorFileError {
            throw ModelDirectoryError(path: file(vectorsName), message: error.description)
        }
        let keywords = try ModelFiles.keywords(path: file(keywordsName))
        guard !keywords.isEmpty else { throw ModelDirectoryError(path: file(keywordsName), message: "no keywords") }
        let varieties = FileManager.default.fileExists(atPath: file(varietiesName))
            ? try ModelFiles.varieties(path: file(varietiesName)) : []
        var weights: ModelWeights?
        if FileManager.default.fileExists(atPath: file(Checkpoint.headerName)) || requireEncoder {
            do {
                weights = try Checkpoint.load(directory: directory) { note in
                    FileHandle.standardError.write(Data(("note: " + note + "\n").utf8))
                }
            } catch let error as CheckpointError {
                throw ModelDirectoryError(path: directory, message: error.description)
            }
        }
        let manifest = FileManager.default.fileExists(atPath: file(manifestName))
            ? try ModelManifest.load(path: file(manifestName)) : nil
        let brands = FileManager.default.fileExists(atPath: file(varietiesName))
            ? try ModelFiles.varieties(path: file(varietiesName), source: "brand") : []
        let analyzer = PipelineAnalyzer(pipeline: pipeline,
                                        unknownInNames: PipelineAnalyzer.unrelatedRowWords(pipeline, brands: brands))
        // Without calibration.json (older model directories) suggestions carry no confidence and nothing is
        // auto-accepted; a calibration fitted for another encoder is an error, not a silent mismatch.
        var calibration: ModelCalibration?
        if let weights, FileManager.default.fileExists(atPath: file(ModelCalibration.fileName)) {
            calibration = try ModelCalibration.load(path: file(ModelCalibration.fileName),
                                                    encoderSHA256: SHA256.hex(Checkpoint.valuesData(weights)))
        }
        return ModelComponents(directory: directory, analyzer: analyzer, vectors: vectors,
                               weights: weights, keywords: keywords, varieties: varieties, manifest: manifest,
                               calibration: calibration)
    }
}
