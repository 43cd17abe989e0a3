// Plain value types for HTTP messages: method, status, headers, request, response.

/// An HTTP request method (RFC 9110 §9). Case-sensitive, as the RFC says.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let get = HTTPMethod("GET")
    public static let head = HTTPMethod("HEAD")
    public static let post = HTTPMethod("POST")
    public static let put = HTTPMethod("PUT")
    public static let delete = HTTPMethod("DELETE")
    public static let options = HTTPMethod("OPTIONS")
}

/// A status code with its reason phrase.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    public var code: Int
    public var reason: String
    public init(_ code: Int, _ reason: String) {
        self.code = code
        self.reason = reason
    }
    public var description: String { "\(code) \(reason)" }

    public static let `continue` = HTTPStatus(100, "Continue")
    public static let ok = HTTPStatus(200, "OK")
    public static let noContent = HTTPStatus(204, "No Content")
    public static let badRequest = HTTPStatus(400, "Bad Request")
    public static let unauthorized = HTTPStatus(401, "Unauthorized")
    public static let forbidden = HTTPStatus(403, "Forbidden")
    public static let notFound = HTTPStatus(404, "Not Found")
    public static let methodNotAllowed = HTTPStatus(405, "Method Not Allowed")
    public static let requestTimeout = HTTPStatus(408, "Request Timeout")
    public static let lengthRequired = HTTPStatus(411, "Length Required")
    public static let contentTooLarge = HTTPStatus(413, "Content Too Large")
    public static let uriTooLong = HTTPStatus(414, "URI Too Long")
    public static let unsupportedMediaType = HTTPStatus(415, "Unsupported Media Type")
    public static let expectationFailed = HTTPStatus(417, "Expectation Failed")
    public static let requestHeaderFieldsTooLarge = HTTPStatus(431, "Request Header Fields Too Large")
    public static let internalServerError = HTTPStatus(500, "Internal Server Error")
    public static let notImplemented = HTTPStatus(501, "Not Implemented")
    public static let serviceUnavailable = HTTPStatus(503, "Service Unavailable")
    public static let httpVersionNotSupported = HTTPStatus(505, "HTTP Version Not Supported")
}

/// Header fields in arrival order. Lookup is case-insensitive (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
    }
    public private(set) var fields: [Field] = []

    public init() {}
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.equalNames($0.name, name) }
    }

    /// The first value of `name`, if any.
    public subscript(name: String) -> String? {
        fields.first { Self.equalNames($0.name, name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.equalNames($0.name, name) }.map(\.value)
    }

    /// Whether a comma-separated header (like `Connection`) contains `token`, case-insensitively.
    public func containsToken(_ name: String, _ token: String) -> Bool {
        values(name).contains { value in
            value.split(separator: ",").contains { $0.trimmingSpaces().lowercased() == token }
        }
    }

    public var count: Int { fields.count }
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// ASCII case-insensitive comparison (header names are ASCII tokens).
    static func equalNames(_ a: String, _ b: String) -> Bool {
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            let x = left.next(), y = right.next()
            guard let x, let y else { return x == nil && y == nil }
            if x != y && lowerASCII(x) != lowerASCII(y) { return false }
        }
    }

    @inline(__always) static func lowerASCII(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte | 0x20 : byte
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's OWS).
    public func trimmingSpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}

/// One parsed request. `path` is the raw (still percent-encoded) path; `query` the raw query, if any.
public struct HTTPRequest: Sendable, Equatable {
    public var method: HTTPMethod
    public var target: String
    public var path: String
    public var query: String?
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The id the response's `X-Request-Id` and the access log carry (the client's, when it is a valid one, else
    /// one the server made); set by the server before a handler runs, nil before.
    public var requestID: String?

    public init(method: HTTPMethod, target: String, minorVersion: Int = 1, headers: HTTPHeaders = HTTPHeaders(),
                body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.minorVersion = minorVersion
        self.headers = headers
        self.body = body
        let (path, query) = HTTPRequest.split(target: target)
        self.path = path
        self.query = query
    }

    /// RFC 9112 §9.3: HTTP/1.1 stays open unless `Connection: close`; HTTP/1.0 only with `keep-alive`.
    public var wantsKeepAlive: Bool {
        if minorVersion >= 1 { return !headers.containsToken("Connection", "close") }
        return headers.containsToken("Connection", "keep-alive")
    }

    /// Splits origin-form or absolute-form (RFC 9112 §3.2.1–3.2.2) into path and query.
    static func split(target: String) -> (String, String?) {
        var rest = Substring(target)
        if !rest.hasPrefix("/"), let scheme = rest.range(of: "://") {
            // absolute-form: drop scheme and authority.
            let afterAuthority = rest[scheme.upperBound...]
            rest = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" }).map { afterAuthority[$0...] } ?? "/"
            if rest.hasPrefix("?") { rest = "/" + rest }
        }
        if let mark = rest.firstIndex(of: "?") {
            return (String(rest[..<mark]), String(rest[rest.index(after: mark)...]))
        }
        return (String(rest), nil)
    }
}

/// One response. The writer adds `Date`, `Content-Length` and `Connection` (see `ResponseWriter`).
public struct HTTPResponse: Sendable, Equatable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// A body produced piece by piece instead of `body` (which is then ignored): sent with chunked transfer
    /// coding (to HTTP/1.0 clients: until the connection closes), pulled only as fast as the client reads.
    public var stream: ResponseStream?

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static let jsonContentType = "application/json; charset=utf-8"

    /// A JSON response from already-encoded bytes.
    public static func json(_ status: HTTPStatus = .ok, _ body: [UInt8]) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", jsonContentType)
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
