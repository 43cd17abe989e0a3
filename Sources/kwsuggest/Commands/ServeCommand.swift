import APICore
import DecisionMemory
import EventLog
import Foundation
import HTTPCore
import KeywordHTTP
import ModelStorage
import Platform
import PostgresStore
import QueueAPI
import ProcessLifecycle
import SuggestionRuntime
import Sockets
import StoreInterface
import TeamQueue
#if canImport(Glibc)
import Glibc
#endif

/// `kwsuggest serve`: the HTTP API and the annotation workbench page.
struct ServeCommand: Command {
    /// Builds the engine for a model directory on an opened store; `verify` checks the model files against
    /// their manifest checksums, and the auto-accept threshold is read from the calibration curve for the given
    /// precision; the list holds at most `maxKeywords`. Runs on a background thread after the server listens;
    /// until it returns, /readyz answers 503.
    typealias EngineFactory = @Sendable (_ modelDirectory: String, _ store: any KeywordStore, _ verify: Bool,
                                         _ autoAcceptPrecision: Double, _ maxKeywords: Int) throws -> any SuggestionEngine

    /// The model `serve` uses: the trained model of the model directory, with the store's keyword changes applied.
    static func modelEngine(_ directory: String, _ store: any KeywordStore, _ verify: Bool, _ precision: Double,
                            _ maxKeywords: Int) throws -> ModelEngine {
        let engine = try ModelEngine(components: ModelDirectory.load(path: directory, verify: verify), store: store,
                                     autoAcceptPrecision: precision, maxKeywords: maxKeywords)
        if engine.autoAcceptThreshold == nil, let warning = engine.components.calibration?.unreachedPrecisionWarning(precision) {
            EventLog.record(.warning, "warning", ["message": warning])
        }
        return engine
    }

    /// The engine `serve` answers with: `modelEngine`, with the process's decision memory in front.
    static func engineFactory(_ memory: DecisionMemory) -> EngineFactory {
        { directory, store, verify, precision, maxKeywords in
            RememberingEngine(base: try modelEngine(directory, store, verify, precision, maxKeywords), memory: memory)
        }
    }

    static let host = Option<String>("--host", value: "host", help: "Address to bind; '::' for IPv4+IPv6.",
                                     default: "127.0.0.1")
    static let port = Option<Int>("--port", value: "port", help: "TCP port; 0 picks a free one.",
                                  defaultText: "$PORT or 8080", range: 0...65535)
    static let model = SharedOptions.model
    static let threads = Option<Int>("--threads", value: "n", help: "Event-loop threads.", defaultText: "one per CPU",
                                     range: 1...256)
    static let corsOrigin = Option<String>("--cors-origin", value: "origin",
                                           help: "Origin allowed to call the API from a browser; repeatable, '*' for any.",
                                           defaultText: "$KWSUGGEST_CORS_ORIGINS", repeatable: true)
    static let store = SharedOptions.store
    static let overlay = Option<String>("--overlay", value: "file", help: "Same as --store file:<file>.")
    static let accessLog = Option<AccessLogMode>("--access-log", value: "mode",
                                                 help: "Access-log lines on stderr: on for every request, errors for status 400 and above, or off.",
                                                 default: .on)
    static let noVerify = SharedOptions.noVerify
    static let autoAcceptPrecision = Option<Double>(
        "--auto-accept-precision", value: "p",
        help: "Top-1 precision auto-accepted answers must reach: the calibration curve's threshold for it, and the target of the queue's auto-accept rule.",
        default: ModelCalibration.defaultPrecision, range: 0.5...1)
    static let autoAcceptRule = Option<AutoAcceptMode>(
        "--auto-accept-rule", value: "rule",
        help: "What lets the model label a queue item: evidence (above the calibration threshold, the team's decisions on this model support --auto-accept-precision at the item's confidence) or calibration (the calibration threshold alone).",
        default: .evidence)
    static let keywordCategories = Option<String>(
        "--keyword-categories", value: "file",
        help: "keyword<TAB>category lines the auto-accept rule pools evidence by (the served order reads the model's own file).",
        defaultText: "keyword-categories.tsv of --model, when it has one")
    static let allowedHost = Option<String>("--allowed-host", value: "name",
                                            help: "Host name (any port) that may send writes while they are open, beyond localhost, 127.0.0.1 and [::1]; repeatable.",
                                            repeatable: true)
    static let queueOverlap = Option<Double>(
        "--queue-overlap", value: "share", help: "Share of queued items labelled by two annotators (a third when they disagree).",
        default: QueuePolicy.defaultOverlapShare, range: 0...1)
    static let queueAudit = Option<Double>(
        "--queue-audit", value: "share", help: "Share of auto-accepted queue items also queued for a person to check.",
        default: QueuePolicy.defaultAuditShare, range: 0...1)
    static let annotators = Option<String>(
        "--annotators", value: "file",
        help: "Annotators' tokens: lines of 'name<TAB>sha256 hex of the token'; each token acts on the queue as its annotator only.")
    static let leaseCap = Option<Int>(
        "--lease-cap", value: "n", help: "Most queue items one annotator holds at once, over all their leases.",
        default: QueuePolicy.defaultLeaseCap, range: 1...1_000_000)
    static let allowOpenWrites = Flag("--allow-open-writes",
                                      help: "Serve keyword writes without KWSUGGEST_ADMIN_TOKEN on a non-loopback address.")

