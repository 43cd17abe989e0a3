// An incremental HTTP/1.1 request parser (RFC 9112). It never copies header bytes twice, never trusts a
// length it has not checked against the limits, and reports every malformed input as a status to send.

/// Parses requests one after another from a growing byte buffer.
///
/// Call `parse(_:from:)` whenever bytes arrive, with the offset where the current request starts. It keeps its
/// progress between calls, so each byte is scanned about once even when a client sends one byte at a time.
public struct RequestParser {
    enum Outcome: Equatable {
        /// The buffer holds no complete request yet.
        case needMore
        /// A complete request, and how many bytes from `start` it used.
        case request(HTTPRequest, consumed: Int)
        case failure(HTTPParseError)
    }

    enum Framing {
        case length(Int)
        case chunked
    }

    struct Head {
        var request: HTTPRequest
        var framing: Framing
        /// Offset (from the request start) of the first body byte.
        var bodyStart: Int
    }

    enum ChunkPhase {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailers(bytes: Int)
    }

    let limits: HTTPLimits
    /// Header-phase scan position and the start of the line being scanned (offsets from the request start).
    var scanned = 0
    var lineStart = 0
    /// Empty lines skipped before the request line (RFC 9112 §2.2).
    var leading = 0
    var head: Head?
    var chunkPhase = ChunkPhase.size
    var chunkPosition = 0
    var chunkBody: [UInt8] = []
    /// The body limit of the request being read: `limits.maxBodyBytes`, or a route's own lower cap
    /// (`limitBody(to:)`).
    private(set) var bodyLimit: Int

    init(limits: HTTPLimits) {
        self.limits = limits
        bodyLimit = limits.maxBodyBytes
    }

    /// The body length the current head declares (`Content-Length`); nil for chunked bodies and outside a body.
    var declaredBodyLength: Int? {
        if case .length(let length)? = head?.framing { return length }
        return nil
    }

    /// Lowers the body limit of the request whose head was just parsed to `limit` (a route's cap, never above
    /// `limits.maxBodyBytes`); the error to answer when its declared length is already larger.
    mutating func limitBody(to limit: Int) -> HTTPParseError? {
        bodyLimit = min(limit, limits.maxBodyBytes)
        if let declared = declaredBodyLength, declared > bodyLimit { return tooLargeBody() }
        return nil
    }

    /// True once a request's header section was parsed and its body is still arriving.
    var isReadingBody: Bool { head != nil }

    /// The head (without body) of the request whose body is arriving.
    var currentHead: HTTPRequest? { head?.request }

    /// True while part of a request (at least one byte of it) has been seen.
    var hasPartialRequest: Bool { head != nil || scanned > leading }

    /// Set when the parsed head asked for `Expect: 100-continue` (RFC 9110 §10.1.1) and its body is not complete.
    private(set) var wantsContinue = false

    /// Called by the connection after it sent `100 Continue`.
    mutating func continueSent() { wantsContinue = false }

    mutating func reset() {
        scanned = 0
        lineStart = 0
        leading = 0
        head = nil
        chunkPhase = .size
        chunkPosition = 0
        chunkBody = []
        wantsContinue = false
        bodyLimit = limits.maxBodyBytes
    }

    /// Parses as far as `bytes[start...]` allows.
    /// - Complexity: O(new bytes) per call, plus O(header bytes) once when the header section completes.
    mutating func parse(_ bytes: [UInt8], from start: Int) -> Outcome {
        if head == nil {
            switch scanHead(bytes, start) {
            case .failure(let error): return .failure(error)
            case .needMore: return .needMore
            case .request: break  // head is now set
            }
        }
        guard let current = head else { return .needMore }
        switch current.framing {
        case .length(let length):
            let available = bytes.count - start - current.bodyStart
            guard available >= length else { return .needMore }
            var request = current.request
            let from = start + current.bodyStart
            request.body = Array(bytes[from..<(from + length)])
            let consumed = current.bodyStart + length
            reset()
            return .request(request, consumed: consumed)
        case .chunked:
            return decodeChunks(bytes, start, current)
        }
    }

    // MARK: Header section (RFC 9112 §2.1: start-line *( field-line CRLF ) CRLF)

