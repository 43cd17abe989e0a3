// One epoll event loop on its own thread: reads, parses, answers quick requests inline, writes, and
// enforces timeouts. Blocking handlers go to the worker pool and come back through the loop's inbox.
import CSystem
import Locking
import StrictJSON
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// State every loop shares with the server.
final class ServerCore: Sendable {
    let configuration: ServerConfiguration
    let responder: any HTTPResponder
    let metrics: ServerMetrics
    let pool: WorkerPool
    let reservedPool: WorkerPool
    let openConnections = Atomic<Int>(0)
    let nextConnectionID = Atomic<UInt64>(1)
    let nextRequestID = Atomic<UInt64>(1)
    let requestIDPrefix: String
    /// Bytes of large request bodies held right now (see `ServerConfiguration.bodyBudgetBytes`).
    let bodyBytesHeld = Atomic<Int>(0)

    init(configuration: ServerConfiguration, responder: any HTTPResponder, metrics: ServerMetrics) {
        self.configuration = configuration
        self.responder = responder
        self.metrics = metrics
        pool = WorkerPool(count: configuration.blockingWorkers, name: "kwsuggest-worker")
        reservedPool = WorkerPool(count: configuration.reservedWorkers, name: "kwsuggest-reserved")
        let random = UInt32.random(in: 0...UInt32.max)
        requestIDPrefix = String(random, radix: 16)
    }

