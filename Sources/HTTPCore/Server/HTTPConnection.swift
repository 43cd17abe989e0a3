// The per-connection state one event loop keeps: buffers, parser progress, and the clocks behind timeouts.
import Synchronization

/// One client connection. Owned and touched only by its event loop's thread.
final class HTTPConnection {
    enum State: Equatable {
        /// Reading and answering requests.
        case active
        /// A request is running on a worker thread; the connection waits for its response.
        case waiting
        /// A streamed response is being sent (`stream`); later requests wait, unread, until it ends.
        case streaming
        /// The last response is queued; close once it is sent.
        case closingAfterFlush
        /// Response sent and write side shut; discard input until the peer closes or `until` passes,
        /// so unread input does not turn the close into a reset that destroys the response.
        case lingering(until: UInt64)
    }

    let fd: Int32
    let id: UInt64
    var state = State.active
    var parser: RequestParser

    /// Received bytes; the current request starts at `start`.
    var inbound: [UInt8] = []
    var start = 0
    /// Bytes to send; `sent` of them are gone.
    var outbound: [UInt8] = []
    var sent = 0

    /// Clocks (monotonic nanoseconds).
    var requestStartedAt: UInt64
    var lastReadAt: UInt64
    var lastWriteAt: UInt64
    var idleSince: UInt64
    /// When the current request's header section was complete and its body began; nil outside a body.
    var bodyStartedAt: UInt64?
    /// Set when the current request's head was offered to the responder (see `HTTPResponder.plan(for:)`).
    var headAdmitted = false
    /// Whether the request `parseNext` just returned was already admitted on its head.
    private(set) var lastRequestAdmitted = false
    /// The plan resolved on the head of the request being read, kept until that request is dispatched.
    var plan: RoutePlan?
    /// Requests cut out of the stream so far: none means the client has not yet sent a whole request.
    private(set) var requestsReceived = 0

    /// epoll interest currently registered.
    var interest: UInt32

    /// The streamed body being sent, while `state` is `.streaming`.
    struct Streaming {
        var body: ResponseStream
        /// Chunked framing; false for an HTTP/1.0 client (the body ends with the connection).
        var chunked: Bool
        /// Close once the body is complete.
        var closeAfter: Bool
        /// A piece is being produced on a worker: never more than one at a time.
        var pulling = false
        /// The request's id, which the events logged while its pieces are made carry.
        var requestID: String
    }
    var streaming: Streaming?

    /// Bytes of the server-wide body budget this connection holds for its current request.
    var reservedBodyBytes = 0

    /// While `state` is `.waiting`: whether the client is still there, as the queued handler sees it.
    var presence: ClientPresence?

    init(fd: Int32, id: UInt64, limits: HTTPLimits, now: UInt64, interest: UInt32) {
        self.fd = fd
        self.id = id
        parser = RequestParser(limits: limits)
        requestStartedAt = now
        lastReadAt = now
        lastWriteAt = now
        idleSince = now
        self.interest = interest
        inbound.reserveCapacity(1024)
    }

    var hasUnsentOutput: Bool { sent < outbound.count }
    var unparsedBytes: Int { inbound.count - start }

    /// True when no request is partly received, none is running and nothing waits to be sent.
    var isIdle: Bool {
        state == .active && !hasUnsentOutput && !parser.hasPartialRequest && unparsedBytes == 0
    }

    // MARK: The protocol side, without sockets (the event loop supplies bytes and the clock)

    /// Appends bytes read from the peer at time `now`.
    func receive(_ bytes: UnsafeRawBufferPointer, now: UInt64) {
        if unparsedBytes == 0 && !parser.hasPartialRequest { requestStartedAt = now }
        lastReadAt = now
        inbound.append(contentsOf: bytes)
    }

    /// Parses the next request from the buffered bytes and keeps the body clock: it starts when a header
    /// section is complete and its body is not, and stops with the request.
    func parseNext(now: UInt64) -> RequestParser.Outcome {
        let outcome = parser.parse(inbound, from: start)
        switch outcome {
        case .needMore:
            if parser.isReadingBody {
                if bodyStartedAt == nil { bodyStartedAt = now }
            } else {
                bodyStartedAt = nil
            }
        case .request(_, let consumed):
            bodyStartedAt = nil
            lastRequestAdmitted = headAdmitted
            headAdmitted = false
            requestsReceived += 1
            start += consumed
            compact()
            if unparsedBytes > 0 { requestStartedAt = now }
        case .failure:
            bodyStartedAt = nil
            headAdmitted = false
        }
        return outcome
    }

    /// The head of a request whose body is arriving, the first time it is asked for: the moment to admit or
    /// refuse it before `100 Continue` and before reading the body.
    func headAwaitingAdmission() -> HTTPRequest? {
        guard !headAdmitted, let head = parser.currentHead else { return nil }
        headAdmitted = true
        return head
    }

