// Runs the whole service as a group of services: listen first, open the store and load the model in the
// background, follow the store's changes, reload on SIGHUP, drain on SIGTERM/SIGINT.
import EventLog
import FileStore
import Foundation
import HTTPCore
import KeywordServer
import QueueAPI
import Serving
import StoreInterface

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
    /// Follow the store's model registry: serve its live version, and this model directory while none is live,
    /// loading each with `modelLoader`. Without them the runner's loader serves one model for the whole run.
    public var registryFallback: String?
    public var modelLoader: ModelWatcher.Loader?
    public init() {}
}

/// Owns the server, the engine state and the signal handling of one `serve` process.
public final class ServiceRunner: Sendable {
    public let options: ServiceOptions
    public let state = EngineState()
    private let loader: @Sendable (any KeywordStore) throws -> any SuggestionEngine
    private let announce: @Sendable (String) -> Void

    /// - Parameters:
    ///   - loader: loads the engine on the opened store; runs on a background thread after the server is listening.
    ///   - announce: receives `listening on http://…` lines (stdout in the CLI).
    public init(options: ServiceOptions, loader: @escaping @Sendable (any KeywordStore) throws -> any SuggestionEngine,
                announce: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.loader = loader
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
        var follower: RegistryFollower?
        var load = self.loader
        if let fallback = options.registryFallback, let modelLoader = options.modelLoader {
            let registry = RegistryFollower(state: state, fallback: fallback, load: modelLoader)
            let location = options.store
            load = { store in try registry.load(store: store, location: location) }
            follower = registry
        }
        let loader = ModelLoader(location: options.store, queuePolicy: options.queue, autoAccept: options.autoAccept,
                                 state: state, loader: load, loaded: { store in watcher.begin(store) })
        let group = ServiceGroup([
            .init(name: "store-watch", service: watcher, stopsGroup: false),
            .init(name: "auto-accept", service: TrustService(state: state), stopsGroup: false),
        ] + (follower.map { [.init(name: "model-registry", service: $0, stopsGroup: false)] } ?? []) + [
            .init(name: "model-loader", service: loader, stopsGroup: false),
            .init(name: "http", service: HTTPService(server: server), stopsGroup: true),
            .init(name: "signals", service: signals, stopsGroup: true),
        ])
        defer { EventLog.record(.info, "stopped") }
        try group.run()
    }

    /// Re-reads the keyword list (a signal, or a change the store reported); logs only when the list changed,
    /// or when a person asked (SIGHUP).
    static func reload(_ state: EngineState, reason: String) {
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
