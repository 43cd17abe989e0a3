import EventLog
#if canImport(Glibc)
import Glibc
#endif

/// The root command: it declares every subcommand, in the order help lists them.
enum Root {
    static let version = "0.1.0"
    static var subcommands: [any Command.Type] { [
        ServeCommand.self,
        StoreCommand.self,
        SuggestCommand.self,
        EvalCommand.self,
        TrainCommand.self,
        CalibrateCommand.self,
        TokenizeCommand.self,
        PrintWordVectorsCommand.self,
        NearestNeighboursCommand.self,
        VectorsCommand.self,
        BenchCommand.self,
    ] }
    /// Commands with subcommands of their own, listed after `store`.
    static var groups: [any CommandGroup.Type] { [ModelCommand.self] }
    /// Every entry of the root help, in order.
    static var listed: [CommandConfiguration] {
        var result: [CommandConfiguration] = []
        for command in subcommands {
            result.append(command.configuration)
            if command.configuration.name == "store" { for group in groups { result.append(group.configuration) } }
        }
        return result
    }
    static let configuration = CommandConfiguration(
        name: "kwsuggest",
        abstract: "Suggests ingredient keywords for grocery product names.",
        options: [Flag("--version", help: "Show the version.").spec],
        customUsage: "kwsuggest <subcommand>"
    )

    static func main(_ argv: [String]) -> ExitCode {
        let arguments = Array(argv.dropFirst())
        guard let first = arguments.first else {
            print(Help.text(for: configuration, subcommands: listed), terminator: "")
            return .success
        }
        switch first {
        case "-h", "--help":
            print(Help.text(for: configuration, subcommands: listed), terminator: "")
            return .success
        case "--version":
            print(version)
            return .success
        case "help":
            guard arguments.count > 1 else {
                print(Help.text(for: configuration, subcommands: listed), terminator: "")
                return .success
            }
            for group in groups where group.configuration.name == arguments[1] {
                return group.dispatch(Array(arguments.dropFirst(2)) + ["--help"])
            }
            guard let command = subcommands.first(where: { $0.configuration.name == arguments[1] }) else {
                EventLog.message(verbatim: Help.usageError("Unknown subcommand '\(arguments[1])'", for: configuration))
                return .usageError
            }
            print(Help.text(for: command.configuration), terminator: "")
            return .success
        default:
            break
        }
        for group in groups where group.configuration.name == first { return group.dispatch(Array(arguments.dropFirst())) }
        guard let command = subcommands.first(where: { $0.configuration.name == first }) else {
            let message = first.hasPrefix("-") ? "Unknown option '\(first)'" : "Unknown subcommand '\(first)'"
            EventLog.message(verbatim: Help.usageError(message, for: configuration))
            return .usageError
        }
        return execute(command, Array(arguments.dropFirst()))
    }

    static func execute(_ command: any Command.Type, _ arguments: [String]) -> ExitCode {
        let configuration = command.configuration
        let beforeTerminator = arguments.prefix { $0 != "--" }
        if beforeTerminator.contains("-h") || beforeTerminator.contains("--help") {
            print(Help.text(for: configuration), terminator: "")
            return .success
        }
        do {
            let parsed = try ArgumentScanner(configuration: configuration).scan(arguments)
            let instance = try command.init(arguments: parsed)
            try instance.validate()
            try instance.run()
            return .success
        } catch let error as CommandError {
            if error.code == .usageError {
                EventLog.message(verbatim: Help.usageError(error.message, for: configuration))
            } else {
                EventLog.message(.error, error.message)
            }
            return error.code
        } catch {
            EventLog.message(.error, "\(error)")
            return .failure
        }
    }
}

let code = Root.main(CommandLine.arguments)
fflush(nil)
exit(code.rawValue)
