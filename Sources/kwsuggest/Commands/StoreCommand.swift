import EventLog
import Foundation
import ModelStorage
import Platform
import StoreInterface
import StoreOpening
import TeamQueue
import TrainingData

/// `kwsuggest store export|import`: moves keyword changes and feedback between stores, and backs them up.
struct StoreCommand: Command {
    enum Action: String, CaseIterable {
        case export
        case `import`
    }

    /// What `export` writes.
    enum Format: String, CaseIterable, ArgumentChoice {
        /// Everything the store holds, for `import`.
        case archive
        /// Labelled names from the accepted and corrected feedback, for `train --data`.
        case training
        /// The annotation queue's current label of every labelled item (the lines of GET /v1/labels/export).
        case labels
        /// The annotation queue's flagged items (the lines of GET /v1/queue/flagged).
        case flagged
    }

    static let model = SharedOptions.model
    static let store = SharedOptions.store
    static let file = Option<String>("--file", value: "file", help: "Archive to write or read.", defaultText: "standard output or input")
    static let format = Option<Format>("--format", value: "format",
                                       help: "What export writes: archive (the whole store, for import), training (labelled names, for train --data), labels (the queue's labels) or flagged (the queue's flagged items).",
                                       default: .archive)
    static let since = Option<String>("--since", value: "time",
                                      help: "With --format labels or flagged: only entries made at or after this UTC time (2026-01-31T12:00:00Z), as the routes' ?since= does.")

    static let configuration = CommandConfiguration(
        name: "store",
        abstract: "Exports or imports a store's keyword changes and feedback.",
        arguments: [ArgumentSpec(name: "<action>", help: "export or import.")],
        options: [model.spec, store.spec, file.spec, format.spec, since.spec],
        discussion: """
            The archive is JSON lines: {"type":"keywords","added":[...],"removed":[...]}, then one
            {"type":"feedback",...} line per feedback record, with its id and time. Import replaces the store's
            keyword changes and adds the feedback records whose ids (and client ids) it does not hold yet; a bad
            line (longer than 64 MiB, not valid JSON, a bad field) is reported with its number and nothing is
            written; so is an archive whose keyword changes would make the model's list (--model) longer than 50000
            keywords. To move to PostgreSQL:
              kwsuggest store export --store file:models/default/keywords.overlay.json --file backup.jsonl
              kwsuggest store import --store postgres://user@host:5432/db --file backup.jsonl
            With --format training, export writes training data instead: one {"name","keywords","source"} line per
            accepted or corrected feedback record, oldest first, the lines train --data and eval --data read
            (records of annotation-queue decisions that were undone are left out). With --format labels, one line
            per labelled item of the annotation queue with its current label:
            {"id","name","keywords","decided_by","annotator","model","at"}, in the order the labels were made (what
            GET /v1/labels/export streams). With --format flagged, one line per flagged item:
            {"id","name","flagged_by","at","suggestions"}, in the order they were flagged (GET /v1/queue/flagged).
            """
    )

    var action: Action
    var location: StoreLocation
    var modelDirectory: String
    var file: String?
    var format: Format
    var since: QueueTime?

    init(arguments: ParsedArguments) throws {
        guard let first = arguments.positionals.first else { throw CommandError.usage("Missing expected argument '<action>'") }
        guard arguments.positionals.count == 1 else { throw CommandError.usage("Unexpected argument '\(arguments.positionals[1])'") }
        guard let action = Action(rawValue: first) else {
            throw CommandError.usage("The value '\(first)' is invalid for '<action>': expected export or import.")
        }
        self.action = action
        modelDirectory = resolveModelDirectory(try arguments.get(Self.model))
        location = try resolveStore(store: arguments.get(Self.store), overlay: nil, modelDirectory: modelDirectory)
        file = try arguments.get(Self.file)
        format = try arguments.require(Self.format)
        if format != .archive && action != .export {
            throw CommandError.usage("--format applies to export only")
        }
        if let text = try arguments.get(Self.since) {
            guard format == .labels || format == .flagged else {
                throw CommandError.usage("--since applies to export --format labels or flagged only")
            }
            guard let time = UTCTime.parse(text) else {
                throw CommandError.usage("The value '\(text)' is invalid for '--since <time>': a UTC time such as 2026-01-31T12:00:00Z")
            }
            since = time
        }
    }

    func run() throws {
        let store: any KeywordStore
        do {
            store = try location.open()
        } catch {
            throw CommandError.failure("cannot open the store \(location.displayName): \(error)")
        }
        defer { store.close() }
        do {
            switch action {
            case .export: try export(store)
            case .import: try importArchive(store)
            }
        } catch let error as KeywordStoreError {
            throw CommandError.failure("\(error)")
        }
    }

    private func export(_ store: any KeywordStore) throws {
        let queue: any QueueStore
        do {
            // Routing does not matter to an export: the default policy.
            queue = try location.openQueue(feedbackStore: store, policy: QueuePolicy())
        } catch {
            throw CommandError.failure("cannot open the annotation queue in \(location.displayName): \(error)")
        }
        let export: (_ write: ([UInt8]) throws -> Void) throws -> Void = { write in
            switch format {
            case .archive: try StoreArchive.export(store, write: write)
            case .training: try LabelledData.export(store, withdrawn: try queue.withdrawnFeedback(), write: write)
            case .labels: try LabelPages(store: queue).export(since: since, write: write)
            case .flagged: try LabelPages(store: queue, list: .flagged).export(since: since, write: write)
            }
        }
        guard let file else {
            try export { writeStandardOutput($0) }
            return
        }
        var data = Data()
        try export { data.append(contentsOf: $0) }
        do {
            try data.write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw CommandError.failure("\(file): cannot write: \(error.localizedDescription)")
        }
    }

    private func importArchive(_ store: any KeywordStore) throws {
        let handle: FileHandle
        if let file {
            do { handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file)) } catch {
                throw CommandError.failure("\(file): cannot read: \(error.localizedDescription)")
            }
        } else {
            handle = FileHandle.standardInput
        }
        // The keyword changes must leave a list the model can serve: its own keywords are the base they apply to.
        let base: [String]
        do {
            base = try ModelFiles.keywords(path: (modelDirectory as NSString).appendingPathComponent(ModelDirectory.keywordsName))
        } catch {
            throw CommandError.failure("\(error)")
        }
        let summary = try StoreArchive.importArchive(reading: handle, source: file ?? "<stdin>", into: store, base: base)
        EventLog.message(.info, "imported into \(store.displayName): \(summary.added) added and \(summary.removed) removed keywords; "
            + "\(summary.feedbackStored) of \(summary.feedbackRead) feedback records stored (the rest were there already)")
    }
}
