// Holds the engine while it loads in the background, so the server can listen before the model is ready.
import HTTPCore
import KeywordService
import Locking
import StrictJSON

/// Loading → ready (with an engine) or failed (with a reason). Thread-safe.
public final class EngineState: Sendable {
    public enum Phase: Sendable {
        case loading
        case ready(any SuggestionEngine)
        case failed(String)
    }

    private let phase: Locked<Phase>
    private let loadSeconds = Locked<Double?>(nil)
    private let openStore = Locked<(any KeywordStore)?>(nil)
    private let openQueue = Locked<AnnotationQueue?>(nil)

    public init() {
        phase = Locked(.loading)
    }

    /// An already-ready state (for tests and in-process use).
    public init(engine: any SuggestionEngine, store: (any KeywordStore)? = nil) {
        phase = Locked(.ready(engine))
        openStore.withLock { $0 = store }
    }

    /// The store of keyword changes and feedback, once opened.
    public var store: (any KeywordStore)? { openStore.withLock { $0 } }

    public func setStore(_ store: any KeywordStore) {
        openStore.withLock { $0 = store }
    }

    /// The annotation queue on the store, once opened.
    public var queue: AnnotationQueue? { openQueue.withLock { $0 } }

    public func setQueue(_ queue: AnnotationQueue) {
        openQueue.withLock { $0 = queue }
    }

    public var current: Phase { phase.withLock { $0 } }

    /// The engine once ready, else nil.
    public var engine: (any SuggestionEngine)? {
        phase.withLock { phase in
            if case .ready(let engine) = phase { return engine }
            return nil
        }
    }

    public func setReady(_ engine: any SuggestionEngine, loadSeconds seconds: Double? = nil) {
        phase.withLock { $0 = .ready(engine) }
        loadSeconds.withLock { $0 = seconds }
    }

    public func setFailed(_ reason: String) {
        phase.withLock { $0 = .failed(reason) }
    }

    /// Seconds the model took to load, if known.
    public var modelLoadSeconds: Double? { loadSeconds.withLock { $0 } }
}
