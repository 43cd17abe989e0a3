// Following the store's decisions as a service: every replica's decision memory reads new decisions and undos
// within a second of their being stored.
import DecisionMemory
import EventLog
import KeywordHTTP
import Locking

/// Reads the store's new feedback records and withdrawn queue decisions into the memory every `interval` once
/// the model serves, until shutdown. A failed read is logged once until a read succeeds again.
final class MemoryFollower: Service {
    private let state: EngineSlot
    private let memory: DecisionMemory
    /// Seconds between two reads.
    private let interval: Double
    private let clock: any ServiceClock
    private let stop = StopSignal()
    private let failing = Locked(false)

    init(state: EngineSlot, memory: DecisionMemory, interval: Double = 1, clock: any ServiceClock = SystemServiceClock()) {
        self.state = state
        self.memory = memory
        self.interval = interval
        self.clock = clock
    }

    func run() throws {
        while !clock.wait(for: interval, or: stop) {
            poll()
        }
    }

    func shutdown() {
        stop.signal()
    }

    /// One round: reads what is new, when the store is open and the model serves.
    func poll() {
        guard state.engine != nil, let store = state.store else { return }
        do {
            let before = memory.count
            let read = try memory.catchUp(store: store, queue: state.queue?.store)
            if failing.withLock({ $0 }) || (read > 0 && before == 0) {
                EventLog.record(.info, "memory_followed", ["records": String(read), "names": String(memory.count)])
            }
            failing.withLock { $0 = false }
        } catch {
            let first = failing.withLock { failing in
                defer { failing = true }
                return !failing
            }
            if first { EventLog.record(.warning, "memory_follow_failed", ["error": "\(error)"]) }
        }
    }
}
