import KeywordVectors

/// `kwsuggest nn FILE [-k K]`: cosine nearest neighbours, as fastText's `nn`.
struct NearestNeighboursCommand: Command {
    static let k = Option<Int>("-k", "--k", value: "k", help: "Neighbours per word.", default: 10,
                               check: { $0 > 0 ? nil : "a positive integer" })

    static let configuration = CommandConfiguration(
        name: "nn",
        abstract: "Prints the nearest neighbours of each word read from standard input.",
        arguments: [ArgumentSpec(name: "<file>", help: "A fastText .bin or .vec file, or a .kwv file.")],
        options: [k.spec],
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
        k = try arguments.require(Self.k)
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
