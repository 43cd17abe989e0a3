import Foundation
import KeywordService

/// `kwsuggest store export|import`: moves keyword changes and feedback between stores, and backs them up.
struct StoreCommand: Command {
    enum Action: String, CaseIterable {
        case export
        case `import`
    }

    static let model = SharedOptions.model
    static let store = SharedOptions.store
    static let file = Option<String>("--file", value: "file", help: "Archive to write or read.", defaultText: "standard output or input")
    static let format = Option<ExportFormat>("--format", value: "format",
                                             help: "What export writes: archive (keywords and feedback) or labels.",
                                             default: .archive)

    /// What `store export` writes.
    enum ExportFormat: String, CaseIterable, ArgumentChoice {
        /// The whole store, for `store import`.
        case archive
        /// The annotation queue's current label of every labelled item (the lines of GET /v1/labels/export).
        case labels
    }

    static let configuration = CommandConfiguration(
        name: "store",
        abstract: "Exports or imports a store's keyword changes and feedback.",
        arguments: [ArgumentSpec(name: "<action>", help: "export or import.")],
        options: [model.spec, store.spec, file.spec, format.spec],
        discussion: """
            The archive is JSON lines: {"type":"keywords","added":[...],"removed":[...]}, then one
            {"type":"feedback",...} line per feedback record, with its id and time. Import replaces the store's
            keyword changes and adds the feedback records whose ids (and client ids) it does not hold yet; a bad
            line is reported with its number and nothing is written. To move to PostgreSQL:
              kwsuggest store export --store file:models/default/keywords.overlay.json --file backup.jsonl
              kwsuggest store import --store postgres://user@host:5432/db --file backup.jsonl
            With --format labels, export writes instead one line per labelled item of the annotation queue, with
            its current label: {"id","name","keywords","decided_by","annotator","model","at"}, in the order the
            labels were made (what GET /v1/labels/export streams).
            """
    )

    var action: Action
    var location: StoreLocation
    var file: String?
    var format: ExportFormat

    init(arguments: ParsedArguments) throws {
        guard let first = arguments.positionals.first else { throw CommandError.usage("Missing expected argument '<action>'") }
        guard arguments.positionals.count == 1 else { throw CommandError.usage("Unexpected argument '\(arguments.positionals[1])'") }
        guard let action = Action(rawValue: first) else {
            throw CommandError.usage("The value '\(first)' is invalid for '<action>': expected export or import.")
        }
        self.action = action
        location = try resolveStore(store: arguments.get(Self.store), overlay: nil,
                                    modelDirectory: resolveModelDirectory(try arguments.get(Self.model)))
        file = try arguments.get(Self.file)
        format = try arguments.require(Self.format)
        if action == .import, format != .archive {
            throw CommandError.usage("--format \(format.rawValue) is for export; import reads an archive")
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
            case .export where format == .labels: try exportLabels(store)
            case .export: try export(store)
            case .import: try importArchive(store)
            }
        } catch let error as KeywordStoreError {
            throw CommandError.failure("\(error)")
        }
    }

    private func export(_ store: any KeywordStore) throws {
        guard let file else {
            try StoreArchive.export(store) { writeStandardOutput($0) }
            return
        }
        var data = Data()
        try StoreArchive.export(store) { data.append(contentsOf: $0) }
        do {
            try data.write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw CommandError.failure("\(file): cannot write: \(error.localizedDescription)")
        }
    }

    /// The queue's labels, page by page.
    private func exportLabels(_ store: any KeywordStore) throws {
        let pages: LabelPages
        do {
            pages = LabelPages(store: try location.openQueue(feedbackStore: store, policy: QueuePolicy()))
        } catch {
            throw CommandError.failure("cannot open the annotation queue in \(location.displayName): \(error)")
        }
        var data = Data()
        var cursor: LabelCursor?
        do {
            while let page = try pages.page(after: cursor) {
                if file == nil { writeStandardOutput(page.lines) } else { data.append(contentsOf: page.lines) }
                cursor = page.end
            }
        } catch {
            throw CommandError.failure("cannot read the labels: \(error)")
        }
        guard let file else { return }
        do {
            try data.write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw CommandError.failure("\(file): cannot write: \(error.localizedDescription)")
        }
    }

    private func importArchive(_ store: any KeywordStore) throws {
        let data: Data
        if let file {
            do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                throw CommandError.failure("\(file): cannot read: \(error.localizedDescription)")
            }
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        let summary = try StoreArchive.importArchive(data, source: file ?? "<stdin>", into: store)
        printError("imported into \(store.displayName): \(summary.added) added and \(summary.removed) removed keywords; "
            + "\(summary.feedbackStored) of \(summary.feedbackRead) feedback records stored (the rest were there already)")
    }
}
