// Cross-origin rules: which origins may call the API from a browser, and the preflight answer.
import HTTPCore
import StrictJSON

/// Allowed origins, from `--cors-origin` (repeatable) or `KWSUGGEST_CORS_ORIGINS` (comma-separated).
/// `*` allows every origin. No origins (the default) means no CORS headers at all.
public struct CORSPolicy: Sendable, Equatable {
    public var allowedOrigins: [String]
    public static let allowedHeaders = "Content-Type, Authorization, X-Request-Id"
    public static let maxAgeSeconds = 600

    public init(allowedOrigins: [String] = []) {
        self.allowedOrigins = allowedOrigins.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }.filter { !$0.isEmpty }
    }

    /// Parses `KWSUGGEST_CORS_ORIGINS`: origins separated by commas or spaces.
    public static func parse(environment value: String) -> [String] {
        value.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    }

    public func allows(_ origin: String) -> Bool {
        allowedOrigins.contains("*") || allowedOrigins.contains(origin)
    }

    /// Adds `Access-Control-Allow-Origin` to responses for allowed origins, and `Vary: Origin` to every
    /// response (errors and preflights included), since whether the CORS headers appear depends on `Origin`.
    package func decorate(_ response: inout HTTPResponse, origin: String?) {
        if !response.headers.containsToken("Vary", "origin") { response.headers.add("Vary", "Origin") }
        guard let origin, allows(origin) else { return }
        response.headers.add("Access-Control-Allow-Origin", origin)
        response.headers.add("Access-Control-Expose-Headers", "X-Request-Id")
    }

    /// The answer to `OPTIONS` for a known path (Fetch standard, CORS preflight).
    package func preflight(_ request: HTTPRequest, allow methods: [HTTPMethod]) -> HTTPResponse {
        let allowText = methods.map(\.rawValue).joined(separator: ", ")
        guard let origin = request.headers["Origin"], let asked = request.headers["Access-Control-Request-Method"] else {
            // A plain OPTIONS: say what the path supports.
            var headers = HTTPHeaders()
            headers.add("Allow", allowText)
            return HTTPResponse(status: .noContent, headers: headers)
        }
        guard allows(origin) else {
            return APIError(.forbidden, .corsOriginNotAllowed, "the origin '\(origin)' may not call this API").response
        }
        guard methods.contains(HTTPMethod(asked)) else {
            return APIError(.methodNotAllowed, .methodNotAllowed, "\(asked) is not allowed here",
                            headers: [("Allow", allowText)]).response
        }
        var headers = HTTPHeaders()
        headers.add("Access-Control-Allow-Methods", allowText)
        headers.add("Access-Control-Allow-Headers", Self.allowedHeaders)
        headers.add("Access-Control-Max-Age", String(Self.maxAgeSeconds))
        return HTTPResponse(status: .noContent, headers: headers)
    }
}
