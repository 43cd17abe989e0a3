/// Formats help in swift-argument-parser's layout: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS.
enum Help {
    /// - Parameter footer: the hint under SUBCOMMANDS.
    static func text(for configuration: CommandConfiguration, subcommands: [CommandConfiguration] = [],
                     footer: String = "See 'kwsuggest help <subcommand>' for detailed help.") -> String {
        var lines: [String] = []
        lines.append("OVERVIEW: \(configuration.abstract)")
        if let discussion = configuration.discussion {
            lines.append("")
            lines.append(discussion)
        }
        lines.append("")
        lines.append("USAGE: \(configuration.usage)")
        if !configuration.arguments.isEmpty {
            lines.append("")
            lines.append("ARGUMENTS:")
            for argument in configuration.arguments {
                lines.append(row(argument.name, argument.help))
            }
        }
        lines.append("")
        lines.append("OPTIONS:")
        for option in configuration.options {
            let label = option.valueName.map { "\(option.displayName) <\($0)>" } ?? option.displayName
            lines.append(row(label, option.helpLine))
        }
        lines.append(row("-h, --help", "Show help information."))
        if !subcommands.isEmpty {
            lines.append("")
            lines.append("SUBCOMMANDS:")
            for subcommand in subcommands {
                lines.append(row(String(subcommand.name.split(separator: " ").last ?? ""), subcommand.abstract))
            }
            lines.append("")
            lines.append("  " + footer)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `Error: …`, the usage line, and a hint, as printed for a usage error.
    static func usageError(_ message: String, for configuration: CommandConfiguration) -> String {
        let helpCommand = configuration.name == "kwsuggest" ? "kwsuggest --help" : "kwsuggest \(configuration.name) --help"
        return "Error: \(message)\nUsage: \(configuration.usage)\n  See '\(helpCommand)' for more information.\n"
    }

    private static func row(_ label: String, _ help: String) -> String {
        let padded = "  " + label
        if padded.count >= 26 { return padded + "\n" + String(repeating: " ", count: 26) + help }
        return padded + String(repeating: " ", count: 26 - padded.count) + help
    }
}
