// SHA-256 of a file, streamed: the model files' checksums in the manifest.
import Foundation
import Platform

extension SHA256 {
    /// The digest of a file's bytes, read 1 MiB at a time (the file is never held whole).
    public static func hex(file path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ModelDirectoryError(path: path, message: "cannot read the file")
        }
        defer { try? handle.close() }
        var hasher = Hasher()
        while true {
            let data: Data
            do {
                data = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw ModelDirectoryError(path: path, message: "cannot read the file (\(error.localizedDescription))")
            }
            if data.isEmpty { break }
            data.withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finish()
    }
}
