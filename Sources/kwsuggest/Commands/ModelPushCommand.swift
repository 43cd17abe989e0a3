import EventLog
import Foundation
import ModelStorage
import StoreInterface
import Training
import TrainingData

/// `kwsuggest model push DIR`: checks a model directory and stores it in the registry.
struct ModelPushCommand: Command {
    static let store = ModelCommand.store
    static let keep = Option<Int>("--keep", value: "n",
                                  help: "Versions to keep, newest first, besides the live one, its predecessor and the shadow.",
                                  default: 5, range: 1...1000)
    static let json = Flag("--json", help: "Print {\"version\": …} instead of text.")

    static let configuration = CommandConfiguration(
        name: "model push",
        abstract: "Checks a model directory and stores it in the registry.",
        arguments: [ArgumentSpec(name: "<dir>", help: "The model directory (with manifest.json).")],
        options: [store.spec, keep.spec, json.spec],
        discussion: """
            Every file the manifest lists is checked against its SHA-256, the files a model needs must be there,
            and the model must load; a damaged or incomplete directory is refused, naming the file. The version
            (the manifest's model_version) is printed on the last line. A file the registry holds already is
            checked against its SHA-256 too: a damaged stored copy is replaced by the pushed one (and named).
            Pushing a version that is stored already changes nothing else.
            """
    )

    var directory: String
    var keepCount: Int
    var asJSON: Bool
    var arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        directory = try ModelCommand.positional(arguments, "<dir>")
        keepCount = try arguments.require(Self.keep)
        asJSON = arguments.get(Self.json)
        self.arguments = arguments
    }

    func run() throws {
        let (_, registry) = try ModelCommand.registry(arguments)
        defer { registry.close() }
        let outcome = try ModelCommand.perform { try ModelPush.push(directory: directory, to: registry, keep: keepCount) }
        for name in outcome.repaired {
            EventLog.record(.warning, "model_file_repaired", ["version": outcome.version, "file": name, "store": registry.displayName])
        }
        if asJSON {
            print("{\"version\":\(jsonQuote(outcome.version)),\"already_stored\":\(outcome.alreadyStored),"
                + "\"removed\":[\(outcome.removed.map(jsonQuote).joined(separator: ","))],"
                + "\"repaired\":[\(outcome.repaired.map(jsonQuote).joined(separator: ","))]}")
            return
        }
        for name in outcome.repaired {
            print("repaired the stored \(name): its bytes no longer had their SHA-256; replaced by the pushed copy")
        }
        print(outcome.alreadyStored ? "already stored in \(registry.displayName)" : "stored in \(registry.displayName)")
        for version in outcome.removed { print("removed \(version) (--keep \(keepCount))") }
        print(outcome.version)
    }
}

/// `kwsuggest model list`: the stored versions and which one is live.
struct ModelListCommand: Command {
    static let store = ModelCommand.store
    static let json = Flag("--json", help: "Print the registry as one JSON object.")

    static let configuration = CommandConfiguration(
        name: "model list",
        abstract: "Lists the stored versions: parent, created, size, gate figures, and which one is live.",
        options: [store.spec, json.spec],
        discussion: """
            One line per version, oldest first: the version, its state (live, previous: what rollback returns
            to, shadow), parent, created (UTC), size in MB and the Acc@1 of each gate set it was promoted on
            (live → candidate; forced when the gate was skipped).
            """
    )

    var asJSON: Bool
    var arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        try arguments.expectNoPositionals()
        asJSON = arguments.get(Self.json)
        self.arguments = arguments
    }

    func run() throws {
        let (_, registry) = try ModelCommand.registry(arguments)
        defer { registry.close() }
        let catalog = try ModelCommand.perform { try registry.catalog() }
        if asJSON {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = try ModelCommand.perform { try encoder.encode(catalog) }
            print(String(decoding: data, as: UTF8.self))
            return
        }
        let head = catalog.head
        print("live: \(head.live ?? "none (serves use their --model)")")
        if let shadow = head.shadow { print("shadow: \(shadow) at fraction \(head.shadowFraction)") }
        for model in catalog.models {
            var state: [String] = []
            if model.version == head.live { state.append("live") }
            if model.version == head.previous.last { state.append("previous") }
            if model.version == head.shadow { state.append("shadow") }
            let size = String(format: "%.1f MB", Double(model.size) / 1_000_000)
            print("\(model.version)  [\(state.joined(separator: ","))]  parent \(model.parent ?? "-")  created \(model.created)  \(size)  gate \(Self.gate(model.gate))")
        }
    }

    /// `dev.jsonl 0.9327→0.9341, feedback 0.81→0.90` from the stored report; `forced` when the gate was skipped.
    static func gate(_ json: String?) -> String {
        guard let json, let report = try? JSONDecoder().decode(GateReport.self, from: Data(json.utf8)) else { return "-" }
        if report.forced { return "forced" }
        return report.sets.map { "\($0.set) \(GateReport.format($0.live))→\(GateReport.format($0.candidate))" }.joined(separator: ", ")
    }
}
