// Runs the whole service: listen first, load the model in the background, watch the overlay file,
// reload on SIGHUP, drain on SIGTERM/SIGINT.
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
    /// The overlay file watched for changes by other replicas (nil: no watching).
    public var overlayPath: String?
    /// How often the overlay file's modification time is checked. Default 2 s.
    public var watchInterval: Double = 2
    /// Serve keyword writes without a token on an address other hosts can reach (see `WritePolicy`).
    public var allowOpenWrites = false
    public init() {}
}

/// Owns the server, the engine state and the signal handling of one `serve` process.
public final class ServiceRunner: Sendable {
    public let options: ServiceOptions
    public let state = EngineState()
    private let loader: @Sendable () throws -> any SuggestionEngine
    private let announce: @Sendable (String) -> Void

    /// - Parameters:
    ///   - loader: loads the engine; runs on a background thread after the server is listening.
    ///   - announce: receives `listening on http://…` lines (stdout in the CLI).
    public init(options: ServiceOptions, loader: @escaping @Sendable () throws -> any SuggestionEngine,
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

        let metrics = ServerMetrics(shards: options.server.eventLoops)
        let api = KeywordAPI(configuration: options.api, state: state, metrics: metrics)
        let server = try HTTPServer(configuration: options.server, responder: api, metrics: metrics)
        for address in try server.start() { announce("listening on \(address)") }

        let loadFailure = LoadFailure()
        let state = self.state, loader = self.loader
        let loading = Thread {
            let started = Syscall.monotonicNanoseconds()
            do {
                let engine = try loader()
                let seconds = Double(Syscall.monotonicNanoseconds() - started) / 1e9
                state.setReady(engine, loadSeconds: seconds)
                Self.event(["event": "model_loaded", "model": engine.modelVersion,
                            "load_ms": String(format: "%.1f", seconds * 1000)])
            } catch {
                state.setFailed("\(error)")
                loadFailure.set("\(error)")
                Syscall.eventlessWake(signalWrite)
            }
        }
        loading.name = "kwsuggest-model-loader"
        loading.start()

        let store = options.overlayPath.map { KeywordOverlayStore(path: $0) }
        var lastModified = store?.modificationTime()
        var nextCheck = Syscall.monotonicNanoseconds() + UInt64(options.watchInterval * 1e9)
        watch: while true {
            let now = Syscall.monotonicNanoseconds()
            let waitMs = Int32(clamping: nextCheck > now ? (nextCheck - now) / 1_000_000 + 1 : 0)
            if Syscall.waitReadable(signalRead, milliseconds: waitMs) {
                while let byte = Syscall.readByte(signalRead) {
                    switch Int32(byte) {
                    case SIGTERM, SIGINT:
                        Self.event(["event": "draining", "signal": byte == UInt8(SIGTERM) ? "SIGTERM" : "SIGINT"])
                        break watch
                    case SIGHUP:
                        reload(reason: "SIGHUP")
                    default:
                        if loadFailure.message != nil { break watch }
                    }
                }
            }
            if Syscall.monotonicNanoseconds() >= nextCheck {
                nextCheck = Syscall.monotonicNanoseconds() + UInt64(options.watchInterval * 1e9)
                if let store {
                    let modified = store.modificationTime()
                    if modified?.sec != lastModified?.sec || modified?.nsec != lastModified?.nsec {
                        lastModified = modified
                        reload(reason: "overlay file changed")
                    }
                }
            }
        }
        server.shutdown()
        server.wait()
        Self.event(["event": "stopped"])
        if let message = loadFailure.message {
            throw ServiceError(message: "cannot load the model: \(message)")
        }
    }

    private func reload(reason: String) {
        guard let engine = state.engine else { return }
        do {
            let list = try engine.reloadKeywords()
            Self.event(["event": "keywords_reloaded", "reason": reason, "count": String(list.keywords.count),
                        "version": list.version])
        } catch {
            Self.event(["event": "keywords_reload_failed", "reason": reason, "error": "\(error)"])
        }
    }

    /// One JSON line on stderr for a lifecycle event.
    static func event(_ fields: KeyValuePairs<String, String>) {
        var json = JSONWriter()
        json.object { json in
            for (key, value) in fields { json.field(key, string: value) }
        }
        Syscall.writeAll(2, json.bytes + [0x0A])
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
