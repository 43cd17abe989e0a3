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
