// The per-connection state one event loop keeps: buffers, parser progress, and the clocks behind timeouts.

/// One client connection. Owned and touched only by its event loop's thread.
final class HTTPConnection {
    enum State: Equatable {
        /// Reading and answering requests.
        case active
        /// A request is running on a worker thread; the connection waits for its response.
        case waiting
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

    /// epoll interest currently registered.
    var interest: UInt32

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
