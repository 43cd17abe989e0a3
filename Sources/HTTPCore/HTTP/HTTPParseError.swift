// The one error the request parser reports: a status and a code to answer with.

/// Why a request could not be parsed: the status to answer with and an error code for the JSON body.
/// After any parse error the connection is closed, because the message framing can no longer be trusted.
public struct HTTPParseError: Error, Equatable, Sendable {
    public var status: HTTPStatus
    public var code: ErrorCode
    public var message: String

    static func bad(_ message: String, code: ErrorCode = .malformedRequest) -> HTTPParseError {
        HTTPParseError(status: .badRequest, code: code, message: message)
    }
}
