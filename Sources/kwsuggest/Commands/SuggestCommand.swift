import FileStore
import Foundation
import ModelStorage
import SuggestionRuntime
import StoreInterface
import StrictJSON

/// `kwsuggest suggest`: the top-k keywords for each product name (arguments, or stdin lines).
struct SuggestCommand: Command {
    static let model = SharedOptions.model
    static let k = Option<Int>("-k", "--k", value: "k", help: "Suggestions per name.", default: 5, range: 1...50)
    static let keywords = Option<String>("--keywords", value: "file",
                                         help: "Rank these keywords (one per line) instead of the model's list.")
    static let json = Flag("--json", help: "One JSON object per name.")
    static let explain = Flag("--explain", help: "Add each token's attention weight for each suggestion.")
    static let noVerify = SharedOptions.noVerify

    static let configuration = CommandConfiguration(
        name: "suggest",
        abstract: "Suggests keywords for product names.",
        arguments: [ArgumentSpec(name: "<name>", help: "Product names; read one per line from standard input when none.", isList: true)],
        options: [model.spec, k.spec, keywords.spec, json.spec, explain.spec, noVerify.spec],
        discussion: """
            The model's list is keywords.txt with the keyword overlay (keywords.overlay.json) applied. With a
            calibrated model each suggestion carries its confidence (the calibrated probability that it is an
            acceptable keyword) and a name whose top confidence clears the 98 % precision threshold is marked
            auto-accept when its top keyword is the head of the name: no keyword written after it and no
            describing word right after it (味, 用, 入り) shows it to be a flavour, an ingredient or a use, as
            ごま in ごま担々麺, and no brand or variety name beside it spells another kind (アクエリアス beside
            コーラ). A name with no content tokens (送料無料, ★★★), or with places alone (淡路島産), gets no
            suggestions and the reason.
            """
    )

    var model: String
    var k: Int
    var keywordsFile: String?
    var json: Bool
    var explain: Bool
    var verify: Bool
    var names: [String]

    init(arguments: ParsedArguments) throws {
        model = resolveModelDirectory(try arguments.get(Self.model))
        k = try arguments.require(Self.k)
        keywordsFile = try arguments.get(Self.keywords)
        json = arguments.get(Self.json)
        explain = arguments.get(Self.explain)
        verify = !arguments.get(Self.noVerify)
        names = arguments.positionals
    }

    /// A line longer than this is refused (a name is at most 1,100 code points; the bound keeps memory small).
    static let maxLineBytes = 1024 * 1024

    func run() throws {
        let engine = try loadEngine(model: model, keywordsFile: keywordsFile, verify: verify)
        let output = OutputBuffer()
        defer { output.flush() }
        func answer(_ name: String, _ place: String) throws {
            if name.allSatisfy({ $0.isWhitespace }) { return }
            let result: SuggestionResult
            do {
                result = engine.suggest(try NameRules.checked(name), k: k, explain: explain)
            } catch {
                output.flush()
                throw CommandError.failure("\(place): \(error.message(field: "name"))")
            }
            do {
                try SuggestionWire.check(result)
            } catch {
                output.flush()
                throw CommandError.failure("\(place): \(error.description)")
            }
            output.write(json ? SuggestionFormat.json(result, explain: explain) : SuggestionFormat.text(result))
        }
        if names.isEmpty {
            try forEachInputLine(maxLineBytes: Self.maxLineBytes, requireUTF8: true) { number, line in
                try answer(line, "standard input line \(number)")
            }
        } else {
            for (index, name) in names.enumerated() { try answer(name, "argument \(index + 1)") }
        }
    }
}

/// Loads the model directory into an engine; `keywordsFile` replaces the keyword list (overlay ignored).
func loadEngine(model: String, keywordsFile: String?, verify: Bool = true) throws -> ModelEngine {
    do {
        var components = try ModelDirectory.load(path: model, verify: verify)
        if let keywordsFile {
            components.keywords = try ModelFiles.keywords(path: keywordsFile)
            guard !components.keywords.isEmpty else { throw CommandError.failure("\(keywordsFile): no keywords") }
        }
        let store = FileKeywordStore(overlayPath: KeywordOverlayFile.defaultPath(modelDirectory: components.directory))
        return try ModelEngine(components: components, store: store, applyOverlay: keywordsFile == nil)
    } catch let error as ModelDirectoryError {
        throw CommandError.failure(error.description)
    } catch let error as KeywordOverlayError {
        throw CommandError.failure(error.description)
    }
}

/// Text and JSON renderings of a suggestion result (scores checked finite before either).
enum SuggestionFormat {
    static func text(_ result: SuggestionResult) -> String {
        var out = terminalSafe(result.name) + (result.autoAccept ? "\t(auto-accept)" : "") + "\n"
        if let reason = result.reason { out += "  no suggestions: \(reason.rawValue)\n" }
        for (rank, suggestion) in result.suggestions.enumerated() {
            let confidence = suggestion.confidence.map { "\tconfidence " + String(format: "%.3f", $0) } ?? ""
            out += "  \(rank + 1). \(terminalSafe(suggestion.keyword))\t\(formatFloat(suggestion.score, significantDigits: 4))\(confidence)\n"
            if let weights = suggestion.weights {
                let parts = weights.map { "\(terminalSafe($0.token)) \(formatFloat($0.weight, significantDigits: 3))" }
                out += "       attention: " + parts.joined(separator: ", ") + "\n"
            }
        }
        return out
    }

    /// The result in the wire form the HTTP API answers with (see `SuggestionWire`), one line. Check it first.
    static func json(_ result: SuggestionResult, explain: Bool) -> String {
        var json = JSONWriter(capacity: 256 + result.name.utf8.count)
        json.object { json in SuggestionWire.writeMembers(result, name: result.name, explain: explain, into: &json) }
        return String(decoding: json.bytes, as: UTF8.self) + "\n"
    }
}