    /// Deadlines in nanoseconds (see `ServerConfiguration` for each one's meaning).
    struct Timeouts {
        var header: UInt64
        var bodyIdle: UInt64
        var body: UInt64
        var keepAlive: UInt64
        var firstByte: UInt64
        var write: UInt64
        /// Bytes per second (`ServerConfiguration.minimumBodyRate`); 0 leaves `body` unscaled.
        var minimumBodyRate: Double

        init(_ configuration: ServerConfiguration) {
            minimumBodyRate = max(0, configuration.minimumBodyRate)
            header = UInt64(configuration.headerTimeout * 1e9)
            bodyIdle = UInt64(configuration.bodyIdleTimeout * 1e9)
            body = UInt64(configuration.bodyTimeout * 1e9)
            keepAlive = UInt64(configuration.keepAliveTimeout * 1e9)
            firstByte = UInt64(min(configuration.firstByteTimeout, configuration.keepAliveTimeout) * 1e9)
            write = UInt64(configuration.writeTimeout * 1e9)
        }
    }

    enum Expiry: Equatable {
        case none
        /// Close without a response (idle, lingering over, or a reader too slow to take its response).
        case close
        /// Answer 408 with this message, then close.
        case timeOut(String)
    }

    /// What a deadline demands at `now`; `draining` closes idle connections at once.
    func expiry(now: UInt64, timeouts: Timeouts, draining: Bool) -> Expiry {
        switch state {
        case .waiting:
            return .none
        case .streaming:
            // Waiting for the producer is not the client's fault; a client that stops reading is.
            return hasUnsentOutput && now - min(now, lastWriteAt) > timeouts.write ? .close : .none
        case .lingering(let until):
            return now >= until ? .close : .none
        case .active, .closingAfterFlush:
            break
        }
        if hasUnsentOutput {
            return now - min(now, lastWriteAt) > timeouts.write ? .close : .none
        }
        if parser.isReadingBody {
            if now - min(now, bodyStartedAt ?? requestStartedAt) > bodyDeadline(timeouts) {
                return .timeOut("the request body took too long")
            }
            if now - min(now, lastReadAt) > timeouts.bodyIdle { return .timeOut("the request body stalled") }
            return .none
        }
        if parser.hasPartialRequest || unparsedBytes > 0 {
            return now - min(now, requestStartedAt) > timeouts.header ? .timeOut("the request headers took too long") : .none
        }
        let idleLimit = requestsReceived == 0 ? timeouts.firstByte : timeouts.keepAlive
        if draining || now - min(now, max(idleSince, lastReadAt)) > idleLimit { return .close }
        return .none
    }

    /// How eagerly a full server may close this connection to make room: nil when it is busy (a request partly
    /// received, running or being answered); otherwise lower first, oldest first. A connection that never sent a
    /// byte ranks before one idle between requests, as Apache's event MPM does when its table is full.
    var evictionRank: (neverUsed: Bool, since: UInt64)? {
        guard isIdle else { return nil }
        return (requestsReceived == 0, max(idleSince, lastReadAt))
    }

    /// Whether `self` should be evicted before `other` (both idle).
    func evictsBefore(_ other: HTTPConnection) -> Bool {
        guard let mine = evictionRank else { return false }
        guard let theirs = other.evictionRank else { return true }
        if mine.neverUsed != theirs.neverUsed { return mine.neverUsed }
        return mine.since < theirs.since
    }

    /// How long the body being read may take, in nanoseconds: `bodyTimeout`, or longer for a body that takes
    /// longer at `minimumBodyRate`: its declared length, or for a chunked body the bytes decoded so far.
    func bodyDeadline(_ timeouts: Timeouts) -> UInt64 {
        guard timeouts.minimumBodyRate > 0 else { return timeouts.body }
        let length = parser.declaredBodyLength ?? parser.chunkBody.count
        let seconds = min(Double(length) / timeouts.minimumBodyRate, 1e9)
        return max(timeouts.body, UInt64(seconds * 1e9))
    }

    /// Drops consumed request bytes once they dominate the buffer.
    /// - Complexity: amortised O(1) per byte.
    func compact() {
        if start == inbound.count {
            inbound.removeAll(keepingCapacity: inbound.capacity <= 64 * 1024)
            start = 0
        } else if start > 32 * 1024 && start * 2 > inbound.count {
            inbound.removeFirst(start)
            start = 0
        }
    }
}

/// Whether the client of a request queued for a worker is still connected: the loop marks it gone when it closes
/// the connection (the client closed its side, or the socket failed), and the worker reads it before starting
/// the handler, so work nobody waits for any more is not run.
final class ClientPresence: Sendable {
    private let gone = Atomic<Bool>(false)

    var isGone: Bool { gone.load(ordering: .acquiring) }

    func markGone() { gone.store(true, ordering: .releasing) }
}
