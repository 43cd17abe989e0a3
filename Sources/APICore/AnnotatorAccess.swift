// Who a queue request acts for: the admin token, or one annotator's token from `serve --annotators FILE`.
import HTTPCore
import Platform
import StoreInterface
import TeamQueue
import StrictJSON

/// The annotators' tokens, kept only as SHA-256 digests: the file that lists them holds no secret. Each line is
/// `name<TAB>sha256 hex of the token`; blank lines and lines starting with `#` are skipped. Names follow the
/// queue's key rules (`QueueRules.key`), so the name a token acts as is the one the queue keeps.
public struct AnnotatorTokens: Sendable, Equatable {
    /// The annotator's name by the hex digest of their token.
    public private(set) var names: [String: String] = [:]

    public init() {}

    public var isEmpty: Bool { names.isEmpty }

    /// The annotators of `text`, or the first line that breaks the format, named as `path:line: reason`.
    public static func parse(_ text: String, path: String) throws(AnnotatorTokensError) -> AnnotatorTokens {
        var tokens = AnnotatorTokens()
        var seen: Set<String> = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            func fail(_ reason: String) -> AnnotatorTokensError {
                AnnotatorTokensError(message: "\(path):\(index + 1): \(reason)")
            }
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) || line.hasPrefix("#") { continue }
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw fail("expected 'name<TAB>sha256 hex of the token'") }
            let name: String
            do {
                name = try QueueRules.key(String(parts[0]), field: "name")
            } catch {
                throw fail(error.message)
            }
            let digest = parts[1].lowercased()
            guard digest.utf8.count == 64, digest.utf8.allSatisfy({ HexDigit.value($0) != nil }) else {
                throw fail("the digest must be 64 hex digits (the SHA-256 of the token)")
            }
            guard seen.insert(name).inserted else { throw fail("annotator '\(name)' is listed twice") }
            guard tokens.names.updateValue(name, forKey: digest) == nil else {
                throw fail("this digest is listed for two annotators")
            }
        }
        return tokens
    }

    /// Adds one annotator with the digest of `token` (tests and tools build lists this way).
    public mutating func add(_ name: String, token: String) {
        names[SHA256.hex(Array(token.utf8))] = QueueRules.canonicalKey(name)
    }

    /// The annotator whose token is `token`, or nil.
    public func annotator(bearing token: String) -> String? {
        names[SHA256.hex(Array(token.utf8))]
    }
}

/// A line of the annotators file that breaks its format.
public struct AnnotatorTokensError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Whom a queue request acts for.
public enum QueueCaller: Sendable, Equatable {
    /// The admin token, or no token where none is configured: every right, as any annotator.
    case admin
    /// An annotator's token: acts as that annotator only.
    case annotator(String)

    /// Refuses a body that names another annotator than the token's: 403 `wrong_annotator`.
    public func check(acting annotator: String) throws(APIError) {
        guard case .annotator(let name) = self, name != QueueRules.canonicalKey(annotator) else { return }
        throw APIError(.forbidden, .wrongAnnotator,
                       "this token is annotator '\(name.prefix(200))''s; it cannot act as '\(annotator.prefix(200))'")
    }
}

/// The credentials the queue's routes take: the admin token, and the annotators' tokens.
public struct QueueAccess: Sendable {
    public var adminToken: String?
    public var annotators: AnnotatorTokens

    public init(adminToken: String?, annotators: AnnotatorTokens) {
        self.adminToken = adminToken
        self.annotators = annotators
    }

    /// Refuses `request` when `route` needs credentials it lacks: the admin token, or on the queue's routes
    /// (`takesAnnotatorTokens`) an annotator's token as well. Run once on the request's head.
    public func authorize(_ request: HTTPRequest, route: APIRoute) throws(APIError) {
        guard route.needsToken else { return }
        if route.takesAnnotatorTokens {
            _ = try caller(of: request)
        } else {
            try RequestDecoding.authorize(request, token: adminToken)
        }
    }

    /// Whom `request` acts for. Without annotators, the admin token's rule holds (none configured: open). With
    /// them, a request needs the admin token or an annotator's; anything else is 401.
    public func caller(of request: HTTPRequest) throws(APIError) -> QueueCaller {
        guard !annotators.isEmpty else {
            try RequestDecoding.authorize(request, token: adminToken)
            return .admin
        }
        let unauthorized = APIError(.unauthorized, .unauthorized,
                                    "the queue needs 'Authorization: Bearer <token>': the admin token or an annotator's",
                                    headers: [("WWW-Authenticate", "Bearer")])
        guard let given = RequestDecoding.bearer(request) else { throw unauthorized }
        if let adminToken, !adminToken.isEmpty,
           RequestDecoding.constantTimeEqual(Array(given.utf8), Array(adminToken.utf8)) {
            return .admin
        }
        guard let name = annotators.annotator(bearing: given) else { throw unauthorized }
        return .annotator(name)
    }
}
