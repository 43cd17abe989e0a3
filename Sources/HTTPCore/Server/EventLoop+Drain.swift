// Ending connections the loop did not choose to keep: deadlines (408 or a silent close), the server's own error
// answers (unparsable requests, timeouts, refusals when full or draining), and drain on shutdown: stop
// accepting, answer what is already in the socket buffers, close idle connections, let in-flight requests finish.
import CSystem
import Sockets

extension EventLoop {
    /// On each timer tick: applies `HTTPConnection.expiry` to every connection.
    func checkDeadlines() {
        let timeouts = HTTPConnection.Timeouts(core.configuration)
        for connection in Array(connections.values) {
            switch connection.expiry(now: now, timeouts: timeouts, draining: draining) {
            case .none: break
            case .close: close(connection)
            case .timeOut(let message): timeOut(connection, message)
            }
        }
    }

    func timeOut(_ connection: HTTPConnection, _ message: String) {
        answerAndClose(connection, HTTPParseError(status: .requestTimeout, code: .requestTimeout, message: message),
                       route: "(timeout)", seconds: Double(now - connection.requestStartedAt) / 1e9)
        flush(connection)
    }

    /// The one way the server itself answers and closes (a request it could not parse, a timeout, a connection
    /// refused when full or draining): rendered by the responder, decorated like every other response (CORS,
    /// cache headers), with a request id, logged and counted, then the connection closes once it is sent.
    func answerAndClose(_ connection: HTTPConnection, _ error: HTTPParseError, route: String, seconds: Double) {
        releaseBody(of: connection)  // the body will not be read further
        var response = core.responder.respond(to: error)
        let requestID = core.makeRequestID()
        response.headers.add("X-Request-Id", requestID)
        writer.write(response, omitBody: false, close: true, into: &connection.outbound)
        connection.state = .closingAfterFlush
        log.record(method: "-", path: "-", status: response.status.code, seconds: seconds, requestID: requestID)
        core.metrics.record(shard: index, route: route, method: "-", status: response.status.code, seconds: seconds)
    }

    /// Stops accepting and closes or answers idle connections; `run()` exits once none is left or time is up.
    func beginDrain() {
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
