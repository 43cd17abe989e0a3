// Loads a model directory: vectors, text pipeline, keyword list, varieties, encoder and manifest.
import EventLog
import Foundation
import KeywordModel
import KeywordText
import KeywordVectors
import Platform

/// The files of a model directory (`models/default` is the shipped one):
/// `vectors.kwv`, `lexicon.kwlex`, `stop-phrases.txt`, `keywords.txt`, `varieties.tsv` (optional),
/// `keyword-categories.tsv` (optional: what each keyword's category says it is in a product name, which the served
/// order reads), `encoder.json` + `encoder.bin`, `calibration.json` (optional: the confidence calibrator fitted for
/// that encoder),
/// `manifest.json` (optional), and `keywords.overlay.json` (written by the API).
public enum ModelDirectory {
    public static let vectorsName = "vectors.kwv"
    public static let keywordsName = "keywords.txt"
    public static let varietiesName = "varieties.tsv"
    public static let manifestName = "manifest.json"

    /// The files the loader reads, whose SHA-256 the manifest records under `file_sha256` (those present).
    /// Files written at run time (the keyword overlay) are not covered.
    public static let checksummedNames = [TextPipeline.lexiconFileName, TextPipeline.stopPhrasesFileName, vectorsName,
                                          keywordsName, varietiesName, Checkpoint.headerName, Checkpoint.valuesName,
                                          ModelCalibration.fileName, ModelFiles.keywordCategoriesName]

    /// Files a manifest made before the loader read them may leave out: such a file is then not read, as if absent
    /// (a model trained before the served order read `keyword-categories.tsv` has a copy of it, and its calibrator
    /// was fitted without it).
    public static let unlistedAllowedNames: Set<String> = [ModelFiles.keywordCategoriesName]

    /// Whether the loader reads `name` in a directory with `manifest`: always without checksums to go by, else
    /// only when the checksums list it (see `unlistedAllowedNames`).
    public static func reads(_ name: String, manifest: ModelManifest?) -> Bool {
        guard let listed = manifest?.fileSHA256 else { return true }
        return listed[name] != nil || !unlistedAllowedNames.contains(name)
    }

    /// The categories of `directory`'s `keyword-categories.tsv` whether or not its manifest lists the file: what a
    /// model written from it serves, since a written manifest lists every file present (`checksums`).
    public static func categoriesToWrite(directory: String) throws -> [String: String] {
        let path = (directory as NSString).appendingPathComponent(ModelFiles.keywordCategoriesName)
        return FileManager.default.fileExists(atPath: path) ? try ModelFiles.keywordCategories(path: path) : [:]
    }

    /// SHA-256 of each file of `checksummedNames` present in `directory`.
    public static func checksums(directory: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for name in checksummedNames {
            let path = (directory as NSString).appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: path) else { continue }
            result[name] = try SHA256.hex(file: path)
        }
        return result
    }

    /// Checks every file the manifest lists against its SHA-256, and that every loaded file is listed.
    /// A manifest without `file_sha256` (a directory made before checksums were recorded) is not checked.
    public static func verify(directory: String, manifest: ModelManifest) throws {
        guard let expected = manifest.fileSHA256 else { return }
        func file(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
        for name in checksummedNames where expected[name] == nil && !unlistedAllowedNames.contains(name)
            && FileManager.default.fileExists(atPath: file(name)) {
            throw ModelDirectoryError(path: file(name), message: "not covered by the checksums in \(manifestName)")
        }
        for (name, digest) in expected.sorted(by: { $0.key < $1.key }) {
            guard !name.contains("/"), name != manifestName else {
                throw ModelDirectoryError(path: file(manifestName), message: "file_sha256 names '\(name)', which is not a model file")
            }
            let actual = try SHA256.hex(file: file(name))
            guard actual == digest.lowercased() else {
                throw ModelDirectoryError(path: file(name),
                                          message: "SHA-256 is \(actual) but \(manifestName) records \(digest); the file is damaged or was replaced")
            }
        }
    }

    /// Reads everything but the overlay. Errors name the file (and line or offset where known).
    /// - Parameter requireEncoder: false lets a directory without encoder files load (for training and the
    ///   untrained / lexical ablations).
    ///   - verify: check the files against the manifest's SHA-256 checksums first (see `verify`).
    public static func load(path directory: String, requireEncoder: Bool = true, verify: Bool = true) throws -> LoadedModel {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ModelDirectoryError(path: directory, message: "not a model directory")
        }
        func file(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
        let manifest = FileManager.default.fileExists(atPath: file(manifestName))
            ? try ModelManifest.load(path: file(manifestName)) : nil
        if verify, let manifest { try Self.verify(directory: directory, manifest: manifest) }
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
            if let bad = matrix.rows.firstIndex(where: { !$0.isFinite }) {
                throw ModelDirectoryError(path: file(vectorsName),
                                          message: "row \(bad / matrix.dimension) holds a non-finite value; the file is damaged")
            }
            vectors = InputVectors(dimension: matrix.dimension, storage: matrix.rows)
        } catch let error as VectorFileError {
            throw ModelDirectoryError(path: file(vectorsName), message: error.description)
        }
        let keywords = try ModelFiles.keywords(path: file(keywordsName))
        guard !keywords.isEmpty else { throw ModelDirectoryError(path: file(keywordsName), message: "no keywords") }
        let varietyRows = FileManager.default.fileExists(atPath: file(varietiesName))
            ? try ModelFiles.varietyRows(path: file(varietiesName)) : []
        let varieties = varietyRows.map { (variety: $0.variety, keyword: $0.keyword) }
        var weights: ModelWeights?
        if FileManager.default.fileExists(atPath: file(Checkpoint.headerName)) || requireEncoder {
            do {
                weights = try Checkpoint.load(directory: directory) { note in
                    EventLog.record(.warning, "model_note", ["message": note])
                }
            } catch let error as CheckpointError {
                throw ModelDirectoryError(path: directory, message: error.description)
            }
        }
        let brands = varietyRows.filter { $0.source == "brand" }.map { (variety: $0.variety, keyword: $0.keyword) }
        let analyzer = PipelineAnalyzer(pipeline: pipeline,
                                        unknownInNames: PipelineAnalyzer.unrelatedRowWords(pipeline, brands: brands),
                                        readings: KanaReadings(pipeline: pipeline, varieties: varieties))
        // Without calibration.json (older model directories) suggestions carry no confidence and nothing is
        // auto-accepted; a calibration fitted for another encoder is an error, not a silent mismatch. The encoder
        // is the file as stored: a checkpoint that lacks a feature this build added loads with that weight at 0,
        // which changes no score, so its calibration still holds.
        var calibration: ModelCalibration?
        if weights != nil, FileManager.default.fileExists(atPath: file(ModelCalibration.fileName)) {
            calibration = try ModelCalibration.load(path: file(ModelCalibration.fileName),
                                                    encoderSHA256: SHA256.hex(file: file(Checkpoint.valuesName)))
        }
        let categories = reads(ModelFiles.keywordCategoriesName, manifest: manifest)
            ? try categoriesToWrite(directory: directory) : [:]
        return LoadedModel(directory: directory, analyzer: analyzer, vectors: vectors,
                               weights: weights, keywords: keywords, varieties: varieties,
                               varietySources: varietyRows.map(\.source), manifest: manifest,
                               calibration: calibration, categories: categories)
    }
}
