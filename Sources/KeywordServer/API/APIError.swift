// Errors as values: each knows its status and code, and becomes a JSON body in exactly one place.

/// A failure to report to the client. `message` is written for the client and holds no internals.
public struct APIError: Error, Equatable, Sendable {
    public var status: HTTPStatus
    public var code: String
    public var message: String
    public var headers: [(String, String)] = []

    public init(_ status: HTTPStatus, _ code: String, _ message: String, headers: [(String, String)] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public static func == (a: APIError, b: APIError) -> Bool {
        a.status == b.status && a.code == b.code && a.message == b.message
    }

    /// The one place errors become responses.
    public var response: HTTPResponse {
        var response = ErrorBody.response(status, code: code, message: message)
        for (name, value) in headers { response.headers.add(name, value) }
        return response
    }

    static func badRequest(_ code: String, _ message: String) -> APIError { APIError(.badRequest, code, message) }
    static let notReady = APIError(.serviceUnavailable, "not_ready", "the model is still loading; retry shortly",
                                   headers: [("Retry-After", "1")])
    static let storeUnavailable = APIError(.serviceUnavailable, "store_unavailable",
                                           "the keyword store cannot be reached; suggestions still work, retry the change shortly",
                                           headers: [("Retry-After", "1")])
    static let internalError = APIError(.internalServerError, "internal_error", "internal server error")
}

extension HTTPStatus {
    static let created = HTTPStatus(201, "Created")
    static let preconditionFailed = HTTPStatus(412, "Precondition Failed")
}
