// Placeholder until its issue lands: it declares the command so the root can list it.
struct EvalCommand: Command {
    static let configuration = CommandConfiguration(
        name: "eval",
        abstract: "Evaluates a model on labelled product names.",
        usage: "kwsuggest eval --data <file> [--model <dir>] [--keywords <file>] [--json] [--ablation <ablation>]"
    )
    init(arguments: ParsedArguments) throws {}
    func run() throws { throw CommandError.failure("'eval' is not built yet") }
}
