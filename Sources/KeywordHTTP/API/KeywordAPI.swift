// The router: maps method + path to routes, answers 404/405/OPTIONS, and runs the middlewares.
import APICore
import EventLog
import HTTPCore
import QueueAPI
import StrictJSON

/// Settings of the API layer (the HTTP layer has `ServerConfiguration`).
public struct APIConfiguration: Sendable {
    public var cors = CORSPolicy()
    /// When set, `POST /v1/keywords`, `POST /v1/feedback` and `GET /v1/feedback/export` need
    /// `Authorization: Bearer <token>` (env `KWSUGGEST_ADMIN_TOKEN`).
    public var adminToken: String?
    /// The annotators' tokens (`serve --annotators FILE`): each acts on the queue's routes as its annotator only.
    public var annotators = AnnotatorTokens()
    /// The credentials the queue's routes take.
    public var queueAccess: QueueAccess { QueueAccess(adminToken: adminToken, annotators: annotators) }
    /// The `Host` names writes and the export are served for while they are open (no `adminToken`).
    public var hosts = HostPolicy()
    public var limits = APILimits()
    public init() {}
}

/// The kwsuggest HTTP API as an `HTTPResponder`. Usable without sockets: call `respond(to:)`.
public final class KeywordAPI: HTTPResponder {
    public let configuration: APIConfiguration
    public let state: EngineSlot
    public let metrics: ServerMetrics
    /// Path → method → route. HEAD is answered by the GET route, OPTIONS by the router.
    private let routes: [String: [HTTPMethod: APIRoute]]
    let handlers: KeywordAPIHandlers
    /// The byte cap of each route's body (see `BodyCaps`).
    public let bodyCaps: BodyCaps
    /// The largest of the routes' byte caps: the HTTP layer's `maxBodyBytes` must be at least this.
    public let largestBodyCap: Int
    /// Around every route's handler: the cap on the body as it arrived. The token and the `Host` of open writes
    /// are the plan's guards, decided once on the head (see `admit`).
    private let guards: [any APIMiddleware]
    private let hostCheck: HostGuard
    /// Around every answer, errors and the server's own included (see `decorate`): cache rules, then CORS.
    private let headers: [any APIMiddleware]

    public init(configuration: APIConfiguration, state: EngineSlot, metrics: ServerMetrics) {
        self.configuration = configuration
        self.state = state
        self.metrics = metrics
        let handlers = KeywordAPIHandlers(configuration: configuration, state: state, metrics: metrics)
        self.handlers = handlers
        bodyCaps = BodyCaps(configuration.limits)
        hostCheck = HostGuard(policy: configuration.hosts, writesAreOpen: configuration.adminToken == nil)
        guards = [BodyCapMiddleware()]
        headers = [CORSMiddleware(policy: configuration.cors), NoStoreMiddleware()]
        var table: [String: [HTTPMethod: APIRoute]] = [:]
        for route in Self.routes(handlers, bodyCaps: bodyCaps, valueCaps: ValueCaps(configuration.limits)) {
            table[route.path, default: [:]][route.method] = route
        }
        routes = table
        largestBodyCap = table.values.flatMap(\.values).map(\.bodyCap).max() ?? bodyCaps.suggest
    }

