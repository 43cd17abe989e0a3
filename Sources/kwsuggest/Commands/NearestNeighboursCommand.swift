// Placeholder until its issue lands: it declares the command so the root can list it.
struct NearestNeighboursCommand: Command {
    static let configuration = CommandConfiguration(
        name: "nn",
        abstract: "Prints the nearest neighbours of each word read from standard input.",
        usage: "kwsuggest nn <file> [-k <k>]"
    )
    init(arguments: ParsedArguments) throws {}
    func run() throws { throw CommandError.failure("'nn' is not built yet") }
}
