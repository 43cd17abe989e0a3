// Errors as values: each knows its status and code, and becomes a JSON body in exactly one place.
import HTTPCore
import StrictJSON

/// A failure to report to the client. `message` is written for the client and holds no internals.
public struct APIError: Error, Equatable, Sendable {
    public var status: HTTPStatus
    public var code: ErrorCode
    public var message: String
    public var headers: [(String, String)] = []

    public init(_ status: HTTPStatus, _ code: ErrorCode, _ message: String, headers: [(String, String)] = []) {
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

    package static func badRequest(_ code: ErrorCode, _ message: String) -> APIError { APIError(.badRequest, code, message) }
    package static let notReady = APIError(.serviceUnavailable, .notReady, "the model is still loading; retry shortly",
                                   headers: [("Retry-After", "1")])
    package static let modelUnavailable = APIError(.serviceUnavailable, .modelUnavailable, "the model failed to load; see the server log")
    package static let storeUnavailable = APIError(.serviceUnavailable, .storeUnavailable,
                                           "the keyword store cannot be reached; suggestions still work, retry shortly",
                                           headers: [("Retry-After", "1")])
    package static let internalError = APIError(.internalServerError, .internalError, "internal server error")
}

extension HTTPStatus {
    package static let created = HTTPStatus(201, "Created")
    package static let preconditionFailed = HTTPStatus(412, "Precondition Failed")
    package static let conflict = HTTPStatus(409, "Conflict")
}
