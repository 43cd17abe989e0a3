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
                                      defaultText: "$KWSUGGEST_MODEL or models/default")
    static let noVerify = Flag("--no-verify",
                               help: "Skip checking the model files against the SHA-256 checksums in manifest.json.")
}

/// Where the default model lives: `--model`, else `KWSUGGEST_MODEL`, else `models/default`.
func resolveModelDirectory(_ option: String?) -> String {
    if let option { return option }
    if let fromEnvironment = Environment.value("KWSUGGEST_MODEL"), !fromEnvironment.isEmpty { return fromEnvironment }
    return "models/default"
}
