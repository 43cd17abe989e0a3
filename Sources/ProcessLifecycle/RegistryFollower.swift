// Following the store's model registry as a service: the live version is served (the --model directory while
// none is live), promotions are swapped in while the server runs, and a candidate in shadow is loaded beside it.
import EventLog
import KeywordHTTP
import SuggestionRuntime
import StoreInterface
import StoreOpening

/// Loads the first model through a `ModelWatcher` (the model loader calls `load` on the opened store), then lets
/// it follow the registry until shutdown.
final class RegistryFollower: Service {
    private let state: EngineSlot
    private let fallback: String
    private let loadModel: ModelWatcher.Loader
    private let clock: any ServiceClock
    private let stop = StopSignal()

    init(state: EngineSlot, fallback: String, clock: any ServiceClock = SystemServiceClock(),
         load: @escaping ModelWatcher.Loader) {
        self.state = state
        self.fallback = fallback
        self.clock = clock
        self.loadModel = load
    }

    /// Opens the registry of `location`, installs the live version (or the fallback) and starts watching;
    /// returns the engine it installed.
    func load(store: any KeywordStore, location: StoreLocation) throws -> any SuggestionEngine {
        let state = self.state
        let watcher = ModelWatcher(registry: try location.openRegistry(), store: store, fallback: fallback, load: loadModel,
                                   install: { engine in state.setReady(engine) },
                                   log: { event in EventLog.record(event) })
        state.setWatcher(watcher)
        try watcher.start()
        guard let engine = state.engine else { throw ServiceError(message: "no model was installed") }
        return engine
    }

    func run() throws {
        _ = clock.wait(for: nil, or: stop)
        state.watcher?.shutdown()
    }

    func shutdown() {
        stop.signal()
    }
}
