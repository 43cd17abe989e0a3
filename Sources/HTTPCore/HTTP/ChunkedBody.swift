// The chunked transfer coding of request bodies (RFC 9112 §7.1), as part of the incremental request parser.
import StrictJSON

extension RequestParser {

    mutating func decodeChunks(_ bytes: [UInt8], _ start: Int, _ current: Head) -> Outcome {
        let end = bytes.count
        while true {
            switch chunkPhase {
            case .size:
                // chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF ; last-chunk = 1*("0") [ chunk-ext ] CRLF
                let lineBegin = start + chunkPosition
                // 16 hex digits, the extension, and CRLF: anything longer is refused before it is buffered.
                let longestLine = 16 + limits.maxChunkExtensionBytes + 2
                guard let lf = bytes[lineBegin..<end].firstIndex(of: 0x0A) else {
                    if end - lineBegin > longestLine { return .failure(chunkLineTooLong()) }
                    return .needMore
                }
                guard lf + 1 - lineBegin <= longestLine else { return .failure(chunkLineTooLong()) }
                var size = 0
                var digits = 0
                var index = lineBegin
                while index < lf, let value = HexDigit.value(bytes[index]) {
                    if digits > 0 || value > 0 { digits += 1 }
                    // Huge sizes are rejected as too large before they can overflow.
                    if digits > 12 { return .failure(tooLargeBody()) }
                    size = size * 16 + value
                    index += 1
                }
                guard index > lineBegin else { return .failure(.bad("chunk size is not hexadecimal", code: .invalidChunk)) }
                // Only a chunk extension (ignored, RFC 9112 §7.1.1), optional whitespace, and the line end may follow.
                var rest = index
                while rest < lf, bytes[rest] == 0x20 || bytes[rest] == 0x09 { rest += 1 }
                if rest < lf && bytes[rest] != UInt8(ascii: ";") && !(bytes[rest] == 0x0D && rest == lf - 1) {
                    return .failure(.bad("chunk size is not hexadecimal", code: .invalidChunk))
                }
                // RFC 9112 §7.1.1: chunk-ext is tokens and quoted strings: no CR (other than the line's own), NUL
                // or other control character.
                let contentEnd = lf > rest && bytes[lf - 1] == 0x0D ? lf - 1 : lf
                if bytes[rest..<contentEnd].contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                    return .failure(.bad("control character in a chunk extension", code: .invalidChunk))
                }
                guard chunkBody.count + size <= bodyLimit else { return .failure(tooLargeBody()) }
                chunkPosition = lf + 1 - start
                if let error = framingOverrun(current) { return .failure(error) }
                chunkPhase = size == 0 ? .trailers(bytes: 0) : .data(remaining: size)
            case .data(let remaining):
                let from = start + chunkPosition
                let available = min(remaining, end - from)
                if available > 0 {
                    chunkBody.append(contentsOf: bytes[from..<(from + available)])
                    chunkPosition += available
                }
                if available < remaining {
                    chunkPhase = .data(remaining: remaining - available)
                    return .needMore
                }
                chunkPhase = .dataEnd
            case .dataEnd:
                let from = start + chunkPosition
                guard from < end else { return .needMore }
                if bytes[from] == 0x0A {
                    chunkPosition += 1
                } else if bytes[from] == 0x0D {
                    guard from + 1 < end else { return .needMore }
                    guard bytes[from + 1] == 0x0A else { return .failure(.bad("chunk data not followed by CRLF", code: .invalidChunk)) }
                    chunkPosition += 2
                } else {
                    return .failure(.bad("chunk data longer than its size", code: .invalidChunk))
                }
                chunkPhase = .size
            case .trailers(let seen):
                // RFC 9112 §7.1.2: trailer-section = *( field-line CRLF ) CRLF; fields are read and dropped.
                let lineBegin = start + chunkPosition
                guard let lf = bytes[lineBegin..<end].firstIndex(of: 0x0A) else {
                    if seen + (end - lineBegin) > limits.maxHeaderBytes { return .failure(tooLargeHeaders()) }
                    return .needMore
                }
                let length = lf - lineBegin
                let total = seen + length + 1
                guard total <= limits.maxHeaderBytes else { return .failure(tooLargeHeaders()) }
                chunkPosition = lf + 1 - start
                if let error = framingOverrun(current) { return .failure(error) }
                let isLast = length == 0 || (length == 1 && bytes[lineBegin] == 0x0D)
                if !isLast, let error = Self.fieldLineError(bytes[lineBegin..<(bytes[lf - 1] == 0x0D ? lf - 1 : lf)]) {
                    return .failure(error)
                }
                if isLast {
                    var request = current.request
                    request.body = chunkBody
                    let consumed = chunkPosition
                    reset()
                    return .request(request, consumed: consumed)
                }
                chunkPhase = .trailers(bytes: total)
            }
        }
    }

    func chunkLineTooLong() -> HTTPParseError {
        .bad("a chunk-size line is longer than 16 hex digits and a \(limits.maxChunkExtensionBytes)-byte extension",
             code: .invalidChunk)
    }

    /// The raw bytes of a chunked body stay buffered until the request completes, so framing is bounded too:
    /// raw ≤ 2 × decoded + `maxChunkFramingBytes` (a 1-byte chunk costs 6 raw bytes; heavier framing is abuse).
    func framingOverrun(_ current: Head) -> HTTPParseError? {
        let raw = chunkPosition - current.bodyStart
        guard raw > 2 * chunkBody.count + limits.maxChunkFramingBytes else { return nil }
        return HTTPParseError(status: .contentTooLarge, code: .bodyTooLarge,
                              message: "the chunked framing exceeds the body by more than \(limits.maxChunkFramingBytes) bytes")
    }
}