    static let configuration = CommandConfiguration(
        name: "serve",
        abstract: "Serves the suggestion API and the annotation workbench over HTTP.",
        options: [host.spec, port.spec, model.spec, store.spec, threads.spec, corsOrigin.spec, overlay.spec,
                  accessLog.spec, noVerify.spec, autoAcceptPrecision.spec, autoAcceptRule.spec, keywordCategories.spec,
                  queueOverlap.spec, queueAudit.spec,
                  annotators.spec, leaseCap.spec, allowOpenWrites.spec, allowedHost.spec],
        discussion: """
            Listens first and prints 'listening on http://HOST:PORT', then opens the store and loads the model in
            the background, logging the model directory it chose; /readyz answers 503 until both are done (a
            model file whose SHA-256 differs from manifest.json stops it with exit 1). Keyword changes
            (POST /v1/keywords) and feedback (POST /v1/feedback) are durable in the store before they are acknowledged. The file store
            locks a file beside the overlay, so processes on one machine may share it; changes by other
            processes are picked up within 1 s (SIGHUP reloads at once). For replicas on several machines use
            postgres://user@host:5432/db (needs libpq5; password from the URL, PGPASSWORD or PGPASSFILE).
            When the store's model registry has a live version (kwsuggest model promote), that version is
            served and --model only until one is live; a promotion is loaded beside the served model and swapped
            in within 5 s, and a version that fails to load leaves the served one (the log, /readyz and
            /metrics say so).
            SIGTERM or SIGINT stops accepting, finishes in-flight requests (up to 10 s) and exits 0.
            Environment: PORT, KWSUGGEST_MODEL, KWSUGGEST_STORE, KWSUGGEST_CORS_ORIGINS, KWSUGGEST_ADMIN_TOKEN
            (when set, keyword changes, feedback and its export need 'Authorization: Bearer <token>'; surrounding white space
            is trimmed). Without a token writes are open: a warning on a loopback address, and a refusal to start
            on any other address unless --allow-open-writes is given. Open writes and the export answer only
            requests whose Host is localhost, 127.0.0.1, [::1] or an --allowed-host name, with any port (others
            get 403 host_not_allowed). With a calibrated model (calibration.json)
            every suggestion carries its confidence, and an answer is marked auto_accept when the top one clears
            the threshold the calibration curve gives for --auto-accept-precision (by the file's threshold_rule:
            the lowest threshold whose one-sided 95 % lower bound of top-1 precision on the calibration names
            reaches it); a precision the curve never reaches auto-accepts nothing.
            The annotation queue (/v1/queue/…, /v1/labels/export) lives in the same store; every process sharing
            it must run with the same --queue-overlap and --queue-audit, since an item's routing is decided from
            its id with them. The queue's model labels an arriving item only when the team's labels on this
            model's suggestions support --auto-accept-precision at the item's confidence (--auto-accept-rule
            evidence, see docs/queue.md); every serve rebuilds that rule from the store every 2 s. A name
            the team decided before (one with the same name key) is answered from the decision memory first, on
            every serve within a second, and labelled by it in the queue (docs/memory.md).
            With --annotators, a queue request needs the admin token or an annotator's token;
            an annotator's token acts only as that annotator (a body naming another gets 403 wrong_annotator,
            so undo reverts only the caller's own decisions), while the admin token keeps every right. One
            annotator holds at most --lease-cap items: a lease past it gets only what fits.
            """
    )

    var host: String
    var port: Int
    var modelDirectory: String
    var modelSource: ModelSearch.Source
    var threads: Int?
    var corsOrigins: [String]
    var storeLocation: StoreLocation
    var allowOpenWrites: Bool
    var hosts: HostPolicy
    var verify: Bool
    var accessLogMode: AccessLogMode
    var autoAcceptPrecision: Double
    var queuePolicy: QueuePolicy
    var annotators: AnnotatorTokens
    var autoAccept: AutoAcceptConfiguration

