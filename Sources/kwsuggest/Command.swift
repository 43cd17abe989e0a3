import EventLog
import FileStore
import StoreInterface

/// A subcommand: declares its options, checks them in `validate()`, does the work in `run()`.
protocol Command {
    static var configuration: CommandConfiguration { get }
    /// Maps scanned arguments onto typed fields; throws `CommandError.usage` for a malformed value.
    init(arguments: ParsedArguments) throws
    /// Checks the arguments without side effects. Throws `CommandError.usage`.
    func validate() throws
    /// Does the work. Throws `CommandError.failure` (exit 1) for runtime failures.
    func run() throws
}

extension Command {
    func validate() throws {}
}

/// Options several commands share, declared once.
enum SharedOptions {
    static let model = Option<String>("--model", value: "dir", help: "Model directory.",
                                      defaultText: ModelSearch.defaultText)
    static let store = Option<String>("--store", value: "store", help: "file:PATH or postgres://user@host:5432/db.",
                                      defaultText: "$KWSUGGEST_STORE or file:<model dir>/keywords.overlay.json")
    static let noVerify = Flag("--no-verify",
                               help: "Skip checking the model files against the SHA-256 checksums in manifest.json.")
}

/// `--store`, else `--overlay` (as `file:`), else `KWSUGGEST_STORE`, else the overlay file beside the model.
func resolveStore(store: String?, overlay: String?, modelDirectory: String) throws -> StoreLocation {
    if store != nil && overlay != nil { throw CommandError.usage("Give --store or --overlay, not both") }
    let text = store ?? overlay.map { "file:" + $0 } ?? Environment.value("KWSUGGEST_STORE").flatMap { $0.isEmpty ? nil : $0 }
    guard let text else { return .file(KeywordOverlayFile.defaultPath(modelDirectory: modelDirectory)) }
    do {
        return try StoreLocation(parsing: text)
    } catch {
        throw CommandError.usage("The value for '--store <store>' is invalid: \(error)")
    }
}

/// A command whose first argument names one of its own subcommands (`kwsuggest model push …`). Its help lists
/// them; each has its own options and help (`kwsuggest model push --help`).
protocol CommandGroup {
    static var configuration: CommandConfiguration { get }
    static var subcommands: [any Command.Type] { get }
}

extension CommandGroup {
    /// Runs the subcommand `arguments` names, or prints the group's help.
    static func dispatch(_ arguments: [String]) -> ExitCode {
        var configurations: [CommandConfiguration] = []
        for command in subcommands { configurations.append(command.configuration) }
        guard let first = arguments.first else {
            EventLog.message(verbatim: Help.usageError("Missing expected argument '<subcommand>'", for: configuration))
            return .usageError
        }
        if first == "-h" || first == "--help" {
            print(Help.text(for: configuration, subcommands: configurations,
                            footer: "See 'kwsuggest \(configuration.name) <subcommand> --help' for detailed help."), terminator: "")
            return .success
        }
        for command in subcommands where command.configuration.name == configuration.name + " " + first {
            return Root.execute(command, Array(arguments.dropFirst()))
        }
        let message = first.hasPrefix("-") ? "Unknown option '\(first)'" : "Unknown subcommand '\(first)'"
        EventLog.message(verbatim: Help.usageError(message, for: configuration))
        return .usageError
    }
}