    /// Every route, each with all its facts. Each kind of blocking work has a worker lane named for it
    /// (`WorkLane.apiLanes`): keyword changes, queue writes and feedback never wait behind queued batches or behind
    /// each other, and answers whose size depends on the stored data (keyword pages, the exports) have the bulk
    /// reads lane, off the event loops. Keyword changes, feedback and its export (annotator
    /// names) need the token when one is set. The annotation queue's routes come from `QueueHandlers.routes`.
    static func routes(_ handlers: KeywordAPIHandlers, bodyCaps: BodyCaps, valueCaps: ValueCaps) -> [APIRoute] {
        func route(_ method: HTTPMethod, _ path: String, lane: WorkLane? = nil, needsToken: Bool = false,
                   bodyCap: Int? = nil, valueCap: Int? = nil, _ handler: @escaping APIRoute.Handler) -> APIRoute {
            APIRoute(method: method, path: path, lane: lane, needsToken: needsToken, bodyCap: bodyCap ?? bodyCaps.suggest,
                     valueCap: valueCap ?? valueCaps.suggest, handler: handler)
        }
        var table = WorkbenchAssets.all.map { asset in
            route(.get, asset.path) { _, _ throws(APIError) in WorkbenchAssets.response(asset) }
        }
        table += [
            route(.get, "/healthz") { _, _ throws(APIError) in handlers.health() },
            route(.get, "/readyz") { _, _ throws(APIError) in handlers.ready() },
            route(.get, "/metrics") { _, _ throws(APIError) in handlers.metricsText() },
            route(.get, "/openapi.json", lane: .bulkReads) { _, _ throws(APIError) in handlers.openAPI() },
            route(.get, "/v1/suggest") { request, _ throws(APIError) in try handlers.suggestFromQuery(request) },
            route(.post, "/v1/suggest", bodyCap: bodyCaps.suggest, valueCap: valueCaps.suggest) { request, route throws(APIError) in
                try handlers.suggestFromBody(request, valueCap: route.valueCap)
            },
            route(.post, "/v1/suggest/batch", lane: .batches, bodyCap: bodyCaps.batch, valueCap: valueCaps.batch) { request, route throws(APIError) in
                try handlers.batch(request, valueCap: route.valueCap)
            },
            route(.get, "/v1/keywords", lane: .bulkReads) { request, _ throws(APIError) in try handlers.keywords(request) },
            route(.post, "/v1/keywords", lane: .keywordWrites, needsToken: true, bodyCap: bodyCaps.keywords,
                  valueCap: valueCaps.keywords) { request, route throws(APIError) in
                try handlers.updateKeywords(request, valueCap: route.valueCap)
            },
            route(.post, "/v1/feedback", lane: .feedback, needsToken: true, bodyCap: bodyCaps.feedback,
                  valueCap: valueCaps.feedback) { request, route throws(APIError) in
                try handlers.postFeedback(request, valueCap: route.valueCap)
            },
            route(.get, "/v1/feedback/export", lane: .bulkReads, needsToken: true) { request, _ throws(APIError) in
                try handlers.exportFeedback(request)
            },
        ]
        table += handlers.queue.routes(limits: handlers.configuration.limits,
                                       bodyless: (bodyCaps.suggest, valueCaps.suggest))
        return table
    }

    /// Every path the router serves, with the methods it has handlers for (HEAD and OPTIONS, which the router
    /// answers for every GET path and every path, are left out). The OpenAPI document must describe exactly these.
    public var routeTable: [String: Set<String>] {
        routes.mapValues { Set($0.keys.map(\.rawValue)) }
    }

    /// The methods `OPTIONS` and `405` name for a path: its routes', HEAD with GET, and OPTIONS.
    private static func allowed(_ methods: [HTTPMethod: APIRoute]) -> [HTTPMethod] {
        var allowed = methods.keys.sorted { $0.rawValue < $1.rawValue }
        if methods[.get] != nil { allowed.append(.head) }
        allowed.append(.options)
        return allowed
    }

    /// The route of `request` (HEAD finds the GET route), if there is one.
    func route(for request: HTTPRequest) -> APIRoute? {
        routes[request.path]?[request.method == .head ? .get : request.method]
    }

    /// The plan for a request, resolved once from its head: the route's label, lane and handler, its guards'
    /// answer (see `admit`), its body limit, and the header middlewares for every answer to it.
    public func plan(for head: HTTPRequest) -> RoutePlan {
        var plan = match(head)
        let route = route(for: head) ?? unmatched(head)
        plan.refusal = admit(head, route: route)
        plan.bodyLimit = route.bodyCap
        plan.finish = { [self] response, request in decorate(&response, for: request, route: route) }
        return plan
    }

    /// An error the HTTP layer answers on its own (a request it could not parse, a timeout, a full server), with
    /// the headers every answer gets.
    public func respond(to error: HTTPParseError) -> HTTPResponse {
        var response = ErrorBody.response(error.status, code: error.code, message: error.message)
        decorate(&response, for: nil)
        return response
    }

    /// The route's label, lane and handler for a request. The token and `Host` guards are not in it: they are the
    /// plan's refusal (see `plan(for:)`), which the server and `respond(to:)` send instead of running the handler.
    /// - Complexity: O(1): one dictionary lookup by path, one by method.
    public func match(_ request: HTTPRequest) -> RoutePlan {
        guard let methods = routes[request.path] else {
            if request.method == .options && request.target == "*" {
                return RoutePlan(label: "*") { _ in
                    var headers = HTTPHeaders()
                    headers.add("Allow", "GET, HEAD, POST, OPTIONS")
                    return HTTPResponse(status: .noContent, headers: headers)
                }
            }
            return RoutePlan(label: "(unmatched)") { request in
                APIError(.notFound, .notFound, "no route for \(request.path.prefix(200))").response
            }
        }
        let path = request.path
        if request.method == .options {
            let cors = configuration.cors
            let allowed = Self.allowed(methods)
            return RoutePlan(label: path) { request in cors.preflight(request, allow: allowed) }
        }
        guard let route = route(for: request) else {
            let allow = Self.allowed(methods).map(\.rawValue).joined(separator: ", ")
            return RoutePlan(label: path) { request in
                APIError(.methodNotAllowed, .methodNotAllowed, "\(request.method) is not allowed on \(request.path)",
                         headers: [("Allow", allow)]).response
            }
        }
        let handler = guards.reversed().reduce(route.handler) { next, middleware in middleware.wrapping(next) }
        return RoutePlan(label: route.path, isBlocking: route.lane != nil, lane: route.lane ?? .general) { request in
            do throws(APIError) {
                return try handler(request, route)
            } catch {
                return error.response
            }
        }
    }

