// File operations of the registries: durable copies with their SHA-256 checked, atomic replacement, links.
import Foundation
import StoreInterface
#if canImport(Glibc)
import Glibc
#endif

/// File operations both registries share: atomic replacement, checked copies, links, directory fsyncs.
public enum RegistryFiles {
    /// The catalog as JSON, keys sorted, so equal catalogs are equal bytes.
    public static func encode<T: Encodable>(_ value: T) throws(KeywordStoreError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(value)) + [0x0A]
        } catch {
            throw .failed("cannot encode the registry catalog: \(error)")
        }
    }

    public static func makeDirectory(_ path: String) throws(KeywordStoreError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .failed("\(path): cannot create the directory (\(error.localizedDescription))")
        }
    }

    /// Writes `bytes` to a temporary file beside `path`, fsyncs it, renames it over `path` and fsyncs the folder.
    public static func writeAtomically(_ bytes: [UInt8], to path: String) throws(KeywordStoreError) {
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("open", temporary) }
        do throws(KeywordStoreError) {
            try writeAll(fd, bytes, path: temporary)
            guard fsync(fd) == 0 else { throw failure("fsync", temporary) }
        } catch {
            Glibc.close(fd)
            unlink(temporary)
            throw error
        }
        Glibc.close(fd)
        try rename(temporary, to: path)
    }

    /// Copies `source` to `target` through a temporary file; a copy whose SHA-256 is not `expected` is deleted
    /// and the error names the source (it changed after it was checked).
    public static func copy(_ source: String, to target: String, expecting expected: String,
                     digest: FileDigest) throws(KeywordStoreError) {
        let temporary = target + ".\(getpid()).tmp"
        try? FileManager.default.removeItem(atPath: temporary)
        do {
            try FileManager.default.copyItem(atPath: source, toPath: temporary)
        } catch {
            throw .failed("\(source): cannot copy to \(temporary) (\(error.localizedDescription))")
        }
        try check(temporary, expecting: expected, digest: digest, named: source)
        try sync(temporary)
        try rename(temporary, to: target)
    }

    /// Deletes `path` and throws, naming `name`, unless the file's SHA-256 is `expected`.
    public static func check(_ path: String, expecting expected: String, digest: FileDigest, named name: String) throws(KeywordStoreError) {
        let actual: String
        do {
            actual = try digest(path)
        } catch {
            unlink(path)
            throw .failed("\(name): cannot read it back (\(error))")
        }
        guard actual == expected else {
            unlink(path)
            throw .failed("\(name): SHA-256 is \(actual) but the manifest records \(expected); the file changed while it was copied")
        }
    }

    /// fsyncs a file.
    public static func sync(_ path: String) throws(KeywordStoreError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { Glibc.close(fd) }
        guard fsync(fd) == 0 else { throw failure("fsync", path) }
    }

    /// A hard link, or a copy where links are not possible.
    public static func link(_ source: String, to target: String) throws(KeywordStoreError) {
        if Glibc.link(source, target) == 0 { return }
        do {
            try FileManager.default.copyItem(atPath: source, toPath: target)
        } catch {
            throw .failed("\(target): cannot link or copy from \(source) (\(error.localizedDescription))")
        }
    }

    public static func rename(_ source: String, to target: String) throws(KeywordStoreError) {
        guard Glibc.rename(source, target) == 0 else { throw failure("rename", target) }
        let directory = (target as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        Glibc.close(fd)
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(KeywordStoreError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress! + offset, raw.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw failure("write", path)
            }
            offset += written
        }
    }

    public static func failure(_ call: String, _ path: String) -> KeywordStoreError {
        let code = errno
        return .failed("\(path): \(call) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}
