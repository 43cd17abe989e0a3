// Options are declared once, as values: each declaration carries its spellings, its value's type and parser,
// its default, its valid range and its help. Help text, the usage line, the "(default: …)" notes, scanning
// and the error messages are all generated from these declarations, the way swift-argument-parser does it.

/// The untyped part of an option or flag, as the scanner and the help formatter see it.
struct OptionSpec: Sendable {
    /// Every spelling, long first: `["--keywords"]`, `["-k", "--k"]`.
    var names: [String]
    /// The placeholder for the value (`file`), or nil for a flag that takes none.
    var valueName: String?
    var help: String
    /// Shown as "(default: …)" after the help; nil when there is no default to state.
    var defaultText: String? = nil
    var isRepeatable = false
    var isRequired = false

    var isFlag: Bool { valueName == nil }
    var displayName: String { names.sorted { $0.count < $1.count }.joined(separator: ", ") }
    var key: String { names.first { $0.hasPrefix("--") } ?? names[0] }
    /// `--port <port>`, or `--json` for a flag, with the first spelling declared (`-k <k>`).
    var synopsis: String { valueName.map { "\(names[0]) <\($0)>" } ?? names[0] }
    /// The help line: the help, then the default when there is one.
    var helpLine: String {
        guard let defaultText else { return help }
        let stem = help.hasSuffix(".") ? String(help.dropLast()) : help
        return "\(stem) (default: \(defaultText))."
    }
}

/// A type an option's value can have. `init?(argument:)` is the parser; `expectation` completes the error
/// "The value 'x' is invalid for '--port <port>': expected …".
protocol ArgumentValue: Sendable {
    init?(argument: String)
    static var expectation: String { get }
}

extension String: ArgumentValue {
    init?(argument: String) { self = argument }
    static var expectation: String { "a string" }
}

extension Int: ArgumentValue {
    init?(argument: String) { self.init(argument) }
    static var expectation: String { "an integer" }
}

extension Float: ArgumentValue {
    init?(argument: String) {
        guard let value = Float(argument), value.isFinite else { return nil }
        self = value
    }
    static var expectation: String { "a number" }
}

extension Double: ArgumentValue {
    init?(argument: String) {
        guard let value = Double(argument), value.isFinite else { return nil }
        self = value
    }
    static var expectation: String { "a number" }
}

/// Enumerations spelled by their raw values, such as `--ablation no-attention`.
protocol ArgumentChoice: ArgumentValue, CaseIterable, RawRepresentable where RawValue == String {}

extension ArgumentChoice {
    init?(argument: String) { self.init(rawValue: argument) }
    static var expectation: String { "one of " + allCases.map(\.rawValue).joined(separator: ", ") }
}

/// An option that takes a value: `--port 8080` or `--port=8080`.
struct Option<Value: ArgumentValue>: Sendable {
    let spec: OptionSpec
    /// The value when the option is absent; nil when absence has its own meaning (or the option is required).
    let defaultValue: Value?
    /// Checks a parsed value; returns what was expected when the value is out of range.
    let check: (@Sendable (Value) -> String?)?

    /// - Parameters:
    ///   - defaultText: the default as help shows it, when it is not simply `defaultValue`
    ///     (for example "$PORT or 8080").
    init(_ names: String..., value valueName: String, help: String, default defaultValue: Value? = nil,
         defaultText: String? = nil, required: Bool = false, repeatable: Bool = false,
         check: (@Sendable (Value) -> String?)? = nil) {
        spec = OptionSpec(names: names, valueName: valueName, help: help,
                          defaultText: defaultText ?? defaultValue.map { "\($0)" },
                          isRepeatable: repeatable, isRequired: required)
        self.defaultValue = defaultValue
        self.check = check
    }

    /// The error for a value that did not parse or failed its check.
    func invalid(_ text: String, expected: String) -> CommandError {
        CommandError.usage("The value '\(text)' is invalid for '\(spec.synopsis)': expected \(expected).")
    }

    func parse(_ text: String) throws -> Value {
        guard let value = Value(argument: text) else { throw invalid(text, expected: Value.expectation) }
        if let check, let expected = check(value) { throw invalid(text, expected: expected) }
        return value
    }

    /// Parses a value that came from elsewhere (an environment variable), naming that source in the error.
    func parse(_ text: String, source: String) throws -> Value {
        guard let value = Value(argument: text), check?(value) == nil else {
            let expected = Value(argument: text).flatMap { check?($0) } ?? Value.expectation
            throw CommandError.usage("The value '\(text)' of \(source) is invalid for '\(spec.synopsis)': expected \(expected).")
        }
        return value
    }
}