    /// A request to a route that needs the token is refused on its head when the credentials are wrong, so a
    /// client that sent `Expect: 100-continue` gets 401 instead of `100 Continue`, and no unauthorised body is
    /// read; a body longer than its route takes is refused before it is read (the HTTP layer holds chunked bodies
    /// to `bodyLimit(for:)`). These are the route's own guards, run on the head with nothing behind them.
    public func admit(_ head: HTTPRequest) -> HTTPResponse? {
        admit(head, route: route(for: head) ?? unmatched(head))
    }

    private func admit(_ head: HTTPRequest, route: APIRoute) -> HTTPResponse? {
        do throws(APIError) {
            try configuration.queueAccess.authorize(head, route: route)
            try hostCheck.check(head, route: route)
            if let declared = head.headers["Content-Length"].flatMap({ Int(Substring($0).trimmingSpaces()) }),
               declared > route.bodyCap {
                throw BodyCapMiddleware.tooLarge(head.method, head.path, cap: route.bodyCap)
            }
        } catch {
            return error.response
        }
        return nil
    }

    /// What a request without a route is held to: no token (it gets 404 or 405), and the suggest cap, which any
    /// error answer needs.
    private func unmatched(_ request: HTTPRequest) -> APIRoute {
        APIRoute(method: request.method, path: "(unmatched)", lane: nil, needsToken: false, bodyCap: bodyCaps.suggest,
                 valueCap: 0) { request, _ throws(APIError) in
            throw APIError(.notFound, .notFound, "no route for \(request.path.prefix(200))")
        }
    }

    /// What the service's HTTP metric names start with: `kwsuggest_http_requests_total` and the rest. Dashboards
    /// and the alert rules in deploy/ use these names.
    public static let metricsPrefix = "kwsuggest_http"
    /// What the server's thread names start with: `kwsuggest-loop-0`, `kwsuggest-batches-0`, `kwsuggest-keyword-writes-0`.
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
        configuration.limits.maxBodyBytes = max(configuration.limits.maxBodyBytes, largestBodyCap)
        configuration.metricsPrefix = Self.metricsPrefix
        configuration.threadNamePrefix = Self.threadNamePrefix
        configuration.lanes = WorkLane.apiLanes
        configuration.streamLane = .bulkReads
        return configuration
    }

    /// Runs the header middlewares around an answer already made: the server calls this for every answer,
    /// those of routes, of the router (404, 405, OPTIONS), of `admit` and of the HTTP layer itself.
    public func decorate(_ response: inout HTTPResponse, for request: HTTPRequest?) {
        guard let request else {
            if !configuration.cors.allowedOrigins.isEmpty { configuration.cors.decorate(&response, origin: nil) }
            return
        }
        decorate(&response, for: request, route: route(for: request) ?? unmatched(request))
    }

    private func decorate(_ response: inout HTTPResponse, for request: HTTPRequest, route: APIRoute) {
        let chain = headers.reversed().reduce(Self.answering(response)) { next, middleware in middleware.wrapping(next) }
        do throws(APIError) {
            response = try chain(request, route)
        } catch {
            response = error.response
        }
    }

    /// A handler that gives `response` back whatever it is asked.
    private static func answering(_ response: HTTPResponse) -> APIRoute.Handler {
        { (_: HTTPRequest, _: APIRoute) throws(APIError) -> HTTPResponse in response }
    }

    /// Routes and answers a request in-process, without sockets (for tests and tools), by the same plan the
    /// server runs: its refusal when the head is refused, else its handler.
    /// A streamed body is collected whole (a failed one leaves the body empty and is answered 500).
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let plan = plan(for: request)
        var response = plan.refusal ?? EventLog.$requestID.withValue(request.requestID) { plan.handler(request) }
        if let stream = response.stream {
            response.stream = nil
            if let body = stream.collect() {
                response.body = body
            } else {
                response = APIError(.internalServerError, .feedbackExportFailed, "the streamed answer failed").response
            }
        }
        plan.finish(&response, request)
        return response
    }
}
