// Opening the store and loading the model as a service, in the background while the server already listens.
import EventLog
import Foundation
import KeywordHTTP
import QueueAPI
import SuggestionRuntime
import StoreInterface
import StoreOpening
import TeamQueue

/// Opens the store (retrying while a database cannot be reached yet), loads the engine on it and hands both to
/// the application state; then starts the store watcher. A failure is recorded once, in the state (so /readyz
/// answers 503), and thrown, which stops the group.
final class ModelLoader: Service {
    private let location: StoreLocation
    private let queuePolicy: QueuePolicy
    private let autoAccept: AutoAcceptConfiguration
    private let state: EngineSlot
    private let loader: @Sendable (any KeywordStore) throws -> any SuggestionEngine
    private let loaded: @Sendable (any KeywordStore) -> Void
    private let open: @Sendable () throws(KeywordStoreError) -> any KeywordStore
    private let clock: any ServiceClock
    private let stop = StopSignal()

    /// The longest wait between two tries of a store that cannot be reached, in seconds.
    static let longestRetryDelay = 5.0

    /// - Parameters:
    ///   - loaded: called with the store once the engine serves (the watcher starts there).
    ///   - open: opens the store (`location.open()` unless a test gives another way).
    ///   - clock: what the backoff between tries waits on.
    init(location: StoreLocation, queuePolicy: QueuePolicy, autoAccept: AutoAcceptConfiguration = AutoAcceptConfiguration(),
         state: EngineSlot,
         loader: @escaping @Sendable (any KeywordStore) throws -> any SuggestionEngine,
         loaded: @escaping @Sendable (any KeywordStore) -> Void,
         open: (@Sendable () throws(KeywordStoreError) -> any KeywordStore)? = nil,
         clock: any ServiceClock = SystemServiceClock()) {
        self.location = location
        self.queuePolicy = queuePolicy
        self.autoAccept = autoAccept
        self.state = state
        self.loader = loader
        self.loaded = loaded
        if let open {
            self.open = open
        } else {
            self.open = Self.opening(location)
        }
        self.clock = clock
    }

    func run() throws {
        let started = clock.nanoseconds()
        do {
            let store: any KeywordStore
            do {
                guard let opened = try openStore() else { return }
                store = opened
            } catch {
                throw ServiceError(message: "cannot open the store \(location.displayName): \(error)")
            }
            state.setStore(store)
            do {
                state.setQueue(AnnotationQueue(store: try location.openQueue(feedbackStore: store, policy: queuePolicy),
                                               autoAccept: autoAccept))
            } catch {
                throw ServiceError(message: "cannot open the annotation queue in \(location.displayName): \(error)")
            }
            let engine = try loader(store)
            let seconds = Double(clock.nanoseconds() - started) / 1e9
            state.setReady(engine, loadSeconds: seconds)
            // The model's own `model_loaded` (with its source) comes from whatever loaded it; this is the moment
            // /readyz turns ready, with the store it serves.
            EventLog.record(.info, "ready", ["model": engine.modelVersion,
                                             "load_ms": String(format: "%.1f", seconds * 1000),
                                             "store": store.displayName])
            loaded(store)
        } catch {
            let message = (error as? ServiceError)?.message ?? "cannot load the model: \(error)"
            state.setFailed(message)
            throw ServiceError(message: message)
        }
    }

    /// Opening the store `location` names.
    private static func opening(_ location: StoreLocation) -> @Sendable () throws(KeywordStoreError) -> any KeywordStore {
        { () throws(KeywordStoreError) -> any KeywordStore in try location.open() }
    }

    /// Stops retrying the store; a model being read finishes first.
    func shutdown() {
        stop.signal()
    }

    /// Opens the store; a database that cannot be reached yet is retried with backoff (up to 5 s apart) while
    /// /readyz answers 503, since a replica cannot serve the list before it has read it once. nil when the
    /// service was shut down while waiting.
    private func openStore() throws(KeywordStoreError) -> (any KeywordStore)? {
        var delay = 0.1
        while !stop.isSignalled {
            let failure: KeywordStoreError
            do {
                return try open()
            } catch {
                failure = error
            }
            guard case .unavailable(let message) = failure else { throw failure }
            EventLog.record(.warning, "store_unavailable", ["store": location.displayName, "error": message,
                                                            "retry_in_s": String(format: "%.1f", delay)])
            // A shutdown ends the wait at once.
            if clock.wait(for: delay, or: stop) { return nil }
            delay = min(delay * 2, Self.longestRetryDelay)
        }
        return nil
    }
}
