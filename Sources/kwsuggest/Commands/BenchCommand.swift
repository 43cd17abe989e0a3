// Placeholder until its issue lands: it declares the command so the root can list it.
struct BenchCommand: Command {
    static let configuration = CommandConfiguration(
        name: "bench",
        abstract: "Measures suggestion latency, tokenizer throughput, load time and memory.",
        usage: "kwsuggest bench [--model <dir>] [--keywords <n>] [--json]"
    )
    init(arguments: ParsedArguments) throws {}
    func run() throws { throw CommandError.failure("'bench' is not built yet") }
}
