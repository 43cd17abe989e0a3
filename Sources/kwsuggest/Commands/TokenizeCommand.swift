#if canImport(Glibc)
import Glibc
#endif
import KeywordText
import Platform

/// `kwsuggest tokenize`: shows what the text pipeline makes of product names.
struct TokenizeCommand: Command {
    static let model = SharedOptions.model
    static let json = Flag("--json", help: "Print one JSON object per input line.")
    static let keyword = Flag("--keyword", help: "Tokenize as keywords: no quantity, price or stop-phrase removal.")
    static let stats = Flag("--stats", help: "Print only totals: tokens, vector coverage and throughput (after loading).")

    static let configuration = CommandConfiguration(
        name: "tokenize",
        abstract: "Normalises and tokenizes product names.",
        arguments: [ArgumentSpec(name: "<text>", help: "Product names; read from standard input, one per line, when none are given.", isList: true)],
        options: [model.spec, json.spec, keyword.spec, stats.spec],
        discussion: """
            Each line is normalised (NFKC, lower case, one form of ー), cleaned of brackets, quantities,
            prices, discounts and stop phrases (stop-phrases.txt in the model directory), and segmented
            with the lexicon. Plain output prints the normalised text, a tab, then the tokens as
            surface(normalised form)#row, with ? for an unknown word and #- for no vector row.
            With --keyword, JSON lines also carry "whole_word_row": the vector row of the whole text as
            one lexicon word (no sub-word fallback; null when the lexicon has no such word or it has no
            row), which the exact-match evidence uses for keywords the lattice splits.
            """
    )

    var model: String
    var json: Bool
    var keyword: Bool
    var stats: Bool
    var texts: [String]

    init(arguments: ParsedArguments) throws {
        model = resolveModelDirectory(try arguments.get(Self.model))
        json = arguments.get(Self.json)
        keyword = arguments.get(Self.keyword)
        stats = arguments.get(Self.stats)
        texts = arguments.positionals
    }

    func validate() throws {
        if json && stats { throw CommandError.usage("'--json' and '--stats' cannot be used together") }
    }

    func run() throws {
        let pipeline: TextPipeline
        do {
            pipeline = try TextPipeline.load(directory: model)
        } catch let error as TextFileError {
            throw CommandError.failure(error.description)
        }
        let output = OutputBuffer()
        var totals = TokenizeTotals()
        let started = monotonicSeconds()
        let startedCPU = threadCPUSeconds()
        func handle(_ line: String) {
            let normalized: String
            let tokens: [Token]
            var wholeWordRow: Int?? = nil
            if keyword {
                tokens = pipeline.tokenizeKeyword(line)
                normalized = tokens.map(\.surface).joined(separator: " ")
                if json { wholeWordRow = .some(pipeline.wholeWordRow(tokens.map(\.surface).joined())) }
            } else {
                let analysis = pipeline.analyze(line)
                (normalized, tokens) = (analysis.normalized.text, analysis.tokens)
            }
            if stats {
                totals.add(tokens)
            } else if json {
                output.write(Self.json(line, normalized, tokens, wholeWordRow: wholeWordRow))
            } else {
                output.write(Self.plain(normalized, tokens))
            }
        }
        if texts.isEmpty {
            try forEachInputLine { _, line in
                handle(line.hasSuffix("\r") ? String(line.dropLast()) : line)
            }
        } else {
            texts.forEach(handle)
        }
        if stats {
            output.write(totals.summary(seconds: monotonicSeconds() - started, cpuSeconds: threadCPUSeconds() - startedCPU))
        }
        output.flush()
    }

    static func plain(_ normalized: String, _ tokens: [Token]) -> String {
        var line = normalized + "\t"
        for (index, token) in tokens.enumerated() {
            if index > 0 { line += " " }
            line += token.surface
            if token.normalized != token.surface { line += "(" + token.normalized + ")" }
            if token.isOOV { line += "?" }
            line += token.row.map { "#\($0)" } ?? "#-"
        }
        return line + "\n"
    }

    /// One JSON line; `wholeWordRow` (keywords only) is written when given, as a row or null.
    static func json(_ input: String, _ normalized: String, _ tokens: [Token], wholeWordRow: Int?? = nil) -> String {
        var text = "{\"input\": " + jsonQuote(input) + ", \"normalized\": " + jsonQuote(normalized) + ", \"tokens\": ["
        for (index, token) in tokens.enumerated() {
            if index > 0 { text += ", " }
            text += "{\"surface\": " + jsonQuote(token.surface) + ", \"normalized\": " + jsonQuote(token.normalized)
            text += ", \"row\": " + (token.row.map(String.init) ?? "null") + ", \"oov\": " + (token.isOOV ? "true" : "false")
            text += ", \"content\": " + (token.isContent ? "true" : "false")
            text += ", \"start\": \(token.range.lowerBound), \"end\": \(token.range.upperBound)}"
        }
        text += "]"
        if let wholeWordRow { text += ", \"whole_word_row\": " + (wholeWordRow.map(String.init) ?? "null") }
        return text + "}\n"
    }

    private func monotonicSeconds() -> Double { MonotonicClock.seconds() }
    /// CPU time of this thread: steadier than wall time on a busy machine.
    private func threadCPUSeconds() -> Double { MonotonicClock.threadCPUSeconds() }
}

/// Totals for `--stats`.
private struct TokenizeTotals {
    var lines = 0
    var tokens = 0
    var content = 0
    var contentWithRow = 0
    var unknown = 0

    mutating func add(_ list: [Token]) {
        lines += 1
        tokens += list.count
        for token in list where token.isContent {
            content += 1
            if token.row != nil { contentWithRow += 1 }
            if token.isOOV { unknown += 1 }
        }
    }

    func summary(seconds: Double, cpuSeconds: Double) -> String {
        func percent(_ part: Int, _ whole: Int) -> String {
            whole == 0 ? "n/a" : String(Double(Int((Double(part) / Double(whole)) * 10000)) / 100) + "%"
        }
        let rate = seconds > 0 ? Int(Double(lines) / seconds) : 0
        let cpuRate = cpuSeconds > 0 ? Int(Double(lines) / cpuSeconds) : 0
        return """
            lines: \(lines)
            tokens: \(tokens)
            content tokens: \(content)
            content tokens with a vector row: \(contentWithRow) (\(percent(contentWithRow, content)))
            unknown content tokens: \(unknown) (\(percent(unknown, content)))
            seconds: \(String(Double(Int(seconds * 1000)) / 1000)) (CPU \(String(Double(Int(cpuSeconds * 1000)) / 1000)))
            lines per second: \(rate) (per CPU second: \(cpuRate))

            """
    }
}
