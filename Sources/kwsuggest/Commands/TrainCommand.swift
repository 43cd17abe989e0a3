// Placeholder until its issue lands: it declares the command so the root can list it.
struct TrainCommand: Command {
    static let configuration = CommandConfiguration(
        name: "train",
        abstract: "Trains the encoder and writes a model directory.",
        usage: "kwsuggest train --data <file> [--dev <file>] --out <dir> [--epochs <n>] [--seed <s>]"
    )
    init(arguments: ParsedArguments) throws {}
    func run() throws { throw CommandError.failure("'train' is not built yet") }
}
