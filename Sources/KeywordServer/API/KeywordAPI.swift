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
    /// The byte cap of each route's body (see `BodyCaps`).
    public let bodyCaps: BodyCaps

    public init(configuration: APIConfiguration, state: EngineState, metrics: ServerMetrics) {
        self.configuration = configuration
        self.state = state
        self.metrics = metrics
        let handlers = Handlers(configuration: configuration, state: state, metrics: metrics)
        self.handlers = handlers
        bodyCaps = BodyCaps(configuration.limits)
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
        // The annotation queue: every route reads or writes the store, and all of them carry annotator names.
        let values = handlers.valueCaps
        add(.post, "/v1/queue/items", blocking: true, lane: .reserved, needsToken: true) { request throws(APIError) in
            try handlers.enqueue(request, valueCap: values.queueItems)
        }
        add(.post, "/v1/queue/lease", blocking: true, lane: .reserved, needsToken: true) { request throws(APIError) in
            try handlers.lease(request, valueCap: values.queueLease)
        }
        add(.post, "/v1/queue/decisions", blocking: true, lane: .reserved, needsToken: true) { request throws(APIError) in
            try handlers.decide(request, valueCap: values.queueDecisions)
        }
        add(.post, "/v1/queue/undo", blocking: true, lane: .reserved, needsToken: true) { request throws(APIError) in
            try handlers.undo(request, valueCap: values.queueUndo)
        }
        add(.get, "/v1/queue/stats", blocking: true, needsToken: true) { request throws(APIError) in try handlers.queueStats(request) }
        add(.get, "/v1/labels/export", blocking: true, needsToken: true) { request throws(APIError) in
            try handlers.exportLabels(request)
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
        let cap = bodyCap(method, route.path)
        return RouteMatch(label: route.path, isBlocking: entry.blocking, lane: entry.lane) { request in
            do throws(APIError) {
                // The server refuses larger bodies before reading them; this covers requests answered in-process.
                if request.body.count > cap { throw Self.bodyTooLarge(method, route.path, cap: cap) }
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
        if guardedRoutes.contains("\(head.method.rawValue) \(head.path)") {
            do throws(APIError) {
                try RequestDecoding.authorize(head, token: configuration.adminToken)
            } catch {
                return error.response
            }
        }
        // A body longer than its route takes is refused before it is read (the HTTP layer holds chunked bodies to
        // `bodyLimit(for:)`); this answer names the route's cap.
        let cap = bodyCap(head.method, head.path)
        if let declared = head.headers["Content-Length"].flatMap({ Int(Substring($0).trimmingSpaces()) }), declared > cap {
            return Self.bodyTooLarge(head.method, head.path, cap: cap).response
        }
        return nil
    }

    public func bodyLimit(for head: HTTPRequest) -> Int? { bodyCap(head.method, head.path) }

    /// What the service's HTTP metric names start with: `kwsuggest_http_requests_total` and the rest. Dashboards
    /// and the alert rules in deploy/ use these names.
    public static let metricsPrefix = "kwsuggest_http"
    /// What the server's thread names start with: `kwsuggest-loop-0`, `kwsuggest-worker-0`, `kwsuggest-reserved-0`.
    public static let threadNamePrefix = "kwsuggest"

    /// The HTTP metrics the service counts into and renders on `/metrics`, named with `metricsPrefix`.
    public static func makeMetrics(shards: Int = 1) -> ServerMetrics {
        ServerMetrics(shards: shards, prefix: metricsPrefix)
    }

    /// `configuration` for serving this API: `limits.maxBodyBytes` raised to the largest route cap, so the HTTP
    /// layer's ceiling never refuses a body its route takes (the routes' own caps then apply, on the head), and
    /// the service's metric and thread names.
    public func serverConfiguration(_ configuration: ServerConfiguration) -> ServerConfiguration {
        var configuration = configuration
        configuration.limits.maxBodyBytes = max(configuration.limits.maxBodyBytes, bodyCaps.largest)
        configuration.metricsPrefix = Self.metricsPrefix
        configuration.threadNamePrefix = Self.threadNamePrefix
        return configuration
    }

    /// The most bytes a body of `method path` may have: the route's `BodyCaps` entry; requests without a body in
    /// the API (GET, unknown routes) may carry at most the suggest cap, which any error answer needs.
    func bodyCap(_ method: HTTPMethod, _ path: String) -> Int {
        guard method == .post else { return bodyCaps.suggest }
        switch path {
        case "/v1/suggest/batch": return bodyCaps.batch
        case "/v1/keywords": return bodyCaps.keywords
        case "/v1/feedback": return bodyCaps.feedback
        case "/v1/queue/items": return bodyCaps.queueItems
        case "/v1/queue/lease": return bodyCaps.queueLease
        case "/v1/queue/decisions": return bodyCaps.queueDecisions
        case "/v1/queue/undo": return bodyCaps.queueUndo
        default: return bodyCaps.suggest
        }
    }

    static func bodyTooLarge(_ method: HTTPMethod, _ path: String, cap: Int) -> APIError {
        let hint = method == .post && path == "/v1/suggest" ? "; send long lists to /v1/suggest/batch" : ""
        return APIError(.contentTooLarge, .bodyTooLarge,
                        "a \(method.rawValue) \(path.prefix(100)) body is at most \(cap) bytes (the largest the schema allows)\(hint)")
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
    /// A streamed body is collected whole (a failed one leaves the body empty and is answered 500).
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        var response = match(request).handler(request)
        if let stream = response.stream {
            response.stream = nil
            if let body = stream.collect() {
                response.body = body
            } else {
                response = APIError(.internalServerError, .feedbackExportFailed, "the streamed answer failed").response
            }
        }
        decorate(&response, for: request)
        return response
    }
}
