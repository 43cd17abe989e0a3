// Runs the whole service: listen first, open the store and load the model in the background, follow the
// store's changes, reload on SIGHUP, drain on SIGTERM/SIGINT.
import Foundation
import HTTPCore
import KeywordService
import Locking
import StrictJSON
#if canImport(Glibc)
import Glibc
#endif

/// Everything `kwsuggest serve` needs to run.
public struct ServiceOptions: Sendable {
    public var server = ServerConfiguration()
    public var api = APIConfiguration()
    /// Where keyword changes and feedback live.
    public var store: StoreLocation = .file(KeywordOverlayStore.defaultPath(modelDirectory: "models/default"))
    /// How the annotation queue shares work (`--queue-overlap`, `--queue-audit`).
    public var queue = QueuePolicy()
    /// Serve keyword writes without a token on an address other hosts can reach (see `WritePolicy`).
    public var allowOpenWrites = false
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
    public func run() throws {
        if let warning = try WritePolicy.check(host: options.server.host, token: options.api.adminToken,
                                               allowOpenWrites: options.allowOpenWrites) {
            Self.event(["event": "warning", "message": warning])
        }
        let (signalRead, signalWrite) = try Syscall.pipe()
        defer {
            for signal in [SIGTERM, SIGINT, SIGHUP] { Syscall.defaultSignal(signal) }
            Syscall.close(signalRead)
            Syscall.close(signalWrite)
        }
        for signal in [SIGTERM, SIGINT, SIGHUP] { try Syscall.forwardSignal(signal, to: signalWrite) }
        Syscall.ignoreSIGPIPE()

        let metrics = KeywordAPI.makeMetrics(shards: options.server.eventLoops)
        let api = KeywordAPI(configuration: options.api, state: state, metrics: metrics)
        let server = try HTTPServer(configuration: api.serverConfiguration(options.server), responder: api, metrics: metrics)
        for address in try server.start() { announce("listening on \(address)") }

        let loadFailure = LoadFailure()
        let state = self.state, loader = self.loader, location = options.store, policy = options.queue
        let loading = Thread { [self] in
            let started = Syscall.monotonicNanoseconds()
            do {
                let store: any KeywordStore
                do {
                    store = try Self.openStore(location)
                } catch {
                    throw ServiceError(message: "cannot open the store \(location.displayName): \(error)")
                }
                state.setStore(store)
                do {
                    state.setQueue(AnnotationQueue(store: try location.openQueue(feedbackStore: store, policy: policy)))
                } catch {
                    throw ServiceError(message: "cannot open the annotation queue in \(location.displayName): \(error)")
                }
                let engine = try loader(store)
                let seconds = Double(Syscall.monotonicNanoseconds() - started) / 1e9
                state.setReady(engine, loadSeconds: seconds)
                Self.event(["event": "model_loaded", "model": engine.modelVersion,
                            "load_ms": String(format: "%.1f", seconds * 1000), "store": store.displayName])
                store.startWatching { [self] reason in reload(reason: reason) }
            } catch {
                state.setFailed("\(error)")
                loadFailure.set((error as? ServiceError)?.message ?? "cannot load the model: \(error)")
                Syscall.eventlessWake(signalWrite)
            }
        }
        loading.name = "kwsuggest-model-loader"
        loading.start()

        watch: while true {
            guard Syscall.waitReadable(signalRead, milliseconds: -1) else { continue }
            // Read every pending signal first, then act once: a storm of SIGHUPs is one reload, and a
            // SIGTERM behind them is not kept waiting by reloads it makes pointless.
            var pending: [UInt8] = []
            while let byte = Syscall.readByte(signalRead) { pending.append(byte) }
            switch SignalBatch(pending) {
            case .stop(let signal):
                Self.event(["event": "draining", "signal": signal == SIGTERM ? "SIGTERM" : "SIGINT"])
                break watch
            case .reload(let count):
                reload(reason: count == 1 ? "SIGHUP" : "SIGHUP ×\(count)")
            case .wake, .nothing:
                break
            }
            if loadFailure.message != nil { break watch }
        }
        server.shutdown()
        server.wait()
        state.store?.close()
        Self.event(["event": "stopped"])
        if let message = loadFailure.message {
            throw ServiceError(message: message)
        }
    }

    /// Opens the store; a database that cannot be reached yet is retried with backoff (up to 5 s apart) while
    /// /readyz answers 503, since a replica cannot serve the list before it has read it once.
    static func openStore(_ location: StoreLocation) throws(KeywordStoreError) -> any KeywordStore {
        var delay = 0.1
        while true {
            let failure: KeywordStoreError
            do {
                return try location.open()
            } catch {
                failure = error
            }
            guard case .unavailable(let message) = failure else { throw failure }
            event(["event": "store_unavailable", "store": location.displayName, "error": message,
                   "retry_in_s": String(format: "%.1f", delay)])
            usleep(useconds_t(delay * 1_000_000))
            delay = min(delay * 2, 5)
        }
    }

    private func reload(reason: String) {
        guard let engine = state.engine else { return }
        do {
            let before = engine.keywordList().version
            let list = try engine.reloadKeywords()
            guard list.version != before || reason == "SIGHUP" else { return }
            Self.event(["event": "keywords_reloaded", "reason": reason, "count": String(list.keywords.count),
                        "version": list.version])
        } catch {
            Self.event(["event": "keywords_reload_failed", "reason": reason, "error": "\(error)"])
        }
    }

    /// One JSON line on stderr for a lifecycle event.
    public static func event(_ fields: KeyValuePairs<String, String>) {
        var json = JSONWriter()
        json.object { json in
            for (key, value) in fields { json.field(key, string: value) }
        }
        Syscall.writeAll(2, json.bytes + [0x0A])
    }
}

/// What one batch of signals (bytes from the self-pipe) asks for, decided without side effects.
enum SignalBatch: Equatable {
    /// SIGTERM or SIGINT arrived: drain now, whatever else came with it.
    case stop(Int32)
    /// `count` SIGHUPs arrived: reload the keyword list once.
    case reload(count: Int)
    /// Only a wake-up (the loader finished or failed).
    case wake
    case nothing

    init(_ bytes: [UInt8]) {
        if let stop = bytes.first(where: { Int32($0) == SIGTERM || Int32($0) == SIGINT }) {
            self = .stop(Int32(stop))
            return
        }
        let hangups = bytes.filter { Int32($0) == SIGHUP }.count
        if hangups > 0 {
            self = .reload(count: hangups)
        } else {
            self = bytes.isEmpty ? .nothing : .wake
        }
    }
}

/// A failure of the service as a whole (the model could not be loaded).
public struct ServiceError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Set once by the loader thread, read by the watcher.
final class LoadFailure: Sendable {
    private let value = Locked<String?>(nil)
    func set(_ message: String) { value.withLock { $0 = message } }
    var message: String? { value.withLock { $0 } }
}
