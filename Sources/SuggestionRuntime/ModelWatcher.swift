// Follows the registry's head: loads the live version (or the --model fallback) beside the served one, and
// swaps it in only once it loaded; a shadow version is loaded the same way.
import Dispatch
import EventLog
import Foundation
import Locking
import ModelVersions
import Platform
import StoreInterface

/// Which model a serve serves, and how the last attempt to change it went.
public struct ModelStatus: Sendable, Equatable {
    public enum Source: String, Sendable {
        /// The registry's live version.
        case registry
        /// The `--model` directory: no version is live (or the live one has not loaded yet).
        case fallback
    }

    /// A load that failed; the served model stayed.
    public struct Failure: Sendable, Equatable {
        public var version: String
        public var message: String
    }

    public var version: String?
    public var source: Source = .fallback
    public var failure: Failure?
    public var swaps = 0
    public var failures = 0
    public var shadow: String?
    public var shadowFraction: Double = 0
    /// Why the registry could not be read at the last look (nil once it reads again): the model served may then
    /// not be the live version, so replicas may serve two models until it is repaired.
    public var registryFailure: String?
    /// Reads of the registry that failed.
    public var registryFailures = 0
    /// The shadow version that failed to load, until a shadow loads or the shadow is ended.
    public var shadowFailure: Failure?
    /// Shadow versions that failed to load.
    public var shadowFailures = 0
}

/// What the watcher may want served: a version of the registry, or the fallback directory.
enum ModelTarget: Equatable {
    case registry(String)
    case fallback

    var name: String {
        switch self {
        case .registry(let version): return version
        case .fallback: return "--model"
        }
    }
}

/// The service that keeps a serve on the registry's live version. Changes of the head are checked one at a time
/// on its own queue; a version that failed to load is tried again after `retryInterval` or when the head changes.
public final class ModelWatcher: Sendable {
    /// Builds an engine from a model directory on the serve's store (checking the files' SHA-256).
    public typealias Loader = @Sendable (_ directory: String, _ store: any KeywordStore) throws -> any SuggestionEngine

    private let registry: any ModelRegistry
    private let store: any KeywordStore
    private let fallback: String
    private let load: Loader
    private let install: @Sendable (any SuggestionEngine) -> Void
    /// The candidate in shadow, scored beside the served model.
    public let shadow: ShadowScorer
    private let log: @Sendable (LogEvent) -> Void
    private let queue = DispatchQueue(label: "kwsuggest-model-watcher")
    private let retryInterval: Double

    private struct State {
        var status = ModelStatus()
        var served: ModelTarget?
        var failed: (target: ModelTarget, revision: Int64, at: Date)?
        var shadow: String?
        var shadowFailed: (version: String, revision: Int64)?
    }
    private let state = Locked(State())

    /// - Parameters:
    ///   - install: makes an engine the served one (in-flight requests keep the one they started with).
    ///   - log: one lifecycle event (`EventLog.record` in `serve`).
    public init(registry: any ModelRegistry, store: any KeywordStore, fallback: String, retryInterval: Double = 30,
                load: @escaping Loader, install: @escaping @Sendable (any SuggestionEngine) -> Void,
                shadow: ShadowScorer = ShadowScorer(),
                log: @escaping @Sendable (LogEvent) -> Void) {
        self.registry = registry
        self.store = store
        self.fallback = fallback
        self.retryInterval = retryInterval
        self.load = load
        self.install = install
        self.shadow = shadow
        self.log = log
    }

    public var status: ModelStatus { state.withLock { $0.status } }

    /// Loads the first model: the live version, or the fallback when none is live or the live one fails
    /// (then it is tried again later). Throws only when the fallback fails too.
    public func start() throws {
        let head = (try? readCatalog(reason: "start"))?.head ?? RegistryHead()
        let wanted: ModelTarget = head.live.map { .registry($0) } ?? .fallback
        do {
            try swap(to: wanted, revision: head.revision, reason: "start")
        } catch {
            guard wanted != .fallback else { throw error }
            try swap(to: .fallback, revision: head.revision, reason: "start, the live version did not load", keepFailure: true)
        }
        updateShadow(head)
        registry.startWatching { [self] reason in queue.async { self.check(reason: reason) } }
    }

    /// Compares the head with what is served and changes what differs (on the watcher's queue).
    public func check(reason: String) {
        guard let catalog = try? readCatalog(reason: reason) else { return }
        let head = catalog.head
        let wanted: ModelTarget = head.live.map { .registry($0) } ?? .fallback
        let skip = state.withLock { state -> Bool in
            if state.served == wanted { return true }
            guard let failed = state.failed, failed.target == wanted, failed.revision == head.revision else { return false }
            return Date().timeIntervalSince(failed.at) < retryInterval
        }
        // The log says whether the promotion skipped the gate (`model promote --force`).
        let gate = head.live.flatMap { catalog.model($0)?.gate }.map { $0.contains("\"forced\":true") ? "forced" : "passed" }
        if !skip { try? swap(to: wanted, revision: head.revision, reason: reason, gate: gate) }
        updateShadow(head)
        // The newest pushed version is the likely next promotion: have its files ready.
        if let newest = catalog.models.last?.version, newest != head.live, newest != head.shadow {
            try? registry.prefetch(newest)
        }
    }

