// The seam between the HTTP server and the application: a request head goes in, the plan that answers it comes out.

import StrictJSON

/// A group of worker threads that runs blocking handlers, named by the application for the work it runs there
/// (`ServerConfiguration.lanes` says how many threads each has). Jobs queue only behind jobs of their own lane, so
/// work that must not wait behind another kind gets a lane of its own. The server's threads are named after it.
public struct WorkLane: Sendable, Hashable {
    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    /// The lane of a server that declares none: blocking handlers of any kind, and streamed bodies.
    public static let general = WorkLane("worker")
}

/// How the server runs one request, resolved once from its head: the guards' answer on the head, the largest
/// body the route takes, where its handler runs, the handler, and the headers every answer to it gets.
public struct RoutePlan: Sendable {
    /// The route's template (for example `/v1/suggest`), used as the metrics label; never the raw path.
    public var label: String
    /// True when the handler may block for long (disk sync, big batches): it then runs on a worker thread
    /// instead of the event loop, so other connections on that loop are not held up.
    public var isBlocking: Bool
    /// The worker threads a blocking handler runs on.
    public var lane: WorkLane
    /// The answer of the route's guards on the head (for example 401 when credentials are missing), or nil. It is
    /// sent instead of reading the body, and the connection closes after it; requests that arrive whole are
    /// refused with it too, before their handler.
    public var refusal: HTTPResponse?
    /// The largest body the route takes, in bytes (nil: `HTTPLimits.maxBodyBytes`, which also caps this). A
    /// declared `Content-Length` above it is answered 413 on the head, before `100 Continue`; a chunked body that
    /// grows past it gets 413 as soon as it does.
    public var bodyLimit: Int?
    public var handler: @Sendable (HTTPRequest) -> HTTPResponse
    /// Adds the headers every answer to this request needs (CORS, cache rules), errors and refusals included.
    public var finish: @Sendable (inout HTTPResponse, HTTPRequest) -> Void

    public init(label: String, isBlocking: Bool = false, lane: WorkLane = .general, refusal: HTTPResponse? = nil,
                bodyLimit: Int? = nil, finish: @escaping @Sendable (inout HTTPResponse, HTTPRequest) -> Void = { _, _ in },
                handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.label = label
        self.isBlocking = isBlocking
        self.lane = lane
        self.refusal = refusal
        self.bodyLimit = bodyLimit
        self.finish = finish
        self.handler = handler
    }
}

/// Maps each request to the plan that answers it. Implementations must be thread-safe.
public protocol HTTPResponder: Sendable {
    /// The plan for a request, from its head alone (`head.body` is empty when the body is still to come), called
    /// once per request as soon as its header section is complete; requests that match no route get a plan that
    /// answers 404 or 405. Must be quick: it runs on the loop.
    func plan(for head: HTTPRequest) -> RoutePlan
    /// The response for a request the parser rejected or the server refused, with the headers every response
    /// needs; the plan's `finish` is applied after it when the answer belongs to a request.
    func respond(to error: HTTPParseError) -> HTTPResponse
}

extension HTTPResponder {
    public func respond(to error: HTTPParseError) -> HTTPResponse {
        ErrorBody.response(error.status, code: error.code, message: error.message)
    }
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
