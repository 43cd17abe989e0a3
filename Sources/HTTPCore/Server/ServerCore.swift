// What every event loop of one server shares: the configuration, the responder, the metrics, the worker
// lanes, the connection and request counters, and the server-wide body budget. Immutable or atomic, so any
// loop or worker may touch it without a lock.
import Synchronization

/// State every loop shares with the server.
final class ServerCore: Sendable {
    let configuration: ServerConfiguration
    let responder: any HTTPResponder
    let metrics: ServerMetrics
    /// A pool per lane, the general lane's always among them.
    let pools: [WorkLane: WorkerPool]
    let generalPool: WorkerPool
    /// The pool that produces streamed bodies.
    let streamPool: WorkerPool
    let openConnections = Atomic<Int>(0)
    let nextConnectionID = Atomic<UInt64>(1)
    let nextRequestID = Atomic<UInt64>(1)
    let requestIDPrefix: String
    /// Bytes of large request bodies held right now (see `ServerConfiguration.bodyBudgetBytes`).
    let bodyBytesHeld = Atomic<Int>(0)

    /// The pool that runs jobs of `lane`.
    func pool(for lane: WorkLane) -> WorkerPool {
        pools[lane] ?? generalPool
    }

    init(configuration: ServerConfiguration, responder: any HTTPResponder, metrics: ServerMetrics) {
        self.configuration = configuration
        self.responder = responder
        self.metrics = metrics
        var lanes = configuration.lanes
        if lanes[.general] == nil { lanes[.general] = 1 }
        var pools: [WorkLane: WorkerPool] = [:]
        for (lane, workers) in lanes {
            pools[lane] = WorkerPool(count: workers, name: configuration.threadNamePrefix + "-" + lane.name)
        }
        self.pools = pools
        generalPool = pools[.general] ?? WorkerPool(count: 1, name: configuration.threadNamePrefix + "-worker")
        streamPool = pools[configuration.streamLane] ?? generalPool
        let random = UInt32.random(in: 0...UInt32.max)
        requestIDPrefix = String(random, radix: 16)
    }

    /// Takes `bytes` more of the body budget for a body that holds `own` already: always when nothing else is
    /// held (so a body larger than the budget can still be served alone), else only when it fits.
    func reserveBody(_ bytes: Int, holding own: Int = 0) -> Bool {
        var held = bodyBytesHeld.load(ordering: .relaxed)
        while true {
            if held > own && held + bytes > configuration.bodyBudgetBytes { return false }
            let (exchanged, original) = bodyBytesHeld.compareExchange(expected: held, desired: held + bytes, ordering: .relaxed)
            if exchanged { return true }
            held = original
        }
    }

    func releaseBody(_ bytes: Int) {
        if bytes > 0 { bodyBytesHeld.subtract(bytes, ordering: .relaxed) }
    }

    func makeRequestID() -> String {
        let number = nextRequestID.add(1, ordering: .relaxed).newValue
        return requestIDPrefix + "-" + String(number, radix: 16)
    }
}