    /// Takes `bytes` more of the body budget: always when nothing is held, else only when it fits.
    func reserveBody(_ bytes: Int) -> Bool {
        var held = bodyBytesHeld.load(ordering: .relaxed)
        while true {
            if held > 0 && held + bytes > configuration.bodyBudgetBytes { return false }
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

/// An epoll loop. All mutable state except `inbox` is touched only on the loop's own thread,
/// which is why it is `@unchecked Sendable`: other threads may only call `post(_:)`.
final class EventLoop: @unchecked Sendable {
    enum Message {
        /// Take over an accepted connection.
        case adopt(Int32)
        /// A worker finished a blocking request.
        case completed(Completion)
        /// A worker produced the next piece of a streamed response.
        case streamed(connectionID: UInt64, fd: Int32, piece: ResponseStream.Piece)
        /// Stop accepting, finish in-flight requests, then exit.
        case drain
    }

    struct Completion {
        var connectionID: UInt64
        var fd: Int32
        var request: HTTPRequest
        var label: String
        var response: HTTPResponse
        var started: UInt64
        var keepAlive: Bool
        var requestID: String
    }

    let index: Int
    private let core: ServerCore
    private let epoll: Int32
    private let wakeFD: Int32
    private let inbox = Locked<[Message]>([])
    /// Loops to hand accepted connections to (set once before the threads start; only loop 0 accepts).
    var peers: [EventLoop] = []
    var listeners: [Int32] = []

    private var connections: [Int32: HTTPConnection] = [:]
    private var writer = ResponseWriter()
    private var log: AccessLog
    private var readBuffer: UnsafeMutableRawBufferPointer
    private var draining = false
    private var drainDeadline: UInt64 = 0
    private var nextPeer = 0
    private var now: UInt64 = 0
    private var nextTimerCheck: UInt64 = 0
    private let resolution: UInt64

    private static let readInterest = UInt32(EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
    private static let writeInterest = UInt32(EPOLLOUT.rawValue)
    /// Stop reading while this much output waits for a slow reader.
    private static let outputHighWater = 256 * 1024
    /// Pull the next piece of a streamed body only once its earlier pieces are down to this.
    private static let streamLowWater = 64 * 1024

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
            case .adopt(let fd): adopt(fd, rejected: false)
            case .completed(let completion): complete(completion)
            case .streamed(let id, let fd, let piece): received(piece, connectionID: id, fd: fd)
            case .drain: beginDrain()
            }
        }
    }

    // MARK: Accepting

    private func acceptAll(_ listener: Int32) {
        var accepted = 0
        while accepted < 256 {
            let client: Int32?
            do {
                client = try Syscall.accept(listener)
            } catch {
                // EMFILE/ENFILE and the like: the listener stays readable, so stop watching it for a moment
                // instead of spinning; connections wait in the backlog until descriptors free up.
                pauseAccepting()
                break
            }
            guard let fd = client else { break }
            accepted += 1
            try? Syscall.setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
            let open = core.openConnections.add(1, ordering: .relaxed).newValue
            if open > core.configuration.maxConnections {
                core.metrics.connectionRejected()
                if open > core.configuration.maxConnections + 256 {
                    // Far beyond the limit: do not even spend a response on it.
                    core.openConnections.subtract(1, ordering: .relaxed)
                    Syscall.close(fd)
                } else {
                    adopt(fd, rejected: true)
                }
                continue
            }
            let target = peers.isEmpty ? self : peers[nextPeer % peers.count]
            nextPeer &+= 1
            if target === self { adopt(fd, rejected: false) } else { target.post(.adopt(fd)) }
        }
    }

    private var acceptPausedUntil: UInt64?

    private func pauseAccepting() {
        guard acceptPausedUntil == nil else { return }
        acceptPausedUntil = now + 100_000_000
        for fd in listeners { _ = try? Syscall.epollControl(epoll, EPOLL_CTL_DEL, fd, events: 0) }
    }

    private func resumeAcceptingIfDue() {
        guard let until = acceptPausedUntil, now >= until else { return }
        acceptPausedUntil = nil
        for fd in listeners { _ = try? Syscall.epollControl(epoll, EPOLL_CTL_ADD, fd, events: UInt32(EPOLLIN.rawValue)) }
    }

    /// Starts serving `fd`, which is already counted in `openConnections`.
    private func adopt(_ fd: Int32, rejected: Bool) {
        let id = core.nextConnectionID.add(1, ordering: .relaxed).newValue
        let connection = HTTPConnection(fd: fd, id: id, limits: core.configuration.limits, now: now,
                                        interest: Self.readInterest)
        do {
            try Syscall.epollControl(epoll, EPOLL_CTL_ADD, fd, events: Self.readInterest)
        } catch {
            core.openConnections.subtract(1, ordering: .relaxed)
            Syscall.close(fd)
            return
        }
        connections[fd] = connection
        core.metrics.connectionOpened()
        if rejected || draining {
            answerAndClose(connection, HTTPParseError(
                status: .serviceUnavailable, code: rejected ? .serverFull : .shuttingDown,
                message: rejected ? "too many open connections; retry later" : "the server is shutting down"),
                route: "(rejected)", seconds: 0)
            flush(connection)
        }
    }

    // MARK: Reading and dispatching

    private func readable(_ connection: HTTPConnection) {
        var reads = 0
        while reads < 16 {
            reads += 1
            switch Syscall.read(connection.fd, into: readBuffer) {
            case .bytes(let count):
                if case .lingering = connection.state { continue }
                connection.receive(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]), now: now)
                if count < readBuffer.count { reads = 16 }
            case .wouldBlock:
                reads = 16
            case .closed:
                close(connection)
                return
            }
            // Never buffer more than one maximal request ahead.
            if connection.unparsedBytes > core.configuration.limits.maxHeaderBytes + core.configuration.limits.maxBodyBytes * 2 + 65536 {
                break
            }
        }
        process(connection)
    }

    private func process(_ connection: HTTPConnection) {
        while connection.state == .active, connection.outbound.count - connection.sent < Self.outputHighWater {
            switch connection.parseNext(now: now) {
            case .needMore:
                if let head = connection.headAwaitingAdmission(), let refusal = admission(head, on: connection) {
                    refuse(head, with: refusal, on: connection)
                    break
                }
                if connection.parser.isReadingBody, let head = connection.parser.currentHead,
                   !reserveBody(for: connection) {
                    refuse(head, with: busy(), on: connection)
                    break
                }
                if connection.parser.wantsContinue {
                    connection.outbound.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
                    connection.parser.continueSent()
                }
                flush(connection)
                return
            case .failure(let error):
                let seconds = Double(Syscall.monotonicNanoseconds() - connection.requestStartedAt) / 1e9
                answerAndClose(connection, error, route: "(invalid)", seconds: seconds)
            case .request(let request, _):
                dispatch(request, on: connection, admitted: connection.lastRequestAdmitted)
            }
        }
        flush(connection)
    }

    /// Checks a head whose body is still arriving: the responder's `admit`, the route's body limit (declared
    /// lengths above it are refused now, chunked bodies are held to it), and the body budget for a declared length.
    private func admission(_ head: HTTPRequest, on connection: HTTPConnection) -> HTTPResponse? {
        if let refusal = core.responder.admit(head) { return refusal }
        if let limit = core.responder.bodyLimit(for: head), let error = connection.parser.limitBody(to: limit) {
            return core.responder.respond(to: error)
        }
        return reserveBody(for: connection) ? nil : busy()
    }

    /// Holds enough of the body budget for the body being read: its declared length, or for a chunked body the
    /// bytes held for it so far. Bodies up to `budgetedBodyBytes` hold none. False when the budget is spent.
    private func reserveBody(for connection: HTTPConnection) -> Bool {
        // A chunked body is held twice while it arrives: raw in the buffer and decoded in the parser.
        let needed = connection.parser.declaredBodyLength ?? (connection.unparsedBytes + connection.parser.chunkBody.count)
        guard needed > core.configuration.budgetedBodyBytes, needed > connection.reservedBodyBytes else { return true }
        // Chunked bodies grow: take at least 1 MiB more at a time, so the budget is not touched on every read.
        let more = connection.parser.declaredBodyLength == nil
            ? max(needed - connection.reservedBodyBytes, 1024 * 1024) : needed - connection.reservedBodyBytes
        guard core.reserveBody(more) else { return false }
        connection.reservedBodyBytes += more
        return true
    }

    private func releaseBody(of connection: HTTPConnection) {
        core.releaseBody(connection.reservedBodyBytes)
        connection.reservedBodyBytes = 0
    }

    private func busy() -> HTTPResponse {
        var response = core.responder.respond(to: HTTPParseError(
            status: .serviceUnavailable, code: .serverBusy,
            message: "too many large request bodies are being received; retry shortly"))
        response.headers.set("Retry-After", "1")
        return response
    }

    /// Answers a request refused on its head; its body is not read, so the connection closes.
    private func refuse(_ head: HTTPRequest, with response: HTTPResponse, on connection: HTTPConnection) {
        connection.parser.reset()
        core.metrics.requestStarted()
        let requestID = Self.validRequestID(head.headers["X-Request-Id"]) ?? core.makeRequestID()
        finish(Completion(connectionID: connection.id, fd: connection.fd, request: head,
                          label: core.responder.match(head).label, response: response,
                          started: connection.bodyStartedAt ?? now, keepAlive: false, requestID: requestID),
               on: connection)
    }

    private func dispatch(_ request: HTTPRequest, on connection: HTTPConnection, admitted: Bool) {
        let started = Syscall.monotonicNanoseconds()
        core.metrics.recordQueueWait(shard: index, seconds: Double(started - min(started, now)) / 1e9)
        var refusal: HTTPResponse?
        if !admitted {
            refusal = core.responder.admit(request)
            // It arrived whole, so its body was held only to `HTTPLimits.maxBodyBytes`: the route's limit now.
            if refusal == nil, let limit = core.responder.bodyLimit(for: request), request.body.count > limit {
                refusal = core.responder.respond(to: RequestParser.bodyTooLarge(limit: limit))
            }
        }
        if let refusal {
            core.metrics.requestStarted()
            let requestID = Self.validRequestID(request.headers["X-Request-Id"]) ?? core.makeRequestID()
            finish(Completion(connectionID: connection.id, fd: connection.fd, request: request,
                              label: core.responder.match(request).label, response: refusal, started: started,
                              keepAlive: request.wantsKeepAlive && !draining, requestID: requestID),
                   on: connection)
            return
        }
        let route = core.responder.match(request)
        core.metrics.requestStarted()
        let keepAlive = request.wantsKeepAlive && !draining
        let requestID = Self.validRequestID(request.headers["X-Request-Id"]) ?? core.makeRequestID()
        if route.isBlocking {
            connection.state = .waiting
            let (id, fd, loop) = (connection.id, connection.fd, self)
            let pool = route.lane == .reserved ? core.reservedPool : core.pool
            pool.submit {
                let response = route.handler(request)
                loop.post(.completed(Completion(connectionID: id, fd: fd, request: request, label: route.label,
                                                response: response, started: started, keepAlive: keepAlive,
                                                requestID: requestID)))
            }
            updateInterest(connection)
            return
        }
        let response = route.handler(request)
        finish(Completion(connectionID: connection.id, fd: connection.fd, request: request, label: route.label,
                          response: response, started: started, keepAlive: keepAlive, requestID: requestID),
               on: connection)
    }

    private func complete(_ completion: Completion) {
        guard let connection = connections[completion.fd], connection.id == completion.connectionID else {
            // The client left while its request ran.
            core.metrics.requestFinished()
            return
        }
        connection.state = .active
        finish(completion, on: connection)
        process(connection)
    }

    private func finish(_ completion: Completion, on connection: HTTPConnection) {
        var response = completion.response
        core.responder.decorate(&response, for: completion.request)
        response.headers.add("X-Request-Id", completion.requestID)
        releaseBody(of: connection)
        let isHTTP10 = completion.request.minorVersion == 0
        let streams = response.stream != nil && completion.request.method != .head
        // HTTP/1.0 has no chunked coding: a streamed body ends with the connection.
        let close = !completion.keepAlive || draining || (streams && isHTTP10)
        writer.write(response, omitBody: completion.request.method == .head, close: close,
                     keepAliveHTTP10: isHTTP10, chunked: !isHTTP10, into: &connection.outbound)
        if let body = response.stream, streams {
            connection.streaming = HTTPConnection.Streaming(body: body, chunked: !isHTTP10, closeAfter: close)
            connection.state = .streaming
        } else if close {
            connection.state = .closingAfterFlush
        }
        let seconds = Double(Syscall.monotonicNanoseconds() - completion.started) / 1e9
        core.metrics.requestFinished()
        core.metrics.record(shard: index, route: completion.label, method: completion.request.method.rawValue,
                            status: response.status.code, seconds: seconds)
        log.record(method: completion.request.method.rawValue, path: completion.request.path,
                   status: response.status.code, seconds: seconds, requestID: completion.requestID)
        connection.idleSince = now
    }

    /// A client-sent request id is echoed only when it is short and plain, so it cannot inject anything.
    static func validRequestID(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 128 else { return nil }
        let allowed = value.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
        }
        return allowed ? value : nil
    }

    // MARK: Writing

    private func flush(_ connection: HTTPConnection) {
        while connection.hasUnsentOutput {
            let result = connection.outbound.withUnsafeBytes { raw in
                Syscall.send(connection.fd, UnsafeRawBufferPointer(rebasing: raw[connection.sent...]))
            }
            switch result {
            case .bytes(let count):
                connection.sent += count
                connection.lastWriteAt = now
            case .wouldBlock:
                updateInterest(connection)
                return
            case .closed:
                close(connection)
                return
            }
        }
        connection.outbound.removeAll(keepingCapacity: connection.outbound.capacity <= 256 * 1024)
        connection.sent = 0
        if connection.state == .closingAfterFlush {
            Syscall.shutdownWrite(connection.fd)
            connection.state = .lingering(until: now + 2_000_000_000)
        }
        updateInterest(connection)
        pull(connection)
    }

    // MARK: Streamed bodies

    /// Asks a worker for the next piece of a streamed body, when none is being made and little output waits.
    private func pull(_ connection: HTTPConnection) {
        guard connection.state == .streaming, var streaming = connection.streaming, !streaming.pulling,
              connection.outbound.count - connection.sent <= Self.streamLowWater else { return }
        streaming.pulling = true
        connection.streaming = streaming
        let (id, fd, loop, body) = (connection.id, connection.fd, self, streaming.body)
        core.pool.submit {
            let piece = body.next()
            loop.post(.streamed(connectionID: id, fd: fd, piece: piece))
        }
    }

    /// A piece came back from the worker: frame it and send it, or end the body.
    private func received(_ piece: ResponseStream.Piece, connectionID: UInt64, fd: Int32) {
        // The client may have left meanwhile; its producer is then simply dropped.
        guard let connection = connections[fd], connection.id == connectionID,
              connection.state == .streaming, var streaming = connection.streaming else { return }
        streaming.pulling = false
        connection.streaming = streaming
        connection.lastWriteAt = now
        switch piece {
        case .bytes(let bytes):
            ResponseWriter.appendPiece(bytes, chunked: streaming.chunked, to: &connection.outbound)
            flush(connection)
        case .end:
            if streaming.chunked { ResponseWriter.appendLastChunk(to: &connection.outbound) }
            connection.streaming = nil
            connection.state = streaming.closeAfter ? .closingAfterFlush : .active
            connection.idleSince = now
            flush(connection)
            if connections[fd] === connection, connection.state == .active { process(connection) }
        case .failed(let reason):
            Syscall.writeAll(2, Array("{\"event\":\"stream_failed\",\"reason\":\(Self.jsonString(reason))}\n".utf8))
            // Without the last chunk the client sees an incomplete body.
            connection.streaming = nil
            connection.state = .closingAfterFlush
            flush(connection)
        }
    }

    private static func jsonString(_ text: String) -> String {
        var json = JSONWriter()
        json.string(String(text.prefix(500)))
        return String(decoding: json.bytes, as: UTF8.self)
    }

    private func updateInterest(_ connection: HTTPConnection) {
        var wanted: UInt32 = 0
        if connection.hasUnsentOutput { wanted |= Self.writeInterest }
        switch connection.state {
        case .active, .lingering:
            if connection.outbound.count - connection.sent < Self.outputHighWater { wanted |= Self.readInterest }
        case .waiting, .streaming, .closingAfterFlush:
            break
        }
        guard wanted != connection.interest else { return }
        connection.interest = wanted
        do {
            try Syscall.epollControl(epoll, EPOLL_CTL_MOD, connection.fd, events: wanted)
        } catch {
            close(connection)
        }
    }

    private func close(_ connection: HTTPConnection) {
        guard connections.removeValue(forKey: connection.fd) != nil else { return }
        releaseBody(of: connection)
        connection.streaming = nil
        Syscall.close(connection.fd)
        core.openConnections.subtract(1, ordering: .relaxed)
        core.metrics.connectionClosed()
    }

    // MARK: Timeouts and draining

    private func checkDeadlines() {
        let timeouts = HTTPConnection.Timeouts(core.configuration)
        for connection in Array(connections.values) {
            switch connection.expiry(now: now, timeouts: timeouts, draining: draining) {
            case .none: break
            case .close: close(connection)
            case .timeOut(let message): timeOut(connection, message)
            }
        }
    }

    private func timeOut(_ connection: HTTPConnection, _ message: String) {
        answerAndClose(connection, HTTPParseError(status: .requestTimeout, code: .requestTimeout, message: message),
                       route: "(timeout)", seconds: Double(now - connection.requestStartedAt) / 1e9)
        flush(connection)
    }

    /// The one way the server itself answers and closes (a request it could not parse, a timeout, a connection
    /// refused when full or draining): rendered by the responder, decorated like every other response (CORS,
    /// cache headers), with a request id, logged and counted, then the connection closes once it is sent.
    private func answerAndClose(_ connection: HTTPConnection, _ error: HTTPParseError, route: String, seconds: Double) {
        releaseBody(of: connection)  // the body will not be read further
        var response = core.responder.respond(to: error)
        core.responder.decorate(&response, for: nil)
        let requestID = core.makeRequestID()
        response.headers.add("X-Request-Id", requestID)
        writer.write(response, omitBody: false, close: true, into: &connection.outbound)
        connection.state = .closingAfterFlush
        log.record(method: "-", path: "-", status: response.status.code, seconds: seconds, requestID: requestID)
        core.metrics.record(shard: index, route: route, method: "-", status: response.status.code, seconds: seconds)
    }

    private func beginDrain() {
        guard !draining else { return }
        draining = true
        acceptPausedUntil = nil
        drainDeadline = now + UInt64(core.configuration.drainTimeout * 1e9)
        for fd in listeners {
            _ = try? Syscall.epollControl(epoll, EPOLL_CTL_DEL, fd, events: 0)
            Syscall.close(fd)
        }
        listeners = []
        for connection in Array(connections.values) where connection.isIdle {
            // A request may sit unread in the socket buffer: read it now so it is answered (with
            // `Connection: close`) rather than reset; connections with nothing pending close at once.
            readable(connection)
            if connections[connection.fd] === connection, connection.isIdle { close(connection) }
        }
    }
}
