// Admission of a request whose body is still arriving: the responder may refuse it on its head, the route's
// body limit applies before the body is read, and large bodies share the server-wide body budget (503
// `server_busy` when it is spent). A refusal answers and closes, since the body is left unread.

extension EventLoop {
    /// Checks a head whose body is still arriving: the responder's `admit`, the route's body limit (declared
    /// lengths above it are refused now, chunked bodies are held to it), and the body budget for a declared length.
    func admission(_ head: HTTPRequest, on connection: HTTPConnection) -> HTTPResponse? {
        if let refusal = core.responder.admit(head) { return refusal }
        if let limit = core.responder.bodyLimit(for: head), let error = connection.parser.limitBody(to: limit) {
            return core.responder.respond(to: error)
        }
        return reserveBody(for: connection) ? nil : busy()
    }

    /// Holds enough of the body budget for the body being read: its declared length, or for a chunked body the
    /// bytes held for it so far. Bodies up to `budgetedBodyBytes` hold none. False when the budget is spent.
    func reserveBody(for connection: HTTPConnection) -> Bool {
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

    /// Returns what the connection held of the body budget (its body was answered or will not be read).
    func releaseBody(of connection: HTTPConnection) {
        core.releaseBody(connection.reservedBodyBytes)
        connection.reservedBodyBytes = 0
    }

    /// The answer when the budget is spent: 503 `server_busy` with `Retry-After: 1`.
    func busy() -> HTTPResponse {
        var response = core.responder.respond(to: HTTPParseError(
            status: .serviceUnavailable, code: .serverBusy,
            message: "too many large request bodies are being received; retry shortly"))
        response.headers.set("Retry-After", "1")
        return response
    }

    /// Answers a request refused on its head; its body is not read, so the connection closes.
    func refuse(_ head: HTTPRequest, with response: HTTPResponse, on connection: HTTPConnection) {
        connection.parser.reset()
        core.metrics.requestStarted()
        let requestID = Self.validRequestID(head.headers["X-Request-Id"]) ?? core.makeRequestID()
        finish(Completion(connectionID: connection.id, fd: connection.fd, request: head,
                          label: core.responder.match(head).label, response: response,
                          started: connection.bodyStartedAt ?? now, keepAlive: false, requestID: requestID),
               on: connection)
    }
}
