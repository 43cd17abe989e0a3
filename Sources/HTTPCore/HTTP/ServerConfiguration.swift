// Every server setting in one place, with the documented defaults.
import Sockets

/// Limits the request parser enforces (RFC 9112 leaves all of them to the server).
public struct HTTPLimits: Sendable, Equatable {
    /// Request line plus header fields, in bytes. Larger → 431. Default 32 KiB: room for the longest target
    /// plus ordinary headers.
    public var maxHeaderBytes: Int = 32 * 1024
    /// Request target, in bytes. Longer → 414. Default 16 KiB: a query parameter of 1000 code points takes at most
    /// 12,000 bytes percent-encoded, so an application's length limits in characters stay the binding ones.
    public var maxURIBytes: Int = 16 * 1024
    /// Number of header fields. More → 431.
    public var maxHeaderCount: Int = 100
    /// Decoded body, in bytes. Larger → 413.
    public var maxBodyBytes: Int = 1024 * 1024
    /// Chunk extension on one chunk-size line (RFC 9112 §7.1.1), in bytes. Longer → 400.
    public var maxChunkExtensionBytes: Int = 256
    /// Chunked framing (size lines, extensions, CRLFs, trailers) beyond the decoded body, in bytes: the raw body may
    /// be at most `maxChunkFramingBytes` plus twice the decoded bytes, so a connection never buffers more than
    /// about two maximal bodies however the chunks are cut. More → 413.
    public var maxChunkFramingBytes: Int = 64 * 1024

    public init() {}
}

/// Which requests the access log records.
public enum AccessLogMode: String, Sendable, CaseIterable {
    /// Every request.
    case on
    /// None.
    case off
    /// Only answers with status 400 or more (client and server errors, timeouts, refusals).
    case errors
}

