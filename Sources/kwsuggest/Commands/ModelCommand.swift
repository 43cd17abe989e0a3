import Foundation
import ModelVersions
import StoreOpening
import ModelStorage
import StoreInterface
import Training
import TrainingData

/// `kwsuggest model push|list|promote|rollback|rm|shadow`: the model registry in the store.
struct ModelCommand: CommandGroup {
    static var subcommands: [any Command.Type] { [
        ModelPushCommand.self, ModelListCommand.self, ModelPromoteCommand.self, ModelRollbackCommand.self,
        ModelRemoveCommand.self, ModelShadowCommand.self,
    ] }

    static let configuration = CommandConfiguration(
        name: "model",
        abstract: "Pushes, lists, promotes and rolls back model versions in the store's registry.",
        discussion: """
            The registry lives in the store: for file:PATH a folder beside the overlay file (PATH without .json,
            plus .registry; run-time data, ignored by git), for PostgreSQL tables of the database, files
            included. A version is the manifest's model_version. Every serve on the store serves the live
            version within 5 s of a promotion, and its --model until a version is live.
            """,
        customUsage: "kwsuggest model <subcommand>"
    )

    /// The store option every model subcommand takes.
    static let store = Option<String>("--store", value: "store", help: "file:PATH or postgres://user@host:5432/db.",
                                      defaultText: "$KWSUGGEST_STORE or file:<default model dir>/keywords.overlay.json")

    /// Opens the registry of `--store` (else KWSUGGEST_STORE, else the file store beside the default model).
    static func registry(_ arguments: ParsedArguments) throws -> (location: StoreLocation, registry: any ModelRegistry) {
        let location = try resolveStore(store: arguments.get(store), overlay: nil, modelDirectory: resolveModelDirectory(nil))
        do {
            return (location, try location.openRegistry())
        } catch {
            throw CommandError.failure("cannot open the model registry of \(location.displayName): \(error)")
        }
    }

    /// The single positional argument `<version>` (or `<dir>`).
    static func positional(_ arguments: ParsedArguments, _ name: String) throws -> String {
        guard let first = arguments.positionals.first else { throw CommandError.usage("Missing expected argument '\(name)'") }
        guard arguments.positionals.count == 1 else { throw CommandError.usage("Unexpected argument '\(arguments.positionals[1])'") }
        return first
    }

    /// Runs a registry operation, turning store errors into failures.
    static func perform<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as KeywordStoreError {
            throw CommandError.failure("\(error)")
        } catch let error as ModelDirectoryError {
            throw CommandError.failure(error.description)
        }
    }
}
