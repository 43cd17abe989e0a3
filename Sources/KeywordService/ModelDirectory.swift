// Loads a model directory: vectors, text pipeline, keyword list, varieties, encoder and manifest.
import Foundation
import KeywordModel
import KeywordText
import KeywordVectors

/// The files of a model directory (`models/default` is the shipped one):
/// `vectors.kwv`, `lexicon.kwlex`, `stop-phrases.txt`, `keywords.txt`, `varieties.tsv` (optional),
/// `encoder.json` + `encoder.bin`, `manifest.json` (optional), and `keywords.overlay.json` (written by the API).
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
        // The two large files (vectors, lexicon) are independent: read the lexicon on a second thread meanwhile.
        let pipelineLoad = Background { try TextPipeline.load(directory: directory) }
        let vectorsResult = Result { () throws -> InputVectors in
            let words = try WordVectors.load(path: file(vectorsName))
            return InputVectors(dimension: words.dimension, storage: words.withMatrix { Array($0) })
        }
        let pipelineResult = pipelineLoad.wait()
        let vectors: InputVectors
        do {
            vectors = try vectorsResult.get()
        } catch let error as VectorFileError {
            throw ModelDirectoryError(path: file(vectorsName), message: error.description)
        }
        let pipeline: TextPipeline
        do {
            pipeline = try pipelineResult.get()
        } catch {
            throw ModelDirectoryError(path: directory, message: "\(error)")
        }
        let keywords = try ModelFiles.keywords(path: file(keywordsName))
        guard !keywords.isEmpty else { throw ModelDirectoryError(path: file(keywordsName), message: "no keywords") }
        let varieties = FileManager.default.fileExists(atPath: file(varietiesName))
            ? try ModelFiles.varieties(path: file(varietiesName)) : []
        var weights: ModelWeights?
        if FileManager.default.fileExists(atPath: file(Checkpoint.headerName)) || requireEncoder {
            do {
                weights = try Checkpoint.load(directory: directory)
            } catch let error as CheckpointError {
                throw ModelDirectoryError(path: directory, message: error.description)
            }
        }
        let manifest = FileManager.default.fileExists(atPath: file(manifestName))
            ? try ModelManifest.load(path: file(manifestName)) : nil
        return ModelComponents(directory: directory, analyzer: PipelineAnalyzer(pipeline: pipeline), vectors: vectors,
                               weights: weights, keywords: keywords, varieties: varieties, manifest: manifest)
    }
}

/// A throwing computation started on a global queue at init; `wait()` blocks until it has finished and
/// returns its outcome. `result` is written once before `done` is signalled and read only after waiting.
final class Background<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<Value, any Error>?

    init(_ work: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global().async {
            self.result = Result { try work() }
            self.done.signal()
        }
    }

    func wait() -> Result<Value, any Error> {
        done.wait()
        done.signal()
        return result ?? .failure(CancellationError())
    }
}
