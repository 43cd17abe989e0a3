import Foundation
import ModelStorage
import ModelVersions
import StoreInterface
import Training
import TrainingData

/// `kwsuggest model rollback`: the previous live version becomes live again.
struct ModelRollbackCommand: Command {
    static let store = ModelCommand.store

    static let configuration = CommandConfiguration(
        name: "model rollback",
        abstract: "Makes the previous live version live again.",
        options: [store.spec],
        discussion: """
            After the first promotion there is no previous version: rollback then leaves no version live, and
            every serve returns to the model of its --model. Serves swap within 5 s.
            """
    )

    var arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        try arguments.expectNoPositionals()
        self.arguments = arguments
    }

    func run() throws {
        let (_, registry) = try ModelCommand.registry(arguments)
        defer { registry.close() }
        let (from, to) = try ModelCommand.perform {
            try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) -> (String, String?) in
                let from = try catalog.rollback()
                return (from, catalog.head.live)
            }
        }
        print("rolled back from \(from) to \(to ?? "the --model of each serve (no version is live)")")
    }
}

/// `kwsuggest model rm VERSION`: removes a stored version.
struct ModelRemoveCommand: Command {
    static let store = ModelCommand.store

    static let configuration = CommandConfiguration(
        name: "model rm",
        abstract: "Removes a stored version (not the live one, its predecessor or the shadow).",
        arguments: [ArgumentSpec(name: "<version>", help: "A version from 'kwsuggest model list'.")],
        options: [store.spec]
    )

    var version: String
    var arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        version = try ModelCommand.positional(arguments, "<version>")
        self.arguments = arguments
    }

    func run() throws {
        let (_, registry) = try ModelCommand.registry(arguments)
        defer { registry.close() }
        try ModelCommand.perform {
            try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in try catalog.remove(version) }
        }
        print("removed \(version)")
    }
}

/// `kwsuggest model shadow VERSION --fraction F` (or `--off`): scores a share of live requests with a candidate.
struct ModelShadowCommand: Command {
    static let store = ModelCommand.store
    static let fraction = Option<Double>("--fraction", value: "f", help: "Share of suggest requests the candidate also scores.",
                                         default: 0.1, range: 0.0001...1)
    static let off = Flag("--off", help: "End the shadow.")

    static let configuration = CommandConfiguration(
        name: "model shadow",
        abstract: "Puts a stored version in shadow beside the live model, or ends the shadow.",
        arguments: [ArgumentSpec(name: "[<version>]", help: "A version from 'kwsuggest model list' (none with --off).")],
        options: [store.spec, fraction.spec, off.spec],
        discussion: """
            Every serve loads the candidate beside the live model and scores the given share of suggest requests
            with it after answering, on a background thread with a bounded queue (requests it cannot keep up
            with are not scored, and counted). Metrics: kwsuggest_shadow_requests_total,
            kwsuggest_shadow_top1_agreements_total, and for feedback, kwsuggest_shadow_feedback_top1_total
            {model="live"|"shadow"}: how often the annotator's keyword was each model's top suggestion; the
            same decisions give each model's calibration (what it would auto-accept, how often that was right, its
            ECE, since the shadow version last changed) in /readyz's shadow.calibration and in the gauges
            kwsuggest_shadow_feedback_scored, kwsuggest_shadow_feedback_auto_accepted,
            kwsuggest_shadow_feedback_auto_accepted_right and kwsuggest_shadow_feedback_ece.
            """
    )

    var version: String?
    var share: Double
    var arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        if arguments.get(Self.off) {
            if let first = arguments.positionals.first { throw CommandError.usage("--off takes no version, got '\(first)'") }
            version = nil
        } else {
            version = try ModelCommand.positional(arguments, "<version>")
        }
        share = try arguments.require(Self.fraction)
        self.arguments = arguments
    }

    func run() throws {
        let (_, registry) = try ModelCommand.registry(arguments)
        defer { registry.close() }
        try ModelCommand.perform {
            try registry.update { (catalog: inout RegistryCatalog) throws(KeywordStoreError) in
                try catalog.setShadow(version, fraction: share)
            }
        }
        print(version.map { "shadow: \($0) at fraction \(share)" } ?? "shadow off")
    }
}
