import EventLog
import Foundation
import KeywordVectors

/// `kwsuggest vectors convert IN OUT`: writes fastText vectors as a `.kwv` file, the format models load.
struct VectorsCommand: Command {
    enum Action: String, CaseIterable {
        case convert
    }

    /// How `.kwv` stores the values.
    enum Precision: String, ArgumentChoice {
        case float16
        case float32

        var format: NativeVectorFormat.Precision { self == .float16 ? .float16 : .float32 }
    }

    static let precision = Option<Precision>("--precision", value: "precision",
                                             help: "How values are stored: float16 (rounded, half the size) or float32 (exact).",
                                             default: .float16)

    static let configuration = CommandConfiguration(
        name: "vectors",
        abstract: "Converts fastText word vectors to the .kwv format models load.",
        arguments: [ArgumentSpec(name: "<action>", help: "convert."),
                    ArgumentSpec(name: "<input>", help: "A fastText .vec or .bin file (or a .kwv file)."),
                    ArgumentSpec(name: "<output>", help: "The .kwv file to write.")],
        options: [precision.spec],
        discussion: """
            From a .vec file every word keeps its row. From a .bin model each dictionary word gets the vector
            fastText gives it (its own row and its character n-gram rows averaged, as print-word-vectors prints);
            labels and n-gram rows are not kept, so words outside the dictionary have no vector in the output.
            float16 rounds each value to nearest even. A word .kwv cannot hold (empty, not UTF-8, or given twice)
            or a value that does not fit is an error, and nothing is written. The output is replaced atomically.
            """
    )

    var input: String
    var output: String
    var precision: Precision

    init(arguments: ParsedArguments) throws {
        let positionals = arguments.positionals
        guard let first = positionals.first else { throw CommandError.usage("Missing expected argument '<action>'") }
        guard Action(rawValue: first) != nil else {
            throw CommandError.usage("The value '\(first)' is invalid for '<action>': expected convert.")
        }
        guard positionals.count >= 2 else { throw CommandError.usage("Missing expected argument '<input>'") }
        guard positionals.count >= 3 else { throw CommandError.usage("Missing expected argument '<output>'") }
        guard positionals.count == 3 else { throw CommandError.usage("Unexpected argument '\(positionals[3])'") }
        (input, output) = (positionals[1], positionals[2])
        precision = try arguments.require(Self.precision)
    }

    func run() throws {
        let vectors = try loadVectors(input)
        let bytes: [UInt8]
        do {
            bytes = try NativeVectorFormat.encode(vectors, precision: precision.format, path: input)
        } catch let error as VectorFileError {
            throw CommandError.failure(error.description)
        }
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CommandError.failure("\(output): cannot write: \(error.localizedDescription)")
        }
        EventLog.message(.info, "wrote \(output): \(bytes.count) bytes, \(vectors.keyCount) words, dimension \(vectors.dimension), \(precision.rawValue)")
    }
}
