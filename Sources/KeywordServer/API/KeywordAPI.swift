// The router: maps method + path to handlers, answers 404/405/OPTIONS, adds CORS headers.
import KeywordService
import HTTPCore
import StrictJSON

/// Settings of the API layer (the HTTP layer has `ServerConfiguration`).
public struct APIConfiguration: Sendable {
    public var cors = CORSPolicy()
    /// When set, `POST /v1/keywords`, `POST /v1/feedback` and `GET /v1/feedback/export` need
    /// `Authorization: Bearer <token>` (env `KWSUGGEST_ADMIN_TOKEN`).
    public var adminToken: String?
    public var limits = APILimits()
    public init() {}
}

/// The kwsuggest HTTP API as an `HTTPResponder`. Usable without sockets: call `respond(to:)`.
public final class KeywordAPI: HTTPResponder {
    public typealias Handler = @Sendable (HTTPRequest) throws(APIError) -> HTTPResponse

    struct Route {
        var path: String
        var methods: [HTTPMethod: (handler: Handler, blocking: Bool, lane: WorkLane)]
        var allowed: [HTTPMethod]
    }

    public let configuration: APIConfiguration
    public let state: EngineState
    public let metrics: ServerMetrics
    private let routes: [String: Route]
    /// "METHOD path" of every route that needs the admin token when one is set; `admit` checks these on the
    /// request head, before `100 Continue` and before any body is read.
    private let guardedRoutes: Set<String>
    let handlers: Handlers

    public init(configuration: APIConfiguration, state: EngineState, metrics: ServerMetrics) {
        self.configuration = configuration
        self.state = state
        self.metrics = metrics
        let handlers = Handlers(configuration: configuration, state: state, metrics: metrics)
        self.handlers = handlers
        var table: [String: [HTTPMethod: (handler: Handler, blocking: Bool, lane: WorkLane)]] = [:]
        var guarded: Set<String> = []
        func add(_ method: HTTPMethod, _ path: String, blocking: Bool = false, lane: WorkLane = .shared,
                 needsToken: Bool = false, _ handler: @escaping Handler) {
            table[path, default: [:]][method] = (handler, blocking, lane)
            if needsToken { guarded.insert("\(method.rawValue) \(path)") }
        }
        add(.get, "/") { _ throws(APIError) in handlers.adminPage() }
        add(.get, "/healthz") { _ throws(APIError) in handlers.health() }
        add(.get, "/readyz") { _ throws(APIError) in handlers.ready() }
        add(.get, "/metrics") { _ throws(APIError) in handlers.metricsText() }
        add(.get, "/openapi.json") { _ throws(APIError) in handlers.openAPI() }
        add(.get, "/v1/suggest") { request throws(APIError) in try handlers.suggestFromQuery(request) }
        add(.post, "/v1/suggest") { request throws(APIError) in try handlers.suggestFromBody(request) }
        add(.post, "/v1/suggest/batch", blocking: true) { request throws(APIError) in try handlers.batch(request) }
        add(.get, "/v1/keywords") { request throws(APIError) in try handlers.keywords(request) }
        // Writes have a worker lane of their own, so they never wait behind queued batches.
        // Keyword changes, feedback and its export (annotator names) need the token when one is set.
        add(.post, "/v1/keywords", blocking: true, lane: .reserved, needsToken: true) { request throws(APIError) in
            try handlers.updateKeywords(request)
        }
        add(.post, "/v1/feedback", blocking: true, lane: .reserved, needsToken: true) { request throws(APIError) in
            try handlers.postFeedback(request)
        }
        add(.get, "/v1/feedback/export", blocking: true, needsToken: true) { request throws(APIError) in
            try handlers.exportFeedback(request)
        }
        var routes: [String: Route] = [:]
        for (path, methods) in table {
            var allowed = methods.keys.sorted { $0.rawValue < $1.rawValue }
            if methods[.get] != nil { allowed.append(.head) }
            allowed.append(.options)
            routes[path] = Route(path: path, methods: methods, allowed: allowed)
        }
        self.routes = routes
        guardedRoutes = guarded
    }

    /// Every path the router serves, with the methods it has handlers for (HEAD and OPTIONS, which the router
    /// answers for every GET path and every path, are left out). The OpenAPI document must describe exactly these.
    public var routeTable: [String: Set<String>] {
        routes.mapValues { Set($0.methods.keys.map(\.rawValue)) }
    }

    /// - Complexity: O(1): one dictionary lookup by path, one by method.
    public func match(_ request: HTTPRequest) -> RouteMatch {
        guard let route = routes[request.path] else {
            if request.method == .options && request.target == "*" {
                return RouteMatch(label: "*") { _ in
                    var headers = HTTPHeaders()
                    headers.add("Allow", "GET, HEAD, POST, OPTIONS")
                    return HTTPResponse(status: .noContent, headers: headers)
                }
            }
            return RouteMatch(label: "(unmatched)") { request in
                APIError(.notFound, .notFound, "no route for \(request.path.prefix(200))").response
            }
        }
        if request.method == .options {
            let cors = configuration.cors
            let allowed = route.allowed
            return RouteMatch(label: route.path) { request in cors.preflight(request, allow: allowed) }
        }
        let method = request.method == .head ? HTTPMethod.get : request.method
        guard let entry = route.methods[method] else {
            let allow = route.allowed.map(\.rawValue).joined(separator: ", ")
            return RouteMatch(label: route.path) { request in
                APIError(.methodNotAllowed, .methodNotAllowed, "\(request.method) is not allowed on \(request.path)",
                         headers: [("Allow", allow)]).response
            }
        }
        let handler = entry.handler
        return RouteMatch(label: route.path, isBlocking: entry.blocking, lane: entry.lane) { request in
            do throws(APIError) {
                return try handler(request)
            } catch {
                return error.response
            }
        }
    }

    /// Requests to the token-guarded routes are refused on their head when the credentials are wrong, so a client that sent
    /// `Expect: 100-continue` gets 401 instead of `100 Continue`, and no unauthorised body is read.
    /// The handler checks again, for requests answered in-process through `respond(to:)`.
    public func admit(_ head: HTTPRequest) -> HTTPResponse? {
        if head.method == .post, head.path == "/v1/suggest" {
            // Suggest runs on the event loop: a body longer than any valid one is refused before it is read.
            guard let declared = head.headers["Content-Length"].flatMap({ Int(Substring($0).trimmingSpaces()) }),
                  declared > configuration.limits.maxSuggestBodyBytes else { return nil }
            return Handlers.suggestBodyTooLarge(configuration.limits).response
        }
        guard guardedRoutes.contains("\(head.method.rawValue) \(head.path)") else { return nil }
        do throws(APIError) {
            try RequestDecoding.authorize(head, token: configuration.adminToken)
            return nil
        } catch {
            return error.response
        }
    }

    public func decorate(_ response: inout HTTPResponse, for request: HTTPRequest?) {
        // Answers under /v1/ depend on the keyword list, which changes at run time: no cache may store them
        // (a shared cache would otherwise pick its own freshness, RFC 9111 §4.2.2).
        if let request, request.path.hasPrefix("/v1/"), response.headers["Cache-Control"] == nil {
            response.headers.add("Cache-Control", "no-store")
        }
        guard !configuration.cors.allowedOrigins.isEmpty else { return }
        configuration.cors.decorate(&response, origin: request?.headers["Origin"])
    }

    /// Routes and answers a request in-process, without sockets (for tests and tools).
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        var response = match(request).handler(request)
        decorate(&response, for: request)
        return response
    }
}