    private mutating func scanHead(_ bytes: [UInt8], _ start: Int) -> Outcome {
        let end = bytes.count
        var index = start + scanned
        while index < end {
            let byte = bytes[index]
            index += 1
            guard byte == 0x0A else { continue }
            // RFC 9112 §2.2: a recipient MAY recognise a lone LF as a line terminator and ignore a preceding CR.
            let lineEnd = index - 1
            var contentEnd = lineEnd
            if contentEnd > start + lineStart, bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            let isEmpty = contentEnd == start + lineStart
            if isEmpty && lineStart == leading {
                // RFC 9112 §2.2: ignore at least one empty line received before the request-line.
                leading = index - start
                lineStart = leading
                guard leading <= 64 else { return .failure(.bad("too many empty lines before the request line")) }
                continue
            }
            if lineStart == leading, contentEnd - (start + lineStart) > limits.maxURIBytes + 32 {
                // The request line just ended and is longer than any acceptable one: the same bound and answer as
                // while it is still arriving (below), so the status never depends on how the bytes were split
                // into packets (found by fuzz/FuzzTarget.swift).
                return .failure(uriTooLong())
            }
            lineStart = index - start
            if isEmpty {
                scanned = index - start
                return parseHead(bytes, start)
            }
        }
        scanned = index - start
        let used = scanned - leading
        // A CR at the end may be the first half of the line's CRLF, which the complete line does not count.
        let pendingCR = end > start + leading && bytes[end - 1] == 0x0D ? 1 : 0
        if lineStart == leading, used - pendingCR > limits.maxURIBytes + 32 {
            // Still inside the request line: its target is too long (RFC 9112 §3, RFC 9110 §15.5.15).
            return .failure(uriTooLong())
        }
        if used > limits.maxHeaderBytes {
            return .failure(tooLargeHeaders())
        }
        return .needMore
    }

    private func uriTooLong() -> HTTPParseError {
        HTTPParseError(status: .uriTooLong, code: .uriTooLong,
                       message: "the request target is longer than \(limits.maxURIBytes) bytes")
    }

    func tooLargeHeaders() -> HTTPParseError {
        HTTPParseError(status: .requestHeaderFieldsTooLarge, code: .headersTooLarge,
                       message: "the request line and headers exceed \(limits.maxHeaderBytes) bytes")
    }