extension Option where Value: Comparable {
    /// An option whose value must lie in `range`; the error says so.
    init(_ names: String..., value valueName: String, help: String, default defaultValue: Value? = nil,
         defaultText: String? = nil, range: ClosedRange<Value>) {
        spec = OptionSpec(names: names, valueName: valueName, help: help,
                          defaultText: defaultText ?? defaultValue.map { "\($0)" })
        self.defaultValue = defaultValue
        check = { value in range.contains(value) ? nil : "\(Value.expectation) from \(range.lowerBound) to \(range.upperBound)" }
    }
}

/// A flag that takes no value: `--json`.
struct Flag: Sendable {
    let spec: OptionSpec

    init(_ names: String..., help: String) {
        spec = OptionSpec(names: names, valueName: nil, help: help)
    }
}

/// One positional argument, for help text and the usage line.
struct ArgumentSpec: Sendable {
    var name: String
    var help: String
    /// Any number, none included (`[<name> ...]`); otherwise exactly one (`<file>`).
    var isList = false
}

/// Everything help and the scanner need to know about a command.
struct CommandConfiguration: Sendable {
    var name: String
    var abstract: String
    var arguments: [ArgumentSpec] = []
    var options: [OptionSpec] = []
    var discussion: String? = nil
    /// The usage line when it is not generated from the options (the root command's).
    var customUsage: String? = nil

    /// `kwsuggest eval --data <file> [--model <dir>] … [<name> ...]`, generated from the declarations.
    var usage: String {
        if let customUsage { return customUsage }
        var parts = ["kwsuggest", name]
        for option in options {
            let text = option.isRepeatable ? "\(option.synopsis) ..." : option.synopsis
            parts.append(option.isRequired ? text : "[\(text)]")
        }
        for argument in arguments { parts.append(argument.isList ? "[\(argument.name) ...]" : argument.name) }
        return parts.joined(separator: " ")
    }
}

/// The command line after scanning: option values by long name, and positionals in order.
struct ParsedArguments: Sendable {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    /// True when the flag was given.
    func get(_ flag: Flag) -> Bool { flags.contains(flag.spec.key) }

    /// The option's value, else its default (nil when it has none).
    func get<Value>(_ option: Option<Value>) throws -> Value? {
        guard let text = values[option.spec.key]?.last else { return option.defaultValue }
        return try option.parse(text)
    }

    /// The option's value, else its default; a usage error when it has neither.
    func require<Value>(_ option: Option<Value>) throws -> Value {
        guard let value = try get(option) else {
            throw CommandError.usage("Missing expected option '\(option.spec.synopsis)'")
        }
        return value
    }

    /// Every value of a repeatable option, in order.
    func all<Value>(_ option: Option<Value>) throws -> [Value] {
        try (values[option.spec.key] ?? []).map(option.parse)
    }

    /// Throws a usage error naming the first positional argument, for commands that take none.
    func expectNoPositionals() throws {
        if let first = positionals.first { throw CommandError.usage("Unexpected argument '\(first)'") }
    }
}

/// Scans `--flag`, `--option value`, `--option=value` and positionals against a configuration.
///
/// `--` ends options. `-h` and `--help` are handled by the caller before scanning.
/// - Complexity: O(n × m) for n arguments and m declared options.
struct ArgumentScanner {
    var configuration: CommandConfiguration

    func scan(_ arguments: [String]) throws -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" || isNegativeNumber(argument) {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let spec = configuration.options.first(where: { $0.names.contains(name) }) else {
                throw CommandError.usage("Unknown option '\(name)'")
            }
            if spec.isFlag {
                if inlineValue != nil { throw CommandError.usage("The flag '\(name)' does not take a value") }
                parsed.flags.insert(spec.key)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw CommandError.usage("Missing value for '\(name) <\(spec.valueName ?? "value")>'")
            }
            if !spec.isRepeatable, parsed.values[spec.key] != nil {
                throw CommandError.usage("The option '\(name)' was given more than once")
            }
            parsed.values[spec.key, default: []].append(value)
        }
        for spec in configuration.options where spec.isRequired && parsed.values[spec.key] == nil {
            throw CommandError.usage("Missing expected option '\(spec.synopsis)'")
        }
        return parsed
    }

    private func isNegativeNumber(_ text: String) -> Bool {
        text.count > 1 && text.dropFirst().allSatisfy { $0.isNumber || $0 == "." }
    }
}
