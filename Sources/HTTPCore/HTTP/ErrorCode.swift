/// A machine-readable error code, the `code` of every error body (`{"error": {"code": …, "message": …}}`).
///
/// Codes are constants, never string literals at the point of use: the HTTP core declares the protocol
/// codes here, and an application declares its own in an extension and lists them for its API document.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

extension ErrorCode {
    public static let bodyTooLarge = ErrorCode("body_too_large")
    public static let conflictingFraming = ErrorCode("conflicting_framing")
    public static let expectationFailed = ErrorCode("expectation_failed")
    public static let headersTooLarge = ErrorCode("headers_too_large")
    public static let httpVersionNotSupported = ErrorCode("http_version_not_supported")
    public static let invalidChunk = ErrorCode("invalid_chunk")
    public static let invalidContentLength = ErrorCode("invalid_content_length")
    public static let lengthRequired = ErrorCode("length_required")
    public static let malformedRequest = ErrorCode("malformed_request")
    public static let requestTimeout = ErrorCode("request_timeout")
    public static let serverFull = ErrorCode("server_full")
    public static let serverBusy = ErrorCode("server_busy")
    public static let shuttingDown = ErrorCode("shutting_down")
    public static let tooManyHeaders = ErrorCode("too_many_headers")
    public static let unsupportedTransferCoding = ErrorCode("unsupported_transfer_coding")
    public static let uriTooLong = ErrorCode("uri_too_long")

    /// Every code the HTTP core itself answers with.
    public static let protocolCodes: [ErrorCode] = [
        .bodyTooLarge,
        .conflictingFraming,
        .expectationFailed,
        .headersTooLarge,
        .httpVersionNotSupported,
        .invalidChunk,
        .invalidContentLength,
        .lengthRequired,
        .malformedRequest,
        .requestTimeout,
        .serverBusy,
        .serverFull,
        .shuttingDown,
        .tooManyHeaders,
        .unsupportedTransferCoding,
        .uriTooLong,
    ]
}