    init(arguments: ParsedArguments) throws {
        try arguments.expectNoPositionals()
        host = try arguments.require(Self.host)
        if let number = try arguments.get(Self.port) {
            port = number
        } else if let text = Environment.value("PORT"), !text.isEmpty {
            port = try Self.port.parse(text, source: "the environment variable PORT")
        } else {
            port = 8080
        }
        let search = ModelSearch.current(option: try arguments.get(Self.model))
        (modelDirectory, modelSource) = (search.path, search.source)
        threads = try arguments.get(Self.threads)
        var origins = try arguments.all(Self.corsOrigin)
        if origins.isEmpty, let text = Environment.value("KWSUGGEST_CORS_ORIGINS") {
            origins = CORSPolicy.parse(environment: text)
        }
        corsOrigins = origins
        storeLocation = try resolveStore(store: arguments.get(Self.store), overlay: arguments.get(Self.overlay),
                                         modelDirectory: modelDirectory)
        allowOpenWrites = arguments.get(Self.allowOpenWrites)
        let allowedHosts = try arguments.all(Self.allowedHost)
        do {
            hosts = try HostPolicy(allowedNames: allowedHosts)
        } catch {
            throw CommandError.usage(error.message)
        }
        verify = !arguments.get(Self.noVerify)
        accessLogMode = try arguments.require(Self.accessLog)
        autoAcceptPrecision = try arguments.require(Self.autoAcceptPrecision)
        queuePolicy = QueuePolicy(overlapShare: try arguments.require(Self.queueOverlap),
                                  auditShare: try arguments.require(Self.queueAudit),
                                  leaseCap: try arguments.require(Self.leaseCap))
        annotators = AnnotatorTokens()
        if let path = try arguments.get(Self.annotators) {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandError.failure("\(path): cannot read the annotators file")
            }
            guard let text = String(bytes: data, encoding: .utf8) else {
                throw CommandError.failure("\(path): the annotators file is not valid UTF-8")
            }
            do {
                annotators = try AnnotatorTokens.parse(text, path: path)
            } catch {
                throw CommandError.failure(error.message)
            }
        }
        let categoriesPath = try arguments.get(Self.keywordCategories)
        let path = categoriesPath ?? modelDirectory + "/" + ModelFiles.keywordCategoriesName
        var categories: [String: String] = [:]
        if categoriesPath != nil || access(path, F_OK) == 0 {
            do {
                categories = try ModelFiles.keywordCategories(path: path)
            } catch {
                throw CommandError.failure("\(error)")
            }
        }
        autoAccept = AutoAcceptConfiguration(mode: try arguments.require(Self.autoAcceptRule),
                                             settings: AutoAcceptSettings(target: autoAcceptPrecision), categories: categories)
    }

    func run() throws {
        // Model swaps must not leave each dropped model's memory behind (see MemoryRelease).
        MemoryRelease.keepLargeBlocksMapped()
        if case .postgres = storeLocation {
            do { try PostgresKeywordStore.loadLibrary() } catch { throw CommandError.failure("\(error)") }
        }
        var options = ServiceOptions()
        options.server.host = host
        options.server.port = port
        if let threads { options.server.eventLoops = threads }
        options.server.accessLogMode = accessLogMode
        options.api.cors = CORSPolicy(allowedOrigins: corsOrigins)
        options.store = storeLocation
        options.allowOpenWrites = allowOpenWrites
        options.api.hosts = hosts
        options.queue = queuePolicy
        options.api.annotators = annotators
        options.autoAccept = autoAccept
        do {
            options.api.adminToken = try WritePolicy.token(fromEnvironment: Environment.value("KWSUGGEST_ADMIN_TOKEN"))
        } catch {
            throw CommandError.failure(error.message)
        }
        let memory = DecisionMemory()
        options.memory = memory
        let factory = Self.engineFactory(memory)
        let (directory, source, verify, precision) = (modelDirectory, modelSource, verify, autoAcceptPrecision)
        let maxKeywords = options.api.limits.maxKeywords
        let modelLoader: ModelWatcher.Loader = { modelDirectory, store in
            if modelDirectory == directory {
                EventLog.record(.info, "model_directory", ["path": directory, "source": source.rawValue])
            }
            return try factory(modelDirectory, store, verify, precision, maxKeywords)
        }
        let runner = ServiceRunner(options: options, fallback: directory, modelLoader: modelLoader, announce: { line in
            // Unbuffered, so a supervisor reading stdout sees the address at once.
            writeStandardOutput(Array((line + "\n").utf8))
        })
        do {
            try runner.run()
        } catch let error as SocketError {
            throw CommandError.failure("cannot listen on \(host):\(port): \(error)")
        } catch let error as ServiceError {
            throw CommandError.failure(error.message)
        }
    }
}

extension AccessLogMode: ArgumentChoice {}
extension AutoAcceptMode: ArgumentChoice {}