    /// The registry's catalog; a failure to read it is recorded for /readyz and /metrics (and logged), and cleared by
    /// the next read that succeeds.
    private func readCatalog(reason: String) throws -> RegistryCatalog {
        do {
            let catalog = try registry.catalog()
            state.withLock { $0.status.registryFailure = nil }
            return catalog
        } catch {
            state.withLock {
                $0.status.registryFailure = "\(error)"
                $0.status.registryFailures += 1
            }
            log(LogEvent(.error, "model_registry_unreadable", ["reason": reason, "error": "\(error)"]))
            throw error
        }
    }

    /// Loads `target` beside the served model and installs it; a failure leaves the served one and is recorded.
    /// `keepFailure`: installing the fallback because the wanted version failed keeps that failure reported.
    private func swap(to target: ModelTarget, revision: Int64, reason: String, keepFailure: Bool = false,
                      gate: String? = nil) throws {
        let started = Date()
        let engine: any SuggestionEngine
        do {
            engine = try load(try directory(target), store)
            if case .registry(let version) = target, engine.modelVersion != version {
                throw KeywordStoreError.failed("the files of \(version) hold model_version \(engine.modelVersion)")
            }
        } catch {
            let previous = state.withLock { state -> String? in
                state.failed = (target, revision, Date())
                state.status.failures += 1
                state.status.failure = ModelStatus.Failure(version: target.name, message: "\(error)")
                return state.status.version
            }
            log(LogEvent(.error, "model_load_failed", ["version": target.name, "reason": reason, "error": "\(error)",
                                                      "serving": previous ?? "nothing yet"]))
            throw error
        }
        // The head may have moved on while this one loaded (a rollback right after a promotion): then the next
        // check loads what it names instead.
        if !keepFailure, let head = try? registry.catalog().head, (head.live.map { ModelTarget.registry($0) } ?? .fallback) != target {
            log(LogEvent(.info, "model_load_superseded", ["version": target.name, "reason": reason]))
            return
        }
        // A keyword change stored while the new engine loaded was announced to the old one.
        _ = try? engine.reloadKeywords()
        // The status changes with the engine, so /readyz never pairs the new model with the old source.
        let old = state.withLock { state -> String? in
            install(engine)
            let old = state.status.version
            state.served = target
            state.status.version = engine.modelVersion
            state.status.source = target == .fallback ? .fallback : .registry
            if !keepFailure {
                state.failed = nil
                state.status.failure = nil
            }
            state.status.swaps += 1
            return old
        }
        // And one stored between that reload and the swap (a no-op when there was none).
        _ = try? engine.reloadKeywords()
        if old != nil { releaseDroppedModel() }
        log(LogEvent(.info, old == nil ? "model_loaded" : "model_swapped", [
            "model": engine.modelVersion,
            "source": target == .fallback ? "fallback \(fallback)" : "registry \(registry.displayName)",
            "previous": old ?? "", "reason": reason, "gate": gate ?? "none",
            "load_ms": String(format: "%.1f", Date().timeIntervalSince(started) * 1000),
        ]))
    }

    /// Loads, replaces or ends the shadow as the head says.
    private func updateShadow(_ head: RegistryHead) {
        let (current, failed) = state.withLock { ($0.shadow, $0.shadowFailed) }
        if head.shadow == current {
            shadow.setFraction(head.shadowFraction)
            state.withLock {
                $0.status.shadowFraction = head.shadow == nil ? 0 : head.shadowFraction
                // No shadow wanted any more: a failure to load one is over too.
                if head.shadow == nil {
                    $0.shadowFailed = nil
                    $0.status.shadowFailure = nil
                }
            }
            return
        }
        guard let version = head.shadow else {
            shadow.set(nil, fraction: 0)
            state.withLock {
                $0.shadow = nil
                $0.shadowFailed = nil
                $0.status.shadow = nil
                $0.status.shadowFraction = 0
                $0.status.shadowFailure = nil
            }
            log(LogEvent(.info, "shadow_off"))
            releaseDroppedModel()
            return
        }
        if let failed, failed.version == version, failed.revision == head.revision { return }
        do {
            let engine = try load(try registry.directory(of: version), store)
            shadow.set(engine, fraction: head.shadowFraction)
            state.withLock {
                $0.shadow = version
                $0.status.shadow = version
                $0.status.shadowFraction = head.shadowFraction
                $0.status.shadowFailure = nil
            }
            log(LogEvent(.info, "shadow_started", ["model": version, "fraction": "\(head.shadowFraction)"]))
        } catch {
            state.withLock {
                $0.shadowFailed = (version, head.revision)
                $0.status.shadowFailure = ModelStatus.Failure(version: version, message: "\(error)")
                $0.status.shadowFailures += 1
            }
            log(LogEvent(.error, "shadow_load_failed", ["version": version, "error": "\(error)"]))
        }
    }

    /// Gives the memory of a model that was replaced back to the system: now, and again once the requests that
    /// still held it (at most the drain time of a request) have let it go.
    private func releaseDroppedModel() {
        MemoryRelease.returnFreedMemory()
        queue.asyncAfter(deadline: .now() + 10) { MemoryRelease.returnFreedMemory() }
    }

    private func directory(_ target: ModelTarget) throws -> String {
        switch target {
        case .registry(let version): return try registry.directory(of: version)
        case .fallback: return fallback
        }
    }

    public func shutdown() {
        registry.close()
        shadow.stop()
    }
}
