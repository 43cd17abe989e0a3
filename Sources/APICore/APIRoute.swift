// A route's facts in one value, and the middleware shape every cross-cutting concern takes.
import HTTPCore

/// One route: everything the router, the admission check, the body limits and the metrics know about it.
public struct APIRoute: Sendable {
    /// A route's handler: the request and the route it matched (its caps, for decoding the body).
    public typealias Handler = @Sendable (HTTPRequest, APIRoute) throws(APIError) -> HTTPResponse

    public var method: HTTPMethod
    /// The path, exact; also the route's metrics label.
    public var path: String
    /// The worker threads a handler that may block runs on; nil: the event loop (quick handlers).
    public var lane: WorkLane?
    /// True when `Authorization: Bearer <token>` is needed once a token is configured.
    public var needsToken: Bool
    /// True when an annotator's token is as good as the admin token here (the queue's routes, see `QueueAccess`).
    public var takesAnnotatorTokens: Bool
    /// The most bytes a body may have (see `BodyCaps`).
    public var bodyCap: Int
    /// The most JSON values a body may hold (see `ValueCaps`); bodyless routes have the suggest cap.
    public var valueCap: Int
    public var handler: Handler

    package init(method: HTTPMethod, path: String, lane: WorkLane?, needsToken: Bool, takesAnnotatorTokens: Bool = false,
                 bodyCap: Int, valueCap: Int, handler: @escaping Handler) {
        self.method = method
        self.path = path
        self.lane = lane
        self.needsToken = needsToken
        self.takesAnnotatorTokens = takesAnnotatorTokens
        self.bodyCap = bodyCap
        self.valueCap = valueCap
        self.handler = handler
    }
}

/// A concern wrapped around handlers (the shape of Hummingbird's middleware): it sees the request and the route,
/// and answers itself, or calls `next` and may change what comes back.
package protocol APIMiddleware: Sendable {
    func handle(_ request: HTTPRequest, route: APIRoute, next: APIRoute.Handler) throws(APIError) -> HTTPResponse
}

extension APIMiddleware {
    /// `handler` with this middleware around it.
    package func wrapping(_ handler: @escaping APIRoute.Handler) -> APIRoute.Handler {
        { request, route throws(APIError) in try self.handle(request, route: route, next: handler) }
    }
}

/// A body longer than the route takes is refused. The server refuses such bodies before reading them (see
/// `KeywordAPI.admit`); this covers requests answered in-process.
package struct BodyCapMiddleware: APIMiddleware {
    package init() {}

    package func handle(_ request: HTTPRequest, route: APIRoute, next: APIRoute.Handler) throws(APIError) -> HTTPResponse {
        if request.body.count > route.bodyCap { throw Self.tooLarge(route.method, route.path, cap: route.bodyCap) }
        return try next(request, route)
    }

    package static func tooLarge(_ method: HTTPMethod, _ path: String, cap: Int) -> APIError {
        let hint = method == .post && path == "/v1/suggest" ? "; send long lists to /v1/suggest/batch" : ""
        return APIError(.contentTooLarge, .bodyTooLarge,
                        "a \(method.rawValue) \(path.prefix(100)) body is at most \(cap) bytes (the largest the schema allows)\(hint)")
    }
}

/// Answers under /v1/ depend on the keyword list, which changes at run time: no cache may store them (a shared
/// cache would otherwise pick its own freshness, RFC 9111 §4.2.2).
package struct NoStoreMiddleware: APIMiddleware {
    package init() {}

    package func handle(_ request: HTTPRequest, route: APIRoute, next: APIRoute.Handler) throws(APIError) -> HTTPResponse {
        var response = try next(request, route)
        if request.path.hasPrefix("/v1/"), response.headers["Cache-Control"] == nil {
            response.headers.add("Cache-Control", "no-store")
        }
        return response
    }
}

/// `Vary: Origin` on every answer, and the allow headers for allowed origins (see `CORSPolicy`).
package struct CORSMiddleware: APIMiddleware {
    package var policy: CORSPolicy

    package init(policy: CORSPolicy) {
        self.policy = policy
    }

    package func handle(_ request: HTTPRequest, route: APIRoute, next: APIRoute.Handler) throws(APIError) -> HTTPResponse {
        var response = try next(request, route)
        if !policy.allowedOrigins.isEmpty { policy.decorate(&response, origin: request.headers["Origin"]) }
        return response
    }
}
