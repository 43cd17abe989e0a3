// The seam between the HTTP server and the application: a request goes in, a route match comes out.

import StrictJSON

/// Which worker threads run a blocking handler.
public enum WorkLane: Sendable, Equatable {
    /// The shared pool (`ServerConfiguration.blockingWorkers`), for long jobs such as batches.
    case shared
    /// A pool of its own (`ServerConfiguration.reservedWorkers`), for short jobs that must not queue behind
    /// the shared lane's long ones (such as writes).
    case reserved
    /// A third pool (`ServerConfiguration.secondaryWorkers`), for jobs that must not queue behind the shared lane
    /// and that the reserved lane's jobs must not queue behind either (large appends next to small edits).
    case secondary
}

/// How the server should run a matched request.
public struct RouteMatch: Sendable {
    /// The route's template (for example `/v1/suggest`), used as the metrics label; never the raw path.
    public var label: String
    /// True when the handler may block for long (disk sync, big batches): it then runs on a worker thread
    /// instead of the event loop, so other connections on that loop are not held up.
    public var isBlocking: Bool
    /// The worker threads a blocking handler runs on.
    public var lane: WorkLane
    public var handler: @Sendable (HTTPRequest) -> HTTPResponse

    public init(label: String, isBlocking: Bool = false, lane: WorkLane = .shared,
                handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.label = label
        self.isBlocking = isBlocking
        self.lane = lane
        self.handler = handler
    }
}

/// Maps each request to the handler that answers it. Implementations must be thread-safe.
public protocol HTTPResponder: Sendable {
    /// Chooses a handler; requests that match no route get a handler that answers 404 or 405.
    func match(_ request: HTTPRequest) -> RouteMatch
    /// The response for a request the parser rejected (the connection closes after it).
    func respond(to error: HTTPParseError) -> HTTPResponse
    /// Adds headers every response needs (CORS, for example). Called for every response, errors included.
    func decorate(_ response: inout HTTPResponse, for request: HTTPRequest?)
    /// Called once per request as soon as its header section is complete, before any `100 Continue` and before
    /// the body is read (`head.body` is empty then). A response refuses the request (for example 401 when
    /// credentials are missing): it is sent instead of reading the body, and the connection closes after it.
    /// Requests that arrive whole are checked here too, before their handler. Must be quick: it runs on the loop.
    func admit(_ head: HTTPRequest) -> HTTPResponse?
    /// The largest body the route of `head` takes, in bytes (nil: `HTTPLimits.maxBodyBytes`, which also caps this).
    /// A declared `Content-Length` above it is answered 413 on the head, before `100 Continue`; a chunked body
    /// that grows past it gets 413 as soon as it does. Must be quick: it runs on the loop.
    func bodyLimit(for head: HTTPRequest) -> Int?
}

extension HTTPResponder {
    public func respond(to error: HTTPParseError) -> HTTPResponse {
        ErrorBody.response(error.status, code: error.code, message: error.message)
    }
    public func decorate(_ response: inout HTTPResponse, for request: HTTPRequest?) {}
    public func admit(_ head: HTTPRequest) -> HTTPResponse? { nil }
    public func bodyLimit(for head: HTTPRequest) -> Int? { nil }
}

/// Renders `{"error":{"code":"…","message":"…"}}`, the one error body format of this server.
public enum ErrorBody {
    public static func response(_ status: HTTPStatus, code: ErrorCode, message: String) -> HTTPResponse {
        var json = JSONWriter(capacity: 96 + message.utf8.count)
        json.object { json in
            json.field("error") { json in
                json.object { json in
                    json.field("code", string: code.rawValue)
                    json.field("message", string: message)
                }
            }
        }
        return .json(status, json.bytes)
    }
}
