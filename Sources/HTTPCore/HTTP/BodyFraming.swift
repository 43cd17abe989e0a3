// How long a request body is (RFC 9112 §6): Content-Length, chunked, or none, and every way the two headers can
// disagree or lie. Kept apart from the byte scanning because it is a pure decision on the parsed header fields.

extension RequestParser {
    enum FramingResult {
        case success(Framing)
        case failure(HTTPParseError)
    }

    /// RFC 9112 §6: how long the body is.
    func bodyFraming(_ headers: HTTPHeaders, minor: Int, method: HTTPMethod) -> FramingResult {
        let transferEncodings = headers.values("Transfer-Encoding")
        let lengths = headers.values("Content-Length")
        if !transferEncodings.isEmpty {
            // RFC 9112 §6.1: Transfer-Encoding with Content-Length may be rejected; it smells of smuggling.
            guard lengths.isEmpty else {
                return .failure(.bad("both Transfer-Encoding and Content-Length are present", code: .conflictingFraming))
            }
            // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 request means the framing is faulty.
            guard minor >= 1 else { return .failure(.bad("Transfer-Encoding in an HTTP/1.0 request")) }
            let codings = transferEncodings.joined(separator: ",").split(separator: ",")
                .map { $0.trimmingSpaces().lowercased() }
            // RFC 9112 §6.1: a sender must not apply chunked more than once.
            if codings.filter({ $0 == "chunked" }).count > 1 {
                return .failure(.bad("chunked is applied more than once"))
            }
            // RFC 9112 §6.1/§7: chunked must be last, and it is the only coding this server decodes.
            guard codings == ["chunked"] else {
                if codings.last != "chunked" { return .failure(.bad("chunked must be the final transfer coding")) }
                return .failure(HTTPParseError(status: .notImplemented, code: .unsupportedTransferCoding,
                                               message: "only the chunked transfer coding is supported"))
            }
            return .success(.chunked)
        }
        if !lengths.isEmpty {
            // RFC 9112 §6.3: Content-Length = 1*DIGIT; a list of identical values may be accepted as one.
            var value: Int?
            for item in lengths.joined(separator: ",").split(separator: ",", omittingEmptySubsequences: false) {
                let text = item.trimmingSpaces()
                guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    return .failure(.bad("Content-Length is not a non-negative integer", code: .invalidContentLength))
                }
                let digits = text.drop { $0 == "0" }
                let number = digits.count > 15 ? Int.max : (Int(digits) ?? 0)
                if let earlier = value, earlier != number {
                    return .failure(.bad("conflicting Content-Length values", code: .invalidContentLength))
                }
                value = number
            }
            let length = value ?? 0
            guard length <= limits.maxBodyBytes else { return .failure(tooLargeBody()) }
            return .success(.length(length))
        }
        // RFC 9112 §6.3 (rule 6): no framing means no body. RFC 9110 §15.5.12: a server may demand a length.
        if method == .post || method == .put {
            return .failure(HTTPParseError(status: .lengthRequired, code: .lengthRequired,
                                           message: "a request body needs Content-Length or chunked Transfer-Encoding"))
        }
        return .success(.length(0))
    }
}
