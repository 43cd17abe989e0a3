#if canImport(Glibc)
import Glibc
#endif

/// Named process exit codes, as swift-argument-parser names them.
enum ExitCode: Int32 {
    case success = 0
    case failure = 1
    /// Bad command line (BSD `EX_USAGE`).
    case usageError = 64
}

/// A failure that ends the command: a message for stderr and an exit code.
struct CommandError: Error {
    var message: String
    var code: ExitCode

    static func usage(_ message: String) -> CommandError { CommandError(message: message, code: .usageError) }
    static func failure(_ message: String) -> CommandError { CommandError(message: message, code: .failure) }
}

/// Writes to standard error without buffering surprises.
func printError(_ text: String) {
    var line = text
    if !line.hasSuffix("\n") { line += "\n" }
    let bytes = Array(line.utf8)
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(2, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if written <= 0 { break }
            offset += written
        }
    }
}
