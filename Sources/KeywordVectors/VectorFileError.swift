/// A word-vector file that could not be loaded. The description names the file and where it
/// went wrong: a line number for text files, a byte offset for binary ones.
public struct VectorFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        case missingFile, unreadable, emptyFile, truncated, badMagic, unsupportedVersion,
             unsupportedFormat, dimensionMismatch, nonNumeric, invalidUTF8, malformed
    }

    /// Where in the file the problem is.
    public enum Location: Sendable, Equatable {
        case file
        case line(Int)
        case byteOffset(Int)
    }

    public var path: String
    public var kind: Kind
    public var location: Location
    public var message: String

    public init(path: String, kind: Kind, location: Location, message: String) {
        self.path = path
        self.kind = kind
        self.location = location
        self.message = message
    }

    public var description: String {
        switch location {
        case .file: return "\(path): \(message)"
        case .line(let line): return "\(path):\(line): \(message)"
        case .byteOffset(let offset): return "\(path): at byte offset \(offset): \(message)"
        }
    }
}
