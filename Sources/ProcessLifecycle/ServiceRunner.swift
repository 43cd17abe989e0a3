// Runs the whole service as a group of services: listen first, open the store and load the model in the
// background, follow the store's changes, reload on SIGHUP, drain on SIGTERM/SIGINT.
import DecisionMemory
import EventLog
import FileStore
import Foundation
import HTTPCore
import KeywordHTTP
import QueueAPI
import SuggestionRuntime
import StoreInterface
import TeamQueue

/// Everything `kwsuggest serve` needs to run.
public struct ServiceOptions: Sendable {
    public var server = ServerConfiguration()
    public var api = APIConfiguration()
    /// Where keyword changes and feedback live.
    public var store: StoreLocation = .file(KeywordOverlayFile.defaultPath(modelDirectory: "models/default"))
    /// How the annotation queue shares work (`--queue-overlap`, `--queue-audit`).
    public var queue = QueuePolicy()
    /// How the queue decides what the model labels (`--auto-accept-precision`, `--auto-accept-rule`, the categories).
    public var autoAccept = AutoAcceptConfiguration()
    /// Serve keyword writes without a token on an address other hosts can reach (see `WritePolicy`).
    public var allowOpenWrites = false
    /// The decision memory the engines answer from (see `RememberingEngine`): it follows the store's decisions
    /// while the server runs. Nil serves the model alone.
    public var memory: DecisionMemory?
    public init() {}
}

/// Owns the server, the engine state and the signal handling of one `serve` process.
public final class ServiceRunner: Sendable {
    public let options: ServiceOptions
    public let state = EngineSlot()
    private let fallback: String
    private let modelLoader: ModelWatcher.Loader
    private let announce: @Sendable (String) -> Void

    /// - Parameters:
    ///   - fallback: the model directory served while the store's model registry has no live version.
    ///   - modelLoader: loads a model directory on the opened store (the registry's live version or `fallback`);
    ///     the first runs on a background thread after the server is listening.
    ///   - announce: receives `listening on http://…` lines (stdout in the CLI).
    public init(options: ServiceOptions, fallback: String, modelLoader: @escaping ModelWatcher.Loader,
                announce: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.fallback = fallback
        self.modelLoader = modelLoader
        self.announce = announce
    }

    /// Serves until SIGTERM or SIGINT, then drains and returns. Throws when binding or loading fails.
    ///
    /// The process is a group of services (`ServiceGroup`): the store watcher, the model loader, the HTTP server
    /// and the signals, shut down in reverse order, so the server drains before the store closes.
    public func run() throws {
        if let warning = try WritePolicy.check(host: options.server.host, token: options.api.adminToken,
                                               allowOpenWrites: options.allowOpenWrites) {
            EventLog.record(.warning, "warning", ["message": warning])
        }
        if let warning = WritePolicy.corsWarning(token: options.api.adminToken, cors: options.api.cors) {
            EventLog.record(.warning, "warning", ["message": warning])
        }
        let state = self.state
        let reload: @Sendable (String) -> Void = { reason in Self.reload(state, reason: reason) }
        // Signals are caught from before the server listens, so none is lost in between.
        let signals = try SignalService(reload: reload)
        let metrics = KeywordAPI.makeMetrics(shards: options.server.eventLoops)
        let api = KeywordAPI(configuration: options.api, state: state, metrics: metrics)
        let server: HTTPServer
        do {
            server = try HTTPServer(configuration: api.serverConfiguration(options.server), responder: api, metrics: metrics)
            for address in try server.start() { announce("listening on \(address)") }
        } catch {
            signals.restore()
            throw error
        }

        let watcher = StoreWatcher(state: state, reload: reload)
        // The store's model registry is followed: its live version is served, `fallback` while none is live.
        let follower = RegistryFollower(state: state, fallback: fallback, load: modelLoader)
        let location = options.store
        let loader = ModelLoader(location: options.store, queuePolicy: options.queue, autoAccept: options.autoAccept, state: state,
                                 loader: { store in try follower.load(store: store, location: location) },
                                 loaded: { store in watcher.begin(store) })
        let memory = options.memory.map { memory in
            state.setMemory(memory)
            return MemoryFollower(state: state, memory: memory)
        }
        let group = ServiceGroup([
            .init(name: "store-watch", service: watcher, stopsGroup: false),
            .init(name: "auto-accept", service: TrustService(state: state), stopsGroup: false),
        ] + (memory.map { [.init(name: "memory", service: $0, stopsGroup: false)] } ?? []) + [
            .init(name: "model-registry", service: follower, stopsGroup: false),
            .init(name: "model-loader", service: loader, stopsGroup: false),
            .init(name: "http", service: HTTPService(server: server), stopsGroup: true),
            .init(name: "signals", service: signals, stopsGroup: true),
        ])
        defer { EventLog.record(.info, "stopped") }
        try group.run()
    }

    /// Re-reads the keyword list (a signal, or a change the store reported); logs only when the list changed,
    /// or when a person asked (SIGHUP).
    static func reload(_ state: EngineSlot, reason: String) {
        guard let engine = state.engine else { return }
        do {
            let before = engine.keywordList().version
            let list = try engine.reloadKeywords()
            state.watcher?.shadow.reloadKeywords()
            guard list.version != before || reason == "SIGHUP" else { return }
            EventLog.record(.info, "keywords_reloaded", ["reason": reason, "count": String(list.keywords.count),
                                                         "version": list.version])
        } catch {
            EventLog.record(.error, "keywords_reload_failed", ["reason": reason, "error": "\(error)"])
        }
    }
}
