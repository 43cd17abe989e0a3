// Reading and dispatching: read what a connection sent, let its parser cut requests out of it, and answer each
// one, inline on the loop for quick routes or on a worker lane for blocking ones (the response comes back through
// the inbox). Every answer, inline or not, is finished in one place: decorated, serialised, counted and logged.
import EventLog
import Sockets

extension EventLoop {
    /// The socket is readable: read up to 16 buffers (less when it runs dry), then answer what they complete.
    func readable(_ connection: HTTPConnection) {
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

    /// Answers the complete requests buffered on `connection`, in order, while little output waits for the client.
    func process(_ connection: HTTPConnection) {
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

    /// Runs one request's handler by its plan, inline or on its worker lane; `admitted` when its head was
    /// already planned and checked (the plan is then the connection's).
    func dispatch(_ request: HTTPRequest, on connection: HTTPConnection, admitted: Bool) {
        let started = Syscall.monotonicNanoseconds()
        core.metrics.recordQueueWait(shard: index, seconds: Double(started - min(started, now)) / 1e9)
        let kept = connection.plan
        connection.plan = nil
        let plan = admitted ? kept ?? core.responder.plan(for: request) : core.responder.plan(for: request)
        var refusal: HTTPResponse?
        // The whole body is held until the answer is sent: count it (a body that arrived in one pass was never
        // counted, one read in steps may be short by its last reads).
        if request.body.count > core.configuration.budgetedBodyBytes,
           !reserve(request.body.count - connection.reservedBodyBytes, for: connection) {
            refusal = busy()
        } else if !admitted {
            refusal = plan.refusal
            // It arrived whole, so its body was held only to `HTTPLimits.maxBodyBytes`: the route's limit now.
            if refusal == nil, let limit = plan.bodyLimit, request.body.count > limit {
                refusal = core.responder.respond(to: RequestParser.bodyTooLarge(limit: limit))
            }
        }
        let requestID = Self.validRequestID(request.headers["X-Request-Id"]) ?? core.makeRequestID()
        core.metrics.requestStarted()
        if let refusal {
            finish(Completion(connectionID: connection.id, fd: connection.fd, request: request, plan: plan,
                              response: refusal, started: started, keepAlive: request.wantsKeepAlive && !draining,
                              requestID: requestID),
                   on: connection)
            return
        }
        let keepAlive = request.wantsKeepAlive && !draining
        var identified = request
        identified.requestID = requestID
        let request = identified
        if plan.isBlocking {
            connection.state = .waiting
            let presence = ClientPresence()
            connection.presence = presence
            let (id, fd, loop, metrics) = (connection.id, connection.fd, self, core.metrics)
            core.pool(for: plan.lane).submit {
                // The client left while the request was queued: nobody waits for its answer, so it does not run.
                guard !presence.isGone else {
                    metrics.requestAbandoned()
                    loop.post(.skipped(connectionID: id))
                    return
                }
                let response = EventLog.$requestID.withValue(requestID) { plan.handler(request) }
                loop.post(.completed(Completion(connectionID: id, fd: fd, request: request, plan: plan,
                                                response: response, started: started, keepAlive: keepAlive,
                                                requestID: requestID)))
            }
            updateInterest(connection)
            return
        }
        let response = EventLog.$requestID.withValue(requestID) { plan.handler(request) }
        finish(Completion(connectionID: connection.id, fd: connection.fd, request: request, plan: plan,
                          response: response, started: started, keepAlive: keepAlive, requestID: requestID),
               on: connection)
    }

    /// A worker's response came back through the inbox.
    func complete(_ completion: Completion) {
        guard let connection = connections[completion.fd], connection.id == completion.connectionID else {
            // The client left while its request ran.
            orphanFinished(completion.connectionID)
            return
        }
        connection.state = .active
        connection.presence = nil
        finish(completion, on: connection)
        process(connection)
    }

    /// A request whose client left before its answer is done with: its body's budget goes back.
    func orphanFinished(_ connectionID: UInt64) {
        core.releaseBody(orphanedBodyBytes.removeValue(forKey: connectionID) ?? 0)
        core.metrics.requestFinished()
    }

    /// Every answer ends here: decorated, serialised into the output buffer, counted and logged.
    func finish(_ completion: Completion, on connection: HTTPConnection) {
        var response = completion.response
        completion.plan.finish(&response, completion.request)
        response.headers.add("X-Request-Id", completion.requestID)
        releaseBody(of: connection)
        let isHTTP10 = completion.request.minorVersion == 0
        let streams = response.stream != nil && completion.request.method != .head
        // HTTP/1.0 has no chunked coding: a streamed body ends with the connection.
        let close = !completion.keepAlive || draining || (streams && isHTTP10)
        writer.write(response, omitBody: completion.request.method == .head, close: close,
                     keepAliveHTTP10: isHTTP10, chunked: !isHTTP10, into: &connection.outbound)
        if let body = response.stream, streams {
            connection.streaming = HTTPConnection.Streaming(body: body, chunked: !isHTTP10, closeAfter: close,
                                                            requestID: completion.requestID)
            connection.state = .streaming
        } else if close {
            connection.state = .closingAfterFlush
        }
        let seconds = Double(Syscall.monotonicNanoseconds() - completion.started) / 1e9
        core.metrics.requestFinished()
        core.metrics.record(shard: index, route: completion.plan.label, method: completion.request.method.rawValue,
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
}
