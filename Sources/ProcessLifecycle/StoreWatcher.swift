// Following the store's changes as a service: reloads when another process or replica changed the list.
import KeywordHTTP
import StoreInterface

/// Watches the store once the model serves (`begin`), reloading the keyword list on every change it reports;
/// on shutdown, after the server has drained, closes the store.
final class StoreWatcher: Service {
    private let state: EngineSlot
    private let reload: @Sendable (String) -> Void
    private let clock: any ServiceClock
    private let stop = StopSignal()

    init(state: EngineSlot, clock: any ServiceClock = SystemServiceClock(), reload: @escaping @Sendable (String) -> Void) {
        self.state = state
        self.clock = clock
        self.reload = reload
    }

    /// Starts watching `store` (called by the model loader once the engine serves).
    func begin(_ store: any KeywordStore) {
        let reload = self.reload
        store.startWatching { reason in reload(reason) }
    }

    func run() throws {
        _ = clock.wait(for: nil, or: stop)
        state.store?.close()
    }

    func shutdown() {
        stop.signal()
    }
}
