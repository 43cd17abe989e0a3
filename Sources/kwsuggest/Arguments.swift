/// One option or flag a command accepts.
struct OptionSpec: Sendable {
    /// Every spelling, long first: `["--keywords"]`, `["-k", "--k"]`.
    var names: [String]
    /// The placeholder for the value (`FILE`), or nil for a flag that takes none.
    var valueName: String?
    var help: String
    var isRepeatable = false

    var isFlag: Bool { valueName == nil }
    var displayName: String { names.sorted { $0.count < $1.count }.joined(separator: ", ") }
    var key: String { names.first { $0.hasPrefix("--") } ?? names[0] }
}

/// One positional argument, for help text.
struct ArgumentSpec: Sendable {
    var name: String
    var help: String
}

/// Everything help and the scanner need to know about a command.
struct CommandConfiguration: Sendable {
    var name: String
    var abstract: String
    var usage: String
    var arguments: [ArgumentSpec] = []
    var options: [OptionSpec] = []
    var discussion: String? = nil
}

/// The command line after scanning: option values by long name, and positionals in order.
struct ParsedArguments: Sendable {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// Throws a usage error naming the first positional argument, for commands that take none.
    func expectNoPositionals() throws {
        if let first = positionals.first { throw CommandError.usage("Unexpected argument '\(first)'") }
    }

    /// The value of an option the command cannot run without; a usage error when it is absent.
    func required(_ name: String, placeholder: String) throws -> String {
        guard let text = value(name) else { throw CommandError.usage("Missing expected option '\(name) <\(placeholder)>'") }
        return text
    }

    /// An integer option, or `defaultValue` when absent; a usage error when not an integer.
    func int(_ name: String, default defaultValue: Int) throws -> Int {
        guard let text = value(name) else { return defaultValue }
        guard let number = Int(text) else {
            throw CommandError.usage("The value '\(text)' is invalid for '\(name) <n>': expected an integer.")
        }
        return number
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
        return parsed
    }

    private func isNegativeNumber(_ text: String) -> Bool {
        text.count > 1 && text.dropFirst().allSatisfy { $0.isNumber || $0 == "." }
    }
}
