// Placeholder until its issue lands: it declares the command so the root can list it.
struct PrintWordVectorsCommand: Command {
    static let configuration = CommandConfiguration(
        name: "print-word-vectors",
        abstract: "Prints the vector of each word read from standard input.",
        usage: "kwsuggest print-word-vectors <file>"
    )
    init(arguments: ParsedArguments) throws {}
    func run() throws { throw CommandError.failure("'print-word-vectors' is not built yet") }
}
