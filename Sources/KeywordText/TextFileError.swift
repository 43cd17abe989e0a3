/// A text-pipeline file (lexicon, stop phrases) that could not be loaded. The description names
/// the file and where it went wrong: a line for text files, a byte offset for the binary lexicon.
public struct TextFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Location: Sendable, Equatable {
        case file
        case line(Int)
        case byteOffset(Int)
    }

    public var path: String
    public var location: Location
    public var message: String

    public init(path: String, location: Location, message: String) {
        self.path = path
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