    /// Splits `bytes[from..<to]` into lines, dropping the CR of each CRLF.
    private func lines(_ bytes: [UInt8], _ from: Int, _ to: Int) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var lineBegin = from
        var index = from
        while index < to {
            if bytes[index] == 0x0A {
                var lineEnd = index
                if lineEnd > lineBegin, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                result.append(bytes[lineBegin..<lineEnd])
                lineBegin = index + 1
            }
            index += 1
        }
        return result
    }

    private mutating func parseHead(_ bytes: [UInt8], _ start: Int) -> Outcome {
        let headEnd = start + scanned
        // An overlong request line was already answered 414 by `scanHead` when its LF arrived.
        if scanned - leading > limits.maxHeaderBytes { return .failure(tooLargeHeaders()) }
        var all = lines(bytes, start + leading, headEnd)
        guard !all.isEmpty else { return .failure(.bad("empty request")) }
        all.removeLast()  // the empty line that ends the section
        let requestLine = all.removeFirst()

        // RFC 9112 §2.2: a bare CR outside the line terminator is invalid.
        for line in all where line.contains(0x0D) { return .failure(.bad("bare CR in a header line")) }
        if requestLine.contains(0x0D) { return .failure(.bad("bare CR in the request line")) }

        // RFC 9112 §3: request-line = method SP request-target SP HTTP-version
        let parts = requestLine.split(separator: 0x20, maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .failure(.bad("the request line must be 'METHOD target HTTP/1.1'")) }
        let methodBytes = parts[0], targetBytes = parts[1], versionBytes = parts[2]
        // RFC 9110 §9.1: method = token
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(Self.isTokenByte) else {
            return .failure(.bad("the method is not a token"))
        }
        guard targetBytes.count <= limits.maxURIBytes else {
            return .failure(HTTPParseError(status: .uriTooLong, code: .uriTooLong,
                                           message: "the request target is longer than \(limits.maxURIBytes) bytes"))
        }
        // RFC 9112 §3.2: the target holds no whitespace or control characters.
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.bad("the request target is empty or holds invalid characters"))
        }
        // RFC 9112 §2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT
        guard versionBytes.count == 8, versionBytes.starts(with: Array("HTTP/".utf8)),
              let major = Self.digit(versionBytes[versionBytes.startIndex + 5]),
              versionBytes[versionBytes.startIndex + 6] == UInt8(ascii: "."),
              let minor = Self.digit(versionBytes[versionBytes.startIndex + 7]) else {
            return .failure(.bad("malformed HTTP version"))
        }
        guard major == 1 else {
            return .failure(HTTPParseError(status: .httpVersionNotSupported, code: .httpVersionNotSupported,
                                           message: "only HTTP/1.0 and HTTP/1.1 are supported"))
        }
        let method = HTTPMethod(String(decoding: methodBytes, as: UTF8.self))
        let target = String(decoding: targetBytes, as: UTF8.self)
        // RFC 9112 §3.2: origin-form, absolute-form, or asterisk-form (OPTIONS only).
        guard target.hasPrefix("/") || target.hasPrefix("http://") || target.hasPrefix("https://")
                || (target == "*" && method == .options) else {
            return .failure(.bad("unsupported request-target form"))
        }

        guard all.count <= limits.maxHeaderCount else {
            return .failure(HTTPParseError(status: .requestHeaderFieldsTooLarge, code: .tooManyHeaders,
                                           message: "more than \(limits.maxHeaderCount) header fields"))
        }
        var headers = HTTPHeaders()
        for line in all {
            if let error = Self.fieldLineError(line) { return .failure(error) }
            let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
            var valueStart = colon + 1, valueEnd = line.endIndex
            while valueStart < valueEnd, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
            while valueEnd > valueStart, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            headers.add(String(decoding: line[line.startIndex..<colon], as: UTF8.self),
                        String(decoding: line[valueStart..<valueEnd], as: UTF8.self))
        }

        var request = HTTPRequest(method: method, target: target, minorVersion: minor, headers: headers)
        request.body = []

        // RFC 9112 §3.2: an HTTP/1.1 request must carry exactly one Host field.
        let hosts = headers.values("Host")
        if minor >= 1 && hosts.count != 1 {
            return .failure(.bad(hosts.isEmpty ? "missing Host header" : "more than one Host header"))
        }
        if hosts.count > 1 { return .failure(.bad("more than one Host header")) }
        if let host = hosts.first, !Self.isValidHost(host) {
            return .failure(.bad("the Host header is not a valid host[:port]"))
        }
        // RFC 9110 §5.3, §11.6.2: Authorization is a singleton field; two credentials are ambiguous.
        if headers.values("Authorization").count > 1 { return .failure(.bad("more than one Authorization header")) }

        let framing: Framing
        switch bodyFraming(headers, minor: minor, method: method) {
        case .failure(let error): return .failure(error)
        case .success(let value): framing = value
        }

        // RFC 9110 §10.1.1: Expect: 100-continue asks for an interim response before the body is sent.
        if let expect = headers["Expect"] {
            guard expect.lowercased() == "100-continue" else {
                return .failure(HTTPParseError(status: .expectationFailed, code: .expectationFailed,
                                               message: "only 'Expect: 100-continue' is supported"))
            }
            if minor >= 1 {
                switch framing {
                case .length(let length): wantsContinue = length > 0 && bytes.count - headEnd < length
                case .chunked: wantsContinue = bytes.count == headEnd
                }
            }
        }
        head = Head(request: request, framing: framing, bodyStart: scanned)
        chunkPosition = scanned
        return .request(request, consumed: 0)
    }

    func tooLargeBody() -> HTTPParseError { Self.bodyTooLarge(limit: bodyLimit) }

    static func bodyTooLarge(limit: Int) -> HTTPParseError {
        HTTPParseError(status: .contentTooLarge, code: .bodyTooLarge, message: "the request body exceeds \(limit) bytes")
    }
}
