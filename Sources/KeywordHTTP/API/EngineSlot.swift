// The application's runtime state: the store and the engine, held while the model loads in the background.
import DecisionMemory
import Locking
import QueueAPI
import SuggestionRuntime
import StoreInterface

/// The application's runtime state, owned in one place: the store of keyword changes and feedback (once
/// opened) and the engine (once loaded), or why loading failed. Handlers, the model loader and the store watcher
/// all reach the store and the engine through it. Loading → ready (with an engine) or failed (with a reason).
/// Thread-safe.
public final class EngineSlot: Sendable {
    public enum Phase: Sendable {
        case loading
        case ready(any SuggestionEngine)
        case failed(String)
    }

    private struct Contents {
        var phase: Phase
        var store: (any KeywordStore)?
        var queue: AnnotationQueue?
        var loadSeconds: Double?
        var lastWriteFailure: String?
        /// What follows the store's model registry, once started.
        var watcher: ModelWatcher?
        /// The decision memory the engines answer from, when the server keeps one.
        var memory: DecisionMemory?
    }
    private let contents: Locked<Contents>

    public init() {
        contents = Locked(Contents(phase: .loading))
    }

    /// An already-ready state (for tests and in-process use).
    public init(engine: any SuggestionEngine, store: (any KeywordStore)? = nil) {
        contents = Locked(Contents(phase: .ready(engine), store: store))
    }

    /// The store of keyword changes and feedback, once opened.
    public var store: (any KeywordStore)? { contents.withLock { $0.store } }

    public func setStore(_ store: any KeywordStore) {
        contents.withLock { $0.store = store }
    }

    /// The annotation queue on the store, once opened.
    public var queue: AnnotationQueue? { contents.withLock { $0.queue } }

    public func setQueue(_ queue: AnnotationQueue) {
        contents.withLock { $0.queue = queue }
    }

    public var current: Phase { contents.withLock { $0.phase } }

    /// The decision memory, when the server keeps one: a stored decision goes in at once.
    public var memory: DecisionMemory? { contents.withLock { $0.memory } }

    public func setMemory(_ memory: DecisionMemory) {
        contents.withLock { $0.memory = memory }
    }

    /// What follows the registry's live version, once started.
    public var watcher: ModelWatcher? { contents.withLock { $0.watcher } }

    public func setWatcher(_ watcher: ModelWatcher) {
        contents.withLock { $0.watcher = watcher }
    }

    /// The engine once ready, else nil.
    public var engine: (any SuggestionEngine)? {
        contents.withLock { contents in
            if case .ready(let engine) = contents.phase { return engine }
            return nil
        }
    }

    public func setReady(_ engine: any SuggestionEngine, loadSeconds seconds: Double? = nil) {
        contents.withLock { contents in
            contents.phase = .ready(engine)
            contents.loadSeconds = seconds
        }
    }

    /// Records why loading failed (the one record of it: /readyz and the runner's exit both read it here).
    public func setFailed(_ reason: String) {
        contents.withLock { $0.phase = .failed(reason) }
    }

    /// Seconds the model took to load, if known.
    public var modelLoadSeconds: Double? { contents.withLock { $0.loadSeconds } }

    /// Why the last write to the store failed (what the client was told, and the log event with the detail), or
    /// nil when the last write succeeded: /readyz reports it, since a store that is reachable but refuses every
    /// write (a full disk, a read-only mount) is not "ok".
    public var lastWriteFailure: String? { contents.withLock { $0.lastWriteFailure } }

    /// Records the outcome of a write: nil for success, else what failed.
    public func noteWrite(failure: String?) {
        contents.withLock { $0.lastWriteFailure = failure }
    }
}
