// Placeholder until its issue lands: it declares the command so the root can list it.
struct TokenizeCommand: Command {
    static let configuration = CommandConfiguration(
        name: "tokenize",
        abstract: "Normalises and tokenizes product names.",
        usage: "kwsuggest tokenize [--model <dir>] [--json] [<text> ...]"
    )
    init(arguments: ParsedArguments) throws {}
    func run() throws { throw CommandError.failure("'tokenize' is not built yet") }
}
