import KeywordVectors

/// `kwsuggest print-word-vectors FILE`: fastText's `print-word-vectors` for .bin, .vec and .kwv.
struct PrintWordVectorsCommand: Command {
    static let configuration = CommandConfiguration(
        name: "print-word-vectors",
        abstract: "Prints the vector of each word read from standard input.",
        arguments: [ArgumentSpec(name: "<file>", help: "A fastText .bin or .vec file, or a .kwv file.")],
        discussion: """
            Reads words from standard input (split at ASCII white space, as fastText does) and prints
            'word v1 … vD' for each. For a fastText .bin model, unknown words get the mean of their
            character n-gram vectors (zeros when they have none); for .vec and .kwv files an unknown
            word prints zeros. Values are printed with enough digits to round-trip a float32.
            """
    )

    var path: String

    init(arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1 else {
            throw CommandError.usage(arguments.positionals.isEmpty ? "Missing expected argument '<file>'"
                                     : "Unexpected argument '\(arguments.positionals[1])'")
        }
        path = arguments.positionals[0]
    }

    func run() throws {
        let vectors = try loadVectors(path)
        let output = OutputBuffer()
        let zero = [Float](repeating: 0, count: vectors.dimension)
        try forEachInputWordBytes { word in
            let vector = vectors.vector(forUTF8: word) ?? zero
            output.write(bytes: word)
            for value in vector {
                output.write(" ")
                output.write(formatFloat(value))
            }
            output.write(" \n")
        }
        output.flush()
    }
}
