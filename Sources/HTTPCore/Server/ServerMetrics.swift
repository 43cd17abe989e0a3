// Request counters and a latency histogram, sharded per event loop so recording never contends.
import Locking
import Synchronization

/// Counts requests by route, method and status, and records their latency.
///
/// Each event loop records into its own shard (an uncontended lock); `render()` sums the shards.
public final class ServerMetrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                  0.1, 0.25, 0.5, 1, 2.5]

    struct Key: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    struct Shard {
        var requests: [Key: Int] = [:]
        var buckets = [Int](repeating: 0, count: ServerMetrics.latencyBuckets.count + 1)
        var latencySum: Double = 0
        /// Time complete requests waited on their loop (from the loop's wake-up to the handler's start).
        var queueBuckets = [Int](repeating: 0, count: ServerMetrics.latencyBuckets.count + 1)
        var queueSum: Double = 0
    }

    final class Box: Sendable {
        let state = Locked(Shard())
    }

    /// What every metric name starts with (`ServerConfiguration.metricsPrefix`).
    public let prefix: String
    private let shards: [Box]
    private let inFlight = Atomic<Int>(0)
    private let openConnections = Atomic<Int>(0)
    private let rejectedConnections = Atomic<Int>(0)
    private let evictedConnections = Atomic<Int>(0)
    private let abandonedRequests = Atomic<Int>(0)

    /// - Parameters:
    ///   - shards: one per event loop, so loops never contend.
    ///   - prefix: what every metric name starts with, joined by `_` (`http` → `http_requests_total`).
    public init(shards: Int = 1, prefix: String = "http") {
        precondition(Self.isValidPrefix(prefix), "a metric name prefix is letters, digits, _ and :, not starting with a digit: \(prefix)")
        self.prefix = prefix
        self.shards = (0..<max(1, shards)).map { _ in Box() }
    }

    /// Metrics for a server with `configuration`: a shard per event loop, named with its `metricsPrefix`.
    public convenience init(configuration: ServerConfiguration) {
        self.init(shards: configuration.eventLoops, prefix: configuration.metricsPrefix)
    }

    /// A Prometheus metric name may start with it: `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    static func isValidPrefix(_ prefix: String) -> Bool {
        guard let first = prefix.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return prefix.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
        }
    }

    var shardCount: Int { shards.count }

    /// Methods counted under their own name; any other token a client sends is counted as `OTHER`, so clients
    /// cannot create labels.
    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT",
                                            "TRACE", "-"]
    /// Distinct route/method/status series per shard. Routes are templates and statuses a fixed set, so this is
    /// never reached in practice; past it, new series are counted under route `(other)`, so memory and the
    /// `/metrics` size stay bounded whatever a responder labels.
    static let maxSeriesPerShard = 512

    func record(shard: Int, route: String, method: String, status: Int, seconds: Double) {
        let bucket = Self.latencyBuckets.firstIndex { seconds <= $0 } ?? Self.latencyBuckets.count
        let methodLabel = Self.knownMethods.contains(method) ? method : "OTHER"
        let statusLabel = (100...599).contains(status) ? status : 0
        shards[shard % shards.count].state.withLock { state in
            var key = Key(route: route, method: methodLabel, status: statusLabel)
            if state.requests[key] == nil && state.requests.count >= Self.maxSeriesPerShard {
                key = Key(route: "(other)", method: "OTHER", status: 0)
            }
            state.requests[key, default: 0] += 1
            state.buckets[bucket] += 1
            state.latencySum += seconds
        }
    }

    /// Records how long a complete request waited on its event loop before its handler started.
    func recordQueueWait(shard: Int, seconds: Double) {
        let bucket = Self.latencyBuckets.firstIndex { seconds <= $0 } ?? Self.latencyBuckets.count
        shards[shard % shards.count].state.withLock { state in
            state.queueBuckets[bucket] += 1
            state.queueSum += seconds
        }
    }

    func requestStarted() { inFlight.add(1, ordering: .relaxed) }
    func requestFinished() { inFlight.subtract(1, ordering: .relaxed) }
    func connectionOpened() { openConnections.add(1, ordering: .relaxed) }
    func connectionClosed() { openConnections.subtract(1, ordering: .relaxed) }
    func connectionRejected() { rejectedConnections.add(1, ordering: .relaxed) }
    func connectionEvicted() { evictedConnections.add(1, ordering: .relaxed) }
    func requestAbandoned() { abandonedRequests.add(1, ordering: .relaxed) }

    /// Requests not run because their client had gone before a worker took them.
    public var requestsAbandoned: Int { abandonedRequests.load(ordering: .relaxed) }

    /// Requests being handled right now.
    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }
    /// Connections open right now.
    public var connections: Int { openConnections.load(ordering: .relaxed) }

    /// Total requests counted for `route` with `status` (all methods).
    public func count(route: String, status: Int) -> Int {
        shards.reduce(0) { total, box in
            total + box.state.withLock { state in
                state.requests.filter { $0.key.route == route && $0.key.status == status }.values.reduce(0, +)
            }
        }
    }

    /// Prometheus text exposition (version 0.0.4) of every server metric.
    /// - Complexity: O(shards × distinct route/method/status combinations).
    public func render() -> String {
        var text = PrometheusText()
        render(into: &text)
        return text.text
    }

    /// Writes every server metric's family into `text`.
    public func render(into text: inout PrometheusText) {
        var requests: [Key: Int] = [:]
        var buckets = [Int](repeating: 0, count: Self.latencyBuckets.count + 1)
        var sum: Double = 0
        var queueBuckets = [Int](repeating: 0, count: Self.latencyBuckets.count + 1)
        var queueSum: Double = 0
        for box in shards {
            box.state.withLock { state in
                requests.merge(state.requests, uniquingKeysWith: +)
                for index in buckets.indices { buckets[index] += state.buckets[index] }
                for index in queueBuckets.indices { queueBuckets[index] += state.queueBuckets[index] }
                queueSum += state.queueSum
                sum += state.latencySum
            }
        }
        let requestsTotal = prefix + "_requests_total"
        text.family(requestsTotal, .counter, help: "HTTP requests answered, by route, method and status.")
        let sortedKeys = requests.keys.sorted { ($0.route, $0.method, $0.status) < ($1.route, $1.method, $1.status) }
        for key in sortedKeys {
            text.sample(requestsTotal, labels: ["route": key.route, "method": key.method, "status": String(key.status)],
                        requests[key] ?? 0)
        }
        text.histogram(prefix + "_request_duration_seconds", help: "Time from a complete request to its serialised response.",
                       bounds: Self.latencyBuckets, counts: buckets, sum: sum)
        text.histogram(prefix + "_request_queue_seconds",
                       help: "Time a complete request waited on its event loop (behind the other ready connections) before its handler started.",
                       bounds: Self.latencyBuckets, counts: queueBuckets, sum: queueSum)
        text.single(prefix + "_requests_in_flight", .gauge, help: "Requests being handled.", requestsInFlight)
        text.single(prefix + "_connections_open", .gauge, help: "Open client connections.", connections)
        text.single(prefix + "_connections_rejected_total", .counter,
                    help: "Connections refused with 503 because the server was full.",
                    rejectedConnections.load(ordering: .relaxed))
        text.single(prefix + "_connections_evicted_total", .counter,
                    help: "Idle connections closed to make room for a new one while the server was full.",
                    evictedConnections.load(ordering: .relaxed))
        text.single(prefix + "_requests_abandoned_total", .counter,
                    help: "Requests not run because their client closed the connection while they waited for a worker.",
                    requestsAbandoned)
    }
}
