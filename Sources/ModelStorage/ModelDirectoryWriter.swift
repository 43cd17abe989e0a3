// Writes a trained model directory: encoder files, manifest, and the base directory's other files.
import Foundation
import KeywordModel

public enum ModelDirectoryWriter {
    /// Files that belong to one trained model and are never copied from the base directory.
    static let ownFiles: Set<String> = [Checkpoint.headerName, Checkpoint.valuesName, "manifest.json", "MODEL.md",
                                        "keywords.overlay.json", ModelCalibration.fileName]

    /// Creates `directory` if needed, copies every other regular file of `base` into it (unless they are the
    /// same directory or the file already exists), then writes the encoder, the calibration (or removes a stale
    /// one) and the manifest. `addedKeywords` are appended to the copied keyword list; one the list would not
    /// read back as itself is an error before anything is written, never a keyword silently lost.
    public static func write(_ weights: ModelWeights, manifest: ModelManifest, calibration: ModelCalibration? = nil,
                             to directory: String, base: String, addedKeywords: [String] = []) throws {
        try checkAppendable(addedKeywords, path: (directory as NSString).appendingPathComponent(ModelDirectory.keywordsName))
        let files = FileManager.default
        do {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ModelDirectoryError(path: directory, message: "cannot create the directory (\(error.localizedDescription))")
        }
        let same = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath()
            == URL(fileURLWithPath: base).standardizedFileURL.resolvingSymlinksInPath()
        if !same {
            let names = (try? files.contentsOfDirectory(atPath: base)) ?? []
            for name in names.sorted() where !ownFiles.contains(name) && !name.hasPrefix(".") {
                let source = (base as NSString).appendingPathComponent(name)
                let target = (directory as NSString).appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                guard files.fileExists(atPath: source, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
                if files.fileExists(atPath: target) { try? files.removeItem(atPath: target) }
                do {
                    try files.copyItem(atPath: source, toPath: target)
                } catch {
                    throw ModelDirectoryError(path: target, message: "cannot copy from \(source) (\(error.localizedDescription))")
                }
            }
        }
        if !addedKeywords.isEmpty { try appendKeywords(addedKeywords, directory: directory) }
        do {
            try Checkpoint.save(weights, directory: directory)
            let calibrationPath = (directory as NSString).appendingPathComponent(ModelCalibration.fileName)
            if let calibration {
                try calibration.save(path: calibrationPath)
            } else if files.fileExists(atPath: calibrationPath) {
                try files.removeItem(atPath: calibrationPath)
            }
            var manifest = manifest
            manifest.fileSHA256 = try ModelDirectory.checksums(directory: directory)
            try manifest.save(path: (directory as NSString).appendingPathComponent("manifest.json"))
        } catch let error as CheckpointError {
            throw ModelDirectoryError(path: directory, message: error.description)
        }
    }

    /// Refuses, naming the list file at `path`, the first of `keywords` that the list would not read back as
    /// itself from a line of its own (`ModelFiles.listProblem`).
    public static func checkAppendable(_ keywords: [String], path: String) throws {
        for keyword in keywords {
            if let problem = ModelFiles.listProblem(with: keyword) {
                throw ModelDirectoryError(path: path, message: "cannot add the keyword \(keyword.debugDescription) to the list: \(problem)")
            }
        }
    }

    /// Appends keywords to the directory's keyword list, one per line (the list file is a copy, never the base's).
    static func appendKeywords(_ keywords: [String], directory: String) throws {
        let path = (directory as NSString).appendingPathComponent(ModelDirectory.keywordsName)
        var data = FileManager.default.contents(atPath: path) ?? Data()
        if let last = data.last, last != 0x0A { data.append(0x0A) }
        data.append(contentsOf: Array(keywords.map { $0 + "\n" }.joined().utf8))
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ModelDirectoryError(path: path, message: "cannot write (\(error.localizedDescription))")
        }
    }
}
