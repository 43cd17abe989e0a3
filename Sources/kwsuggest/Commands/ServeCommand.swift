// Placeholder until its issue lands: it declares the command so the root can list it.
struct ServeCommand: Command {
    static let configuration = CommandConfiguration(
        name: "serve",
        abstract: "Serves the suggestion API and the admin page over HTTP.",
        usage: "kwsuggest serve [--host <host>] [--port <port>] [--model <dir>] [--threads <n>] [--cors-origin <origin> ...]"
    )
    init(arguments: ParsedArguments) throws {}
    func run() throws { throw CommandError.failure("'serve' is not built yet") }
}
