// Prometheus text exposition, version 0.0.4: the one writer of metric families, for the server's metrics and
// the application's alike.

/// A `/metrics` body being written: each family's `# HELP` and `# TYPE` lines, then its samples.
public struct PrometheusText: Sendable {
    /// A family's type.
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// The text so far.
    public private(set) var text = ""

    public init() {}

    /// Starts the family `name`: its help line and its type.
    public mutating func family(_ name: String, _ kind: Kind, help: String) {
        text += "# HELP \(name) \(help)\n"
        text += "# TYPE \(name) \(kind.rawValue)\n"
    }

    /// One sample: `name{label="value",…} value`, each label value escaped.
    public mutating func sample(_ name: String, labels: KeyValuePairs<String, String> = [:], _ value: String) {
        text += name
        if labels.count > 0 {
            text += "{"
            for (index, label) in labels.enumerated() {
                if index > 0 { text += "," }
                text += "\(label.key)=\"\(Self.escaped(label.value))\""
            }
            text += "}"
        }
        text += " \(value)\n"
    }

    public mutating func sample(_ name: String, labels: KeyValuePairs<String, String> = [:], _ value: Int) {
        sample(name, labels: labels, String(value))
    }

    public mutating func sample(_ name: String, labels: KeyValuePairs<String, String> = [:], _ value: Double) {
        sample(name, labels: labels, "\(value)")
    }

    /// A family with one unlabelled sample.
    public mutating func single(_ name: String, _ kind: Kind, help: String, _ value: Int) {
        family(name, kind, help: help)
        sample(name, value)
    }

    /// A histogram: `counts` holds one count per bound and a last one for +Inf (not cumulative).
    public mutating func histogram(_ name: String, help: String, bounds: [Double], counts: [Int], sum: Double) {
        family(name, .histogram, help: help)
        var cumulative = 0
        for (index, bound) in bounds.enumerated() {
            cumulative += counts[index]
            sample(name + "_bucket", labels: ["le": "\(bound)"], cumulative)
        }
        cumulative += counts[bounds.count]
        sample(name + "_bucket", labels: ["le": "+Inf"], cumulative)
        sample(name + "_sum", sum)
        sample(name + "_count", cumulative)
    }

    /// A label value with its backslashes, quotes and line feeds escaped.
    static func escaped(_ value: String) -> String {
        var result = ""
        for character in value {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }
}
