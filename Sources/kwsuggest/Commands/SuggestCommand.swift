// Placeholder until its issue lands: it declares the command so the root can list it.
struct SuggestCommand: Command {
    static let configuration = CommandConfiguration(
        name: "suggest",
        abstract: "Suggests keywords for product names.",
        usage: "kwsuggest suggest [--model <dir>] [-k <k>] [--keywords <file>] [--json] [--explain] [<name> ...]"
    )
    init(arguments: ParsedArguments) throws {}
    func run() throws { throw CommandError.failure("'suggest' is not built yet") }
}
