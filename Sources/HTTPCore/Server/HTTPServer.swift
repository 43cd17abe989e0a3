// The public face of the server: bind, run the event loops, drain on request.
import Foundation
import Locking
import Sockets

/// An HTTP/1.1 server: `eventLoops` epoll threads serve connections; blocking handlers use a worker pool.
///
/// ```
/// let server = try HTTPServer(configuration: configuration, responder: router)
/// try server.start()          // binds and starts the loops; `boundAddresses` is now known
/// server.shutdown()           // from any thread: stop accepting, drain, let `wait()` return
/// server.wait()
/// ```
public final class HTTPServer: Sendable {
    public let configuration: ServerConfiguration
    public let metrics: ServerMetrics
    private let core: ServerCore
    private let loops: [EventLoop]
    /// The names given to the loop threads (`<threadNamePrefix>-loop-N`).
    private let loopThreadNames: [String]
    private let state = Locked(RunState())
    private let done = DispatchGroup()

    private struct RunState {
        var started = false
        var addresses: [String] = []
    }

    /// - Parameter metrics: where the loops count requests; by default new ones named after
    ///   `configuration.metricsPrefix`. Pass your own (built with the same prefix) to render them yourself.
    public init(configuration: ServerConfiguration, responder: any HTTPResponder, metrics: ServerMetrics? = nil) throws {
        self.configuration = configuration
        let metrics = metrics ?? ServerMetrics(configuration: configuration)
        assert(metrics.prefix == configuration.metricsPrefix,
               "the metrics are named \(metrics.prefix)_…, the configuration says \(configuration.metricsPrefix)_…")
        self.metrics = metrics
        core = ServerCore(configuration: configuration, responder: responder, metrics: metrics)
        var loops: [EventLoop] = []
        for index in 0..<max(1, configuration.eventLoops) {
            loops.append(try EventLoop(index: index, core: core))
        }
        loops[0].peers = loops
        self.loops = loops
        loopThreadNames = loops.map { "\(configuration.threadNamePrefix)-loop-\($0.index)" }
    }

    /// Binds the listening sockets and starts the loop threads. Ignores SIGPIPE for the whole process.
    /// - Returns: the bound URLs, such as `http://127.0.0.1:8080`.
    @discardableResult
    public func start() throws -> [String] {
        Syscall.ignoreSIGPIPE()
        Syscall.raiseOpenFileLimit()
        let listeners = try Listener.bind(host: configuration.host, port: configuration.port, backlog: configuration.backlog)
        do {
            try loops[0].registerListeners(listeners.map(\.fd))
        } catch {
            listeners.forEach { Syscall.close($0.fd) }
            throw error
        }
        let addresses = listeners.map(\.url)
        state.withLock {
            $0.started = true
            $0.addresses = addresses
        }
        for (loop, name) in zip(loops, loopThreadNames) {
            done.enter()
            let thread = Thread { [done] in
                loop.run()
                done.leave()
            }
            thread.name = name
            thread.stackSize = 1 << 20
            thread.start()
        }
        return addresses
    }

    /// Listening URLs (after `start()`).
    public var boundAddresses: [String] { state.withLock { $0.addresses } }

    /// The port actually bound (useful with port 0).
    public var port: Int {
        guard let first = boundAddresses.first, let colon = first.lastIndex(of: ":") else { return 0 }
        return Int(first[first.index(after: colon)...]) ?? 0
    }

    /// Stops accepting and lets in-flight requests finish (within `drainTimeout`). Safe from any thread.
    public func shutdown() {
        for loop in loops { loop.post(.drain) }
    }

    /// Blocks until every loop has drained, then stops the worker lanes.
    public func wait() {
        guard state.withLock({ $0.started }) else { return }
        done.wait()
        for pool in core.pools.values { pool.stop() }
    }

    /// The names the server gives its threads: the loops, then the general lane's workers, then the other lanes'
    /// in the order of their names.
    var threadNames: [String] {
        let others = core.pools.filter { $0.key != .general }.sorted { $0.key.name < $1.key.name }
        return loopThreadNames + core.generalPool.threadNames + others.flatMap(\.value.threadNames)
    }

    /// Bytes of the body budget held right now (see `ServerConfiguration.bodyBudgetBytes`).
    var bodyBytesHeld: Int { core.bodyBytesHeld.load(ordering: .relaxed) }

    /// Serves an already-connected socket (a socketpair end in tests). It counts as one open connection.
    func adopt(_ fd: Int32) {
        let open = core.openConnections.add(1, ordering: .relaxed).newValue
        loops[0].post(.adopt(fd, full: open > core.configuration.maxConnections))
    }

    /// Starts the loops without listening (for tests that only `adopt` sockets).
    func startWithoutListening() {
        state.withLock { $0.started = true }
        for loop in loops {
            done.enter()
            let thread = Thread { [done] in
                loop.run()
                done.leave()
            }
            thread.start()
        }
    }
}
