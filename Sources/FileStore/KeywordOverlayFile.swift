// The overlay file: the keyword overlay as JSON beside the model, read strictly and written atomically.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StoreInterface
import StrictJSON

/// A failure to read or write the overlay file. The message names the file.
public struct KeywordOverlayError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
}

/// Reads and atomically writes one overlay file (JSON: `{"added": [...], "removed": [...]}`).
///
/// `save` writes a temporary file in the same directory, fsyncs it, renames it over the target and fsyncs the
/// directory, so after a crash or `kill -9` the file holds either the old or the new overlay, never a mix.
/// The default location is `<model dir>/keywords.overlay.json` (see `defaultPath(modelDirectory:)`).
/// Stateless apart from the path, so it is safe to share between threads; concurrent `save` calls from
/// several processes are last-writer-wins.
public final class KeywordOverlayFile: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The overlay file used when no explicit path is given.
    public static func defaultPath(modelDirectory: String) -> String {
        (modelDirectory as NSString).appendingPathComponent("keywords.overlay.json")
    }

    /// Reads the overlay. A missing file is an empty overlay; a file that is not an overlay is an error.
    public func load() throws -> KeywordOverlay {
        guard let bytes = try read() else { return KeywordOverlay() }
        return try Self.decode(bytes, path: path)
    }

    /// The file's bytes; nil when it does not exist.
    func read() throws -> [UInt8]? {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        } catch {
            if access(path, F_OK) != 0 && errno == ENOENT { return nil }
            throw KeywordOverlayError(path: path, message: "cannot read: \(error.localizedDescription)")
        }
        return [UInt8](data)
    }

    /// Parses and checks an overlay file's bytes with the rules the API applies to keyword changes, so a file
    /// edited by hand cannot serve what a request could not: strict JSON (no repeated key), exactly the fields
    /// `added` and `removed`, each an array of keywords that pass `KeywordRules` and need no trimming.
    static func decode(_ bytes: [UInt8], path: String) throws -> KeywordOverlay {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw KeywordOverlayError(path: path, message: "not valid JSON: \(error)")
        }
        guard case .object(let fields) = value else {
            throw KeywordOverlayError(path: path, message: "not a keyword overlay: expected {\"added\": [...], \"removed\": [...]}")
        }
        if let unknown = fields.keys.filter({ $0 != "added" && $0 != "removed" }).sorted().first {
            throw KeywordOverlayError(path: path, message: "unknown field '\(unknown.prefix(64))' (an overlay has 'added' and 'removed')")
        }
        func keywords(_ field: String) throws -> [String] {
            guard let list = fields[field] else {
                throw KeywordOverlayError(path: path, message: "missing field '\(field)'")
            }
            guard case .array(let items) = list else {
                throw KeywordOverlayError(path: path, message: "'\(field)' is not an array of keywords")
            }
            return try items.enumerated().map { index, item in
                guard case .string(let keyword) = item else {
                    throw KeywordOverlayError(path: path, message: "'\(field)[\(index)]' is not a string")
                }
                let canonical = KeywordRules.canonical(keyword)
                if let problem = KeywordRules.problem(with: canonical) {
                    throw KeywordOverlayError(path: path, message: "'\(field)[\(index)]' \(problem)")
                }
                guard canonical == keyword else {
                    throw KeywordOverlayError(path: path, message: KeywordRules.trimWhiteSpace(keyword) == keyword
                        ? "'\(field)[\(index)]' is a compatibility form of '\(canonical.prefix(100))' (keywords are stored in NFKC)"
                        : "'\(field)[\(index)]' has white space around it")
                }
                return keyword
            }
        }
        return KeywordOverlay(added: try keywords("added"), removed: try keywords("removed"))
    }

    /// Writes the overlay atomically and durably (temp file, fsync, rename, fsync of the directory).
    public func save(_ overlay: KeywordOverlay) throws {
        try writeFile(Self.encode(overlay))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The file's bytes for `overlay`: the layout of Foundation's `JSONEncoder` with `.prettyPrinted`,
    /// `.sortedKeys` and `.withoutEscapingSlashes` (two-space indent, `"key" : value`, an empty array as
    /// `[` blank line `]`), and a final newline. Written directly: one pass over the keywords' bytes.
    static func encode(_ overlay: KeywordOverlay) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + (overlay.added + overlay.removed).reduce(0) { $0 + $1.utf8.count + 8 })
        func append(_ text: StaticString) {
            text.withUTF8Buffer { out.append(contentsOf: $0) }
        }
        func list(_ keywords: [String]) {
            append("[\n")
            for (i, keyword) in keywords.enumerated() {
                append(i == 0 ? "    \"" : ",\n    \"")
                for byte in keyword.utf8 {
                    switch byte {
                    case 0x22: append("\\\"")
                    case 0x5C: append("\\\\")
                    case 0x08: append("\\b")
                    case 0x09: append("\\t")
                    case 0x0A: append("\\n")
                    case 0x0C: append("\\f")
                    case 0x0D: append("\\r")
                    case 0..<0x20:
                        append("\\u00")
                        out.append(Self.hexDigits[Int(byte >> 4)])
                        out.append(Self.hexDigits[Int(byte & 0xF)])
                    default: out.append(byte)
                    }
                }
                append("\"")
            }
            append("\n  ]")
        }
        append("{\n  \"added\" : ")
        list(overlay.added)
        append(",\n  \"removed\" : ")
        list(overlay.removed)
        append("\n}\n")
        return out
    }

    /// Writes `data` as the file, atomically and durably (temp file, fsync, rename, fsync of the directory).
    func writeFile(_ data: [UInt8]) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let directoryPath = directory.isEmpty ? "." : directory
        let base = (path as NSString).lastPathComponent
        let temporary = (directoryPath as NSString).appendingPathComponent(".\(base).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")

        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("open", temporary) }
        var closed = false
        defer {
            if !closed { close(fd) }
        }
        do {
            try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                while offset < raw.count {
                    let written = write(fd, base + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw failure("write", temporary)
                    }
                    offset += written
                }
            }
            guard fsync(fd) == 0 else { throw failure("fsync", temporary) }
            closed = true
            guard close(fd) == 0 else { throw failure("close", temporary) }
            guard rename(temporary, path) == 0 else { throw failure("rename", temporary) }
        } catch {
            unlink(temporary)
            throw error
        }
        let directoryFD = open(directoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw failure("open directory", directoryPath) }
        defer { close(directoryFD) }
        guard fsync(directoryFD) == 0 else { throw failure("fsync directory", directoryPath) }
        removeStaleTemporaries(directory: directoryPath, base: base)
    }

    /// Deletes temporary files of this overlay left by a writer killed mid-save (kill -9). Only files older
    /// than a minute go, so a save in progress in another process (a replica sharing the directory) is safe.
    private func removeStaleTemporaries(directory: String, base: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let cutoff = Date().addingTimeInterval(-60)
        for name in names where name.hasPrefix(".\(base).") && name.hasSuffix(".tmp") {
            let full = (directory as NSString).appendingPathComponent(name)
            if let modified = (try? FileManager.default.attributesOfItem(atPath: full))?[.modificationDate] as? Date,
               modified < cutoff {
                unlink(full)
            }
        }
    }

    /// The file's modification time, or nil when it does not exist. Used to notice writes by other replicas.
    public func modificationTime() -> (sec: Int, nsec: Int)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec))
    }

    private func failure(_ call: String, _ file: String) -> KeywordOverlayError {
        let code = errno
        return KeywordOverlayError(path: path, message: "\(call) \(file) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}
