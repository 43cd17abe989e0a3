import KeywordVectors

/// `kwsuggest nn FILE [-k K]`: cosine nearest neighbours, as fastText's `nn`.
struct NearestNeighboursCommand: Command {
    static let configuration = CommandConfiguration(
        name: "nn",
        abstract: "Prints the nearest neighbours of each word read from standard input.",
        usage: "kwsuggest nn <file> [-k <k>]",
        arguments: [ArgumentSpec(name: "<file>", help: "A fastText .bin or .vec file, or a .kwv file.")],
        options: [OptionSpec(names: ["-k", "--k"], valueName: "k", help: "Neighbours per word (default: 10).")],
        discussion: """
            For each word read from standard input (split at ASCII white space) prints 'Query word? WORD'
            and then 'neighbour similarity' lines, best first, by cosine similarity. For .kwv files a
            neighbour is a row, named by its first key. A word without a vector prints a note instead.
            """
    )

    var path: String
    var k: Int

    init(arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1 else {
            throw CommandError.usage(arguments.positionals.isEmpty ? "Missing expected argument '<file>'"
                                     : "Unexpected argument '\(arguments.positionals[1])'")
        }
        path = arguments.positionals[0]
        k = try arguments.int("--k", default: 10)
    }

    func validate() throws {
        guard k > 0 else { throw CommandError.usage("The value '\(k)' is invalid for '-k <k>': expected a positive integer.") }
    }

    func run() throws {
        let vectors = try loadVectors(path)
        let index = NeighbourIndex(vectors)
        let output = OutputBuffer()
        try forEachInputWord { word in
            output.write("Query word? \(word)\n")
            guard let neighbours = index.nearest(toWord: word, k: k) else {
                output.write("(no vector for '\(word)')\n")
                return
            }
            for neighbour in neighbours {
                output.write("\(neighbour.label) \(formatFloat(neighbour.similarity, significantDigits: 6))\n")
            }
        }
        output.flush()
    }
}