/// How the server listens, how long it waits, and how much it accepts.
public struct ServerConfiguration: Sendable {
    /// Host to bind: a name or numeric address. `0.0.0.0` is IPv4 only, `::` is IPv4+IPv6 (dual stack),
    /// a name such as `localhost` binds every address it resolves to. Default `127.0.0.1`.
    public var host: String = "127.0.0.1"
    /// TCP port; 0 picks a free port (read it from `HTTPServer.boundAddresses`). Default 8080.
    public var port: Int = 8080
    /// Event-loop threads. Each owns an epoll set and runs quick handlers inline. Default: one per CPU.
    public var eventLoops: Int = max(1, System.processorCount)
    /// The worker lanes and how many threads each has (at least one), declared by the application for its kinds
    /// of blocking work; a blocking route on a lane not listed here runs on `WorkLane.general`. Threads are named
    /// after the lane (`<threadNamePrefix>-<lane>-<n>`). Default: the general lane with 2 threads.
    public var lanes: [WorkLane: Int] = [.general: 2]
    /// The lane that produces streamed bodies' pieces, so they never queue in front of other lanes' jobs.
    /// Default: the general lane.
    public var streamLane: WorkLane = .general
    /// Threads of the general lane.
    public var blockingWorkers: Int {
        get { lanes[.general] ?? 0 }
        set { lanes[.general] = newValue }
    }
    public var limits = HTTPLimits()
    /// From the first byte of a request to the end of its header section. Expiry → 408 and close. Default 10 s.
    public var headerTimeout: Double = 10
    /// Longest pause while a body is arriving. Expiry → 408 and close. Default 10 s.
    public var bodyIdleTimeout: Double = 10
    /// From the end of the header section to the end of the body, however steadily bytes arrive, for a body that
    /// `minimumBodyRate` would deliver within it; a longer body gets as long as that rate needs for it (its
    /// `Content-Length`, or for a chunked body the bytes received so far). Expiry → 408 and close. Default 30 s.
    public var bodyTimeout: Double = 30
    /// The slowest average rate, in bytes per second, at which a body is sure to be read in full: with the
    /// defaults a body up to 1.9 MiB has `bodyTimeout` (30 s), a 12.7 MB body about 193 s. A slow body holds only
    /// the budget for the bytes it has sent (see `bodyBudgetBytes`), and `bodyIdleTimeout` still bounds each
    /// pause. 0 disables the scaling. Default 64 KiB/s.
    public var minimumBodyRate: Double = 64 * 1024
    /// Longest wait for the next request on an idle persistent connection. Expiry → close. Default 60 s.
    public var keepAliveTimeout: Double = 60
    /// Longest wait for the first byte on a new connection (capped at `keepAliveTimeout`): a socket that never
    /// sends anything holds a slot for this long, not a keep-alive period. Expiry → close. Default 5 s.
    public var firstByteTimeout: Double = 5
    /// Longest time a response may wait for a slow reader. Expiry → close. Default 30 s.
    public var writeTimeout: Double = 30
    /// Open connections. One more first closes the longest idle connection (one that never sent a byte before one
    /// between requests); only when none is idle is it answered 503 and closed. Default 4096.
    public var maxConnections: Int = 4096
    /// After SIGTERM/SIGINT: how long in-flight requests get to finish. Default 10 s.
    public var drainTimeout: Double = 10
    /// Listen backlog. Default 1024.
    public var backlog: Int32 = 1024
    /// Request bodies above `budgetedBodyBytes` share this many bytes server-wide while they are held: a body holds
    /// budget for the bytes of it that have arrived (buffered raw, and decoded for a chunked body), taken in 64 KiB
    /// steps as they arrive, and the whole body from when it is complete until its response is sent. A declared
    /// `Content-Length` alone holds none, so a client holds budget only for bytes it actually sent. A step that
    /// does not fit while others hold the budget is answered 503 `server_busy` with `Retry-After` (and the
    /// connection closes, since the rest of the body is unread), so many concurrent large bodies cannot exhaust
    /// memory. A step is always taken when no other body holds any, so a route's largest body can be served. Default 256 MiB.
    public var bodyBudgetBytes: Int = 256 * 1024 * 1024
    /// Bodies up to this size are not counted against `bodyBudgetBytes` (at most `maxConnections` of them can be
    /// held: 256 MiB with the defaults). Default 64 KiB.
    public var budgetedBodyBytes: Int = 64 * 1024
    /// Which requests get an access-log line. Default `.on` (every request).
    public var accessLogMode = AccessLogMode.on
    /// One JSON line per request on stderr (`accessLogMode` `.on` or `.off`).
    public var accessLog: Bool {
        get { accessLogMode != .off }
        set { accessLogMode = newValue ? .on : .off }
    }
    /// Where access-log lines go. Default 2 (stderr).
    public var accessLogFD: Int32 = 2
    /// What every metric name of the server's `ServerMetrics` starts with, joined by `_`: the default gives
    /// `http_requests_total`, `http_request_duration_seconds` and so on. An application that names its metrics
    /// after itself sets its own (letters, digits, `_` and `:`, not starting with a digit). Default `http`.
    public var metricsPrefix = "http"
    /// What the server's thread names start with: `<prefix>-loop-N` for the event loops, `<prefix>-worker-N`,
    /// `<prefix>-reserved-N`, `<prefix>-secondary-N` and `<prefix>-bulk-N` for the four worker lanes (as `top -H` and debuggers show them). Default `http`.
    public var threadNamePrefix = "http"

    public init() {}

    /// The smallest timeout, which sets how often deadlines are checked.
    var timerResolution: Double {
        let smallest = min(headerTimeout, bodyIdleTimeout, bodyTimeout, keepAliveTimeout, firstByteTimeout, writeTimeout)
        return min(0.25, max(0.005, smallest / 8))
    }
}

/// Facts about the machine.
public enum System {
    /// Online processors.
    public static var processorCount: Int { Syscall.onlineProcessors() }
}
