// Admission of a request whose body is still arriving: the responder may refuse it on its head, the route's
// body limit applies before the body is read, and large bodies share the server-wide body budget as their bytes
// arrive (503 `server_busy` when it is spent). A refusal answers and closes, since the body is left unread.

extension EventLoop {
    /// Plans a head whose body is still arriving and checks it: the plan's guards, the route's body limit (declared
    /// lengths above it are refused now, chunked bodies are held to it), and the body budget for what arrived with it.
    func admission(_ head: HTTPRequest, on connection: HTTPConnection) -> HTTPResponse? {
        let plan = core.responder.plan(for: head)
        connection.plan = plan
        if let refusal = plan.refusal { return refusal }
        if let limit = plan.bodyLimit, let error = connection.parser.limitBody(to: limit) {
            return core.responder.respond(to: error)
        }
        return reserveBody(for: connection) ? nil : busy()
    }

    /// Holds enough of the body budget for the bytes of the body being read that have actually arrived: what is
    /// buffered for it, and for a chunked body also what the parser decoded so far. A declared `Content-Length`
    /// reserves nothing by itself, so holding budget costs a client the bytes it holds. Bodies up to
    /// `budgetedBodyBytes` hold none. False when the budget is spent.
    func reserveBody(for connection: HTTPConnection) -> Bool {
        let declared = connection.parser.declaredBodyLength
        if let declared, declared <= core.configuration.budgetedBodyBytes { return true }
        let held = connection.unparsedBytes + connection.parser.chunkBody.count
        guard held > core.configuration.budgetedBodyBytes, held > connection.reservedBodyBytes else { return true }
        // Take at least `budgetStep` more at a time, so the budget is not touched on every read, but for a declared
        // body no more than its length (or what is buffered, when that is more): a client holds at most one step
        // more than it sent.
        var more = max(held - connection.reservedBodyBytes, Self.budgetStep)
        if let declared { more = min(more, max(held, declared) - connection.reservedBodyBytes) }
        return reserve(more, for: connection)
    }

    /// Holds `bytes` more of the body budget for `connection`; false (holding nothing more) when they do not fit
    /// while other bodies hold some of it.
    func reserve(_ bytes: Int, for connection: HTTPConnection) -> Bool {
        guard bytes > 0 else { return true }
        guard core.reserveBody(bytes, holding: connection.reservedBodyBytes) else { return false }
        connection.reservedBodyBytes += bytes
        return true
    }

    /// The granularity of body-budget reservations.
    static let budgetStep = 64 * 1024

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
        let plan = connection.plan ?? core.responder.plan(for: head)
        connection.plan = nil
        finish(Completion(connectionID: connection.id, fd: connection.fd, request: head, plan: plan, response: response,
                          started: connection.bodyStartedAt ?? now, keepAlive: false, requestID: requestID),
               on: connection)
    }
}
