// One epoll event loop on its own thread: the loop itself, its epoll set and eventfd, its inbox, and the
// per-loop state every other part of the loop uses. What the loop does with each event lives beside it:
// accepting (EventLoop+Accept), reading and dispatching requests (EventLoop+Requests), admission and the body
// budget (EventLoop+Admission), writing and closing (EventLoop+Output), streamed responses (EventLoop+Streaming),
// and deadlines and drain (EventLoop+Drain). The protocol decisions for one connection are in HTTPConnection,
// which needs no socket; these files only move bytes and hand work between threads.
import CSystem
import Locking
import Sockets
#if canImport(Glibc)
import Glibc
#endif

/// An epoll loop. All mutable state except `inbox` is touched only on the loop's own thread,
/// which is why it is `@unchecked Sendable`: other threads may only call `post(_:)`. The state and methods the
/// extensions share are internal rather than private only because they live in other files.
final class EventLoop: @unchecked Sendable {
    enum Message {
        /// Take over an accepted connection; `full` when it was accepted past `maxConnections`.
        case adopt(Int32, full: Bool)
        /// A worker finished a blocking request.
        case completed(Completion)
        /// A worker skipped a blocking request whose client had gone before it started.
        case skipped(connectionID: UInt64)
        /// A worker produced the next piece of a streamed response.
        case streamed(connectionID: UInt64, fd: Int32, piece: ResponseStream.Piece)
        /// Stop accepting, finish in-flight requests, then exit.
        case drain
    }

    struct Completion {
        var connectionID: UInt64
        var fd: Int32
        var request: HTTPRequest
        /// The plan the request ran by: its label for the metrics, and the headers every answer to it gets.
        var plan: RoutePlan
        var response: HTTPResponse
        var started: UInt64
        var keepAlive: Bool
        var requestID: String
    }

    let index: Int
    let core: ServerCore
    let epoll: Int32
    private let wakeFD: Int32
    private let inbox = Locked<[Message]>([])
    /// Loops to hand accepted connections to (set once before the threads start; only loop 0 accepts).
    var peers: [EventLoop] = []
    var listeners: [Int32] = []

    var connections: [Int32: HTTPConnection] = [:]
    /// Body budget held for requests still running on a worker after their client left, by connection id: the
    /// body is held until the handler returns, so the budget is returned only then.
    var orphanedBodyBytes: [UInt64: Int] = [:]
    var writer = ResponseWriter()
    var log: AccessLog
    var readBuffer: UnsafeMutableRawBufferPointer
    var draining = false
    var drainDeadline: UInt64 = 0
    var nextPeer = 0
    /// The loop's clock: monotonic nanoseconds, read once per wake-up.
    private(set) var now: UInt64 = 0
    private var nextTimerCheck: UInt64 = 0
    /// While accepting is paused after EMFILE: when to watch the listeners again.
    var acceptPausedUntil: UInt64?
    private let resolution: UInt64

    static let readInterest = UInt32(EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
    static let writeInterest = UInt32(EPOLLOUT.rawValue)
    /// Watched while a request waits for a worker (input is not read then): the client closing its side.
    static let hangUpInterest = UInt32(EPOLLRDHUP.rawValue)
    /// What tells a waiting connection's client has gone: its side closed, the socket hung up or failed.
    static let goneEvents = UInt32(EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue)
    /// Stop reading while this much output waits for a slow reader.
    static let outputHighWater = 256 * 1024
    /// Pull the next piece of a streamed body only once its earlier pieces are down to this.
    static let streamLowWater = 64 * 1024

    init(index: Int, core: ServerCore) throws {
        self.index = index
        self.core = core
        epoll = try Syscall.epollCreate()
        do {
            wakeFD = try Syscall.eventCreate()
            try Syscall.epollControl(epoll, EPOLL_CTL_ADD, wakeFD, events: UInt32(EPOLLIN.rawValue))
        } catch {
            Syscall.close(epoll)
            throw error
        }
        log = AccessLog(fd: core.configuration.accessLogFD, mode: core.configuration.accessLogMode)
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        resolution = UInt64(core.configuration.timerResolution * 1e9)
    }

    deinit {
        readBuffer.deallocate()
        Syscall.close(wakeFD)
        Syscall.close(epoll)
    }

    /// Called from any thread.
    func post(_ message: Message) {
        inbox.withLock { $0.append(message) }
        Syscall.eventSignal(wakeFD)
    }

    func registerListeners(_ fds: [Int32]) throws {
        listeners = fds
        for fd in fds { try Syscall.epollControl(epoll, EPOLL_CTL_ADD, fd, events: UInt32(EPOLLIN.rawValue)) }
    }

    // MARK: The loop

    /// Runs until a drain completes.
    func run() {
        let capacity: Int32 = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(capacity))
        defer { events.deallocate() }
        now = Syscall.monotonicNanoseconds()
        nextTimerCheck = now + resolution
        while true {
            let waitMs = Int32(max(1, min(1000, (nextTimerCheck > now ? nextTimerCheck - now : 0) / 1_000_000 + 1)))
            let count = Syscall.epollWait(epoll, events, capacity: capacity, timeoutMilliseconds: waitMs)
            now = Syscall.monotonicNanoseconds()
            for position in 0..<Int(count) {
                let event = events[position]
                let fd = event.data.fd
                if fd == wakeFD {
                    Syscall.eventDrain(wakeFD)
                    processInbox()
                } else if listeners.contains(fd) {
                    acceptAll(fd)
                } else if let connection = connections[fd] {
                    // A client that closes its side while its request waits for a worker has left (nginx takes it
                    // so too): its request is not run (see `ClientPresence`).
                    if connection.state == .waiting, event.events & Self.goneEvents != 0 {
                        close(connection)
                        continue
                    }
                    if event.events & Self.writeInterest != 0 { flush(connection) }
                    if connections[fd] === connection, event.events & ~Self.writeInterest != 0 { readable(connection) }
                }
            }
            if now >= nextTimerCheck {
                resumeAcceptingIfDue()
                checkDeadlines()
                nextTimerCheck = now + resolution
            }
            log.flush()
            // Under load epoll_wait returns at once, so a busy loop never sleeps and keeps its CPU until the
            // scheduler tick (4 ms at HZ=250). Yielding after each batch lets threads woken meanwhile run now:
            // the other loop, the worker pool, and clients on the same host (its effect on the tail latency is
            // measured in bench/README.md).
            if count > 0 { Syscall.yieldProcessor() }
            if draining {
                if connections.isEmpty { break }
                if now >= drainDeadline {
                    for connection in Array(connections.values) { close(connection) }
                    break
                }
            }
        }
        log.flush()
    }

    private func processInbox() {
        let messages = inbox.withLock { messages -> [Message] in
            let taken = messages
            messages.removeAll(keepingCapacity: true)
            return taken
        }
        for message in messages {
            switch message {
            case .adopt(let fd, let full): adopt(fd, full: full)
            case .completed(let completion): complete(completion)
            case .skipped(let connectionID): orphanFinished(connectionID)
            case .streamed(let id, let fd, let piece): received(piece, connectionID: id, fd: fd)
            case .drain: beginDrain()
            }
        }
    }
}
