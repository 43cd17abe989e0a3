// Following the team's evidence as a service: the auto-accept rule rebuilt from the store every few seconds,
// on its own thread, so enqueues and /metrics read a ready rule and never wait on the store for it.
import Dispatch
import EventLog
import KeywordHTTP
import Locking
import QueueAPI

/// Rebuilds the queue's auto-accept rule from the store's evidence for the serving model every
/// `refreshSeconds` (2 s by default: a decision on any replica reaches every replica's rule within that plus
/// the store's own delay). A failed read keeps the last rule and is logged once until a read succeeds.
final class TrustService: Service {
    private let state: EngineSlot
    private let stop = DispatchSemaphore(value: 0)
    private let failing = Locked(false)

    init(state: EngineSlot) {
        self.state = state
    }

    func run() throws {
        while true {
            let seconds = state.queue?.trust.configuration.refreshSeconds ?? 1
            if stop.wait(timeout: .now() + seconds) == .success { return }
            refresh()
        }
    }

    /// One refresh, when the queue and the engine are there.
    func refresh() {
        guard let queue = state.queue, let engine = state.engine else { return }
        do {
            try queue.refreshTrust(engine: engine, feedbackStore: state.store)
            failing.withLock { $0 = false }
        } catch {
            let first = failing.withLock { was in defer { was = true }; return !was }
            if first { EventLog.record(.warning, "auto_accept_refresh_failed", ["error": "\(error)"]) }
        }
    }

    func shutdown() {
        stop.signal()
    }
}
