import KeywordService

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

/// Where the default model lives: `--model`, else `KWSUGGEST_MODEL`, else `models/default`.
func resolveModelDirectory(_ option: String?) -> String {
    if let option { return option }
    if let fromEnvironment = Environment.value("KWSUGGEST_MODEL"), !fromEnvironment.isEmpty { return fromEnvironment }
    return "models/default"
}

/// `--store`, shared by `serve` and `store`.
let storeOption = OptionSpec(names: ["--store"], valueName: "store",
                             help: "file:PATH or postgres://user@host:5432/db (default: $KWSUGGEST_STORE or file:<model dir>/keywords.overlay.json).")

/// `--store`, else `--overlay` (as `file:`), else `KWSUGGEST_STORE`, else the overlay file beside the model.
func resolveStore(_ arguments: ParsedArguments, modelDirectory: String) throws -> StoreLocation {
    if arguments.value("--store") != nil && arguments.value("--overlay") != nil {
        throw CommandError.usage("Give --store or --overlay, not both")
    }
    let text = arguments.value("--store") ?? arguments.value("--overlay").map { "file:" + $0 }
        ?? Environment.value("KWSUGGEST_STORE").flatMap { $0.isEmpty ? nil : $0 }
    guard let text else { return .file(KeywordOverlayStore.defaultPath(modelDirectory: modelDirectory)) }
    do {
        return try StoreLocation(parsing: text)
    } catch {
        throw CommandError.usage("The value for '--store <store>' is invalid: \(error)")
    }
}
