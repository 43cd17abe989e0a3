// Turning request bodies and query strings into validated inputs, or into the right 4xx.
import Foundation
import HTTPCore
import StoreInterface
import StrictJSON

/// Limits the API enforces on its inputs.
public struct APILimits: Sendable, Equatable {
    /// Unicode code points in a name after trimming (what JSON Schema's `maxLength` counts), so at most four
    /// times as many UTF-8 bytes. Grapheme clusters would let combining marks through unbounded. Default 1000.
    public var maxNameCharacters = NameRules.maxCodePoints
    /// Unicode code points of white space around a name or a keyword, beyond its own limit: a name is at most
    /// `maxNameCharacters + maxPaddingCharacters` code points as sent (JSON Schema's `maxLength`), so the schema
    /// bounds every string and with it every body (`BodyCaps`). Default 100.
    public var maxPaddingCharacters = NameRules.maxPaddingCodePoints
    /// Largest `k`. Default 50.
    public var maxK = 50
    /// `k` when not given. Default 5.
    public var defaultK = 5
    /// Bytes of a `POST /v1/suggest` body. One name of 1000 code points is at most 12 KB even as JSON `\u`
    /// escapes, so anything past this is padding; it is refused (413) on the request head when the length is
    /// declared, so the loop never parses it. Default 64 KiB.
    public var maxSuggestBodyBytes = 64 * 1024
    /// Names in one batch. Default 1000.
    public var maxBatchNames = 1000
    /// Names × `k` in one batch, which bounds its work and response. Default 10,000.
    public var maxBatchSuggestions = 10_000
    /// Names × `k` in one batch with `explain` (each suggestion then carries a weight per token). Default 1,000.
    public var maxBatchExplainedSuggestions = 1_000
    /// Bytes of one batch response; a batch whose answer grows past it is refused with 413. Default 8 MiB.
    public var maxBatchResponseBytes = 8 * 1024 * 1024
    /// Keywords added plus removed in one `POST /v1/keywords`. Default 10,000.
    public var maxKeywordChanges = 10_000
    /// Keywords in the served list (the model's list with the overlay applied). The engine enforces it under the
    /// store's lock (`serve` builds it with this number); a change that would make the list longer is answered
    /// 400 `keyword_list_full`. Default 50,000.
    public var maxKeywords = KeywordRules.maxKeywords
    /// Keywords in one page of `GET /v1/keywords?limit=`. Default 10,000.
    public var maxKeywordPage = 10_000
    /// Keywords in a page of `GET /v1/keywords` that names no `limit` (at most `maxKeywordPage`); the list is
    /// always paged, so one request costs at most `maxKeywordPage` keywords whatever the list holds. Default 1,000.
    public var defaultKeywordPage = 1000
    /// Unicode code points in one keyword. Default 100.
    public var maxKeywordCharacters = KeywordRules.maxCodePoints
    /// Feedback objects in one `POST /v1/feedback` (`{"items": [...]}`). Default 1000.
    public var maxFeedbackItems = 1000
    /// `GET /v1/feedback/export` answers streaming at once; one more is 503 `server_busy` with `Retry-After`.
    /// Default 8.
    public var maxConcurrentExports = 8

    public init() {}

    /// The limits `FeedbackRules` applies to a posted feedback item.
    package var feedbackLimits: FeedbackRules.Limits {
        var rules = FeedbackRules.Limits()
        rules.maxNameCodePoints = maxNameCharacters
        rules.maxPaddingCodePoints = maxPaddingCharacters
        rules.maxKeywordCodePoints = maxKeywordCharacters
        rules.maxShown = maxK
        return rules
    }
}

package enum RequestDecoding {
    /// How a request body is encoded.
    package enum BodyFormat {
        case json
        /// `application/x-www-form-urlencoded`: what `curl -d 'name=…&k=3'` sends (also Annif's convention).
        case form
    }

    package static let jsonType = "application/json"
    package static let formType = "application/x-www-form-urlencoded"

    /// RFC 9110 §8.3: the body must be `application/json`, or form-encoded where `form` allows it (parameters
    /// allowed; a charset must be UTF-8). A 415 names the header to send.
    package static func bodyFormat(_ request: HTTPRequest, form: Bool = false) throws(APIError) -> BodyFormat {
        let accepted = form ? "'Content-Type: \(jsonType)' or 'Content-Type: \(formType)'" : "'Content-Type: \(jsonType)'"
        guard let type = request.headers["Content-Type"] else {
            throw APIError(.unsupportedMediaType, .unsupportedMediaType, "send the body with the header \(accepted)")
        }
        if type == jsonType { return .json }  // the common case, without allocating
        let parts = type.split(separator: ";").map { $0.trimmingSpaces().lowercased() }
        let format: BodyFormat
        switch parts.first {
        case jsonType?: format = .json
        case formType? where form: format = .form
        default:
            throw APIError(.unsupportedMediaType, .unsupportedMediaType,
                           "send the body with the header \(accepted), not '\(type.prefix(100))'")
        }
        for parameter in parts.dropFirst() where parameter.hasPrefix("charset=") {
            let charset = parameter.dropFirst("charset=".count).trimmingCharacters(in: "\"")
            guard charset == "utf-8" || charset == "utf8" else {
                throw APIError(.unsupportedMediaType, .unsupportedMediaType, "bodies must be UTF-8 (charset=utf-8)")
            }
        }
        return format
    }

    package static func requireJSON(_ request: HTTPRequest) throws(APIError) {
        _ = try bodyFormat(request)
    }

    /// Parses a form-encoded body (`a=1&b=x%20y`, `+` for space) into fields; bad escapes and invalid UTF-8 → 400.
    /// The same rules as query strings (see `query`): unknown and repeated names are 400s.
    package static func form(_ request: HTTPRequest, allowed: Set<String>) throws(APIError) -> [String: String] {
        if let offset = JSONParser.firstInvalidUTF8(request.body) {
            throw .badRequest(.invalidUtf8, "the body is not valid UTF-8 (byte \(offset))")
        }
        return try query(String(decoding: request.body, as: UTF8.self), allowed: allowed)
    }

    /// Parses a JSON object body of at most `maxValues` JSON values (the route's `ValueCaps` entry): past it,
    /// 400 `too_many_values` as soon as the parser gets there.
    package static func object(_ request: HTTPRequest, maxValues: Int) throws(APIError) -> [String: JSONValue] {
        try requireJSON(request)
        let value: JSONValue
        do {
            value = try JSONParser.parse(request.body, maxValues: maxValues)
        } catch {
            if error.isEncoding { throw .badRequest(.invalidUtf8, "the body is not valid UTF-8 (byte \(error.offset))") }
            if let limit = error.valueLimit {
                throw .badRequest(.tooManyValues, "the body holds more than \(limit) JSON values, more than this endpoint's schema allows (byte \(error.offset))")
            }
            if let key = error.duplicateKey {
                throw .badRequest(.duplicateField, "the field '\(key.prefix(64))' is given twice (byte \(error.offset))")
            }
            throw .badRequest(.malformedJson, "the body is not valid JSON: \(error)")
        }
        guard case .object(let fields) = value else { throw .badRequest(.malformedJson, "the body must be a JSON object") }
        return fields
    }

    /// Rejects fields the endpoint does not define (400 `unknown_field`), so a misspelt option such as
    /// `"explian"` is reported instead of silently ignored.
    /// - Complexity: O(fields).
    package static func onlyFields<Value>(_ fields: [String: Value], _ allowed: Set<String>) throws(APIError) {
        guard let unknown = fields.keys.filter({ !allowed.contains($0) }).min() else { return }
        let shown = unknown.count > 64 ? String(unknown.prefix(64)) + "…" : unknown
        let list = allowed.sorted().map { "'\($0)'" }.joined(separator: ", ")
        throw .badRequest(.unknownField, "unknown field '\(shown)'; this endpoint takes \(list)")
    }

    package static func name(_ value: JSONValue?, field: String = "name", limits: APILimits) throws(APIError) -> String {
        guard let value else { throw .badRequest(.missingName, "'\(field)' is required") }
        guard case .string(let raw) = value else { throw .badRequest(.invalidName, "'\(field)' must be a string") }
        return try name(raw, field: field, limits: limits)
    }

    /// A name by `NameRules`, with the API's limits; each problem has its error code.
    package static func name(_ raw: String, field: String = "name", limits: APILimits) throws(APIError) -> String {
        do {
            return try NameRules.checked(raw, maxCodePoints: limits.maxNameCharacters, maxPadding: limits.maxPaddingCharacters)
        } catch {
            let code: ErrorCode
            switch error {
            case .tooLongAsSent, .tooLong: code = .nameTooLong
            case .empty: code = .emptyName
            case .containsNUL: code = .invalidName
            }
            throw .badRequest(code, error.message(field: field))
        }
    }

    /// Whether `text` has at most `limit` Unicode code points (the service's one implementation).
    package static func fitsCodePoints(_ text: String, _ limit: Int) -> Bool {
        KeywordRules.fitsCodePoints(text, limit)
    }

    package static func k(_ value: JSONValue?, limits: APILimits) throws(APIError) -> Int {
        guard let value, value != .null else { return limits.defaultK }
        guard case .number(let literal) = value, case let number = literal.value, number == number.rounded(),
              abs(number) < 1e9 else {
            throw .badRequest(.invalidK, "'k' must be an integer from 1 to \(limits.maxK)")
        }
        return try k(Int(number), limits: limits)
    }

    package static func k(_ number: Int, limits: APILimits) throws(APIError) -> Int {
        guard number >= 1 && number <= limits.maxK else {
            throw .badRequest(.invalidK, "'k' must be an integer from 1 to \(limits.maxK)")
        }
        return number
    }

    package static func flag(_ value: JSONValue?, field: String, code: ErrorCode) throws(APIError) -> Bool {
        guard let value, value != .null else { return false }
        guard case .bool(let flag) = value else { throw .badRequest(code, "'\(field)' must be true or false") }
        return flag
    }

    package static func strings(_ value: JSONValue?, field: String, code: ErrorCode) throws(APIError) -> [String] {
        guard let value, value != .null else { return [] }
        guard case .array(let items) = value else { throw .badRequest(code, "'\(field)' must be an array of strings") }
        var result: [String] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard case .string(let text) = item else { throw .badRequest(code, "'\(field)' must be an array of strings") }
            result.append(text)
        }
        return result
    }

    /// A keyword outside feedback (a queue lease's filter, a queue label): `KeywordRules.cleaned` of a string,
    /// the rule every keyword follows.
    package static func keywordText(_ value: JSONValue?, field: String, limits: APILimits, required: Bool) throws(APIError) -> String? {
        guard let value, value != .null else {
            if required { throw .badRequest(.invalidKeyword, "'\(field)' is required") }
            return nil
        }
        guard case .string(let raw) = value else { throw .badRequest(.invalidKeyword, "'\(field)' must be a string") }
        do {
            return try KeywordRules.cleaned(raw, field: field, maxCodePoints: limits.maxKeywordCharacters,
                                            maxPadding: limits.maxPaddingCharacters)
        } catch {
            throw .badRequest(.invalidKeyword, "\(error)")
        }
    }

    /// An optional label field's string (its value is checked by `FeedbackRules`).
    package static func labelString(_ value: JSONValue?, field: String, code: ErrorCode) throws(APIError) -> String? {
        guard let value, value != .null else { return nil }
        guard case .string(let text) = value else { throw .badRequest(code, "'\(field)' must be a string") }
        return text
    }

    /// An optional short string outside feedback (a keyword change's actor), by `FeedbackRules.label`.
    package static func label(_ value: JSONValue?, field: String, code: ErrorCode) throws(APIError) -> String? {
        guard let text = try labelString(value, field: field, code: code) else { return nil }
        do {
            return try FeedbackRules.label(text, field: field, kind: .model)
        } catch {
            throw .badRequest(code, error.message)
        }
    }

    // MARK: Query strings

    /// `a=1&b=x%20y` → pairs; `+` means space (HTML form encoding). Bad escapes and invalid UTF-8 → 400.
    /// The same rules as JSON bodies: a name given twice → 400 `duplicate_field`; a name outside `allowed` → 400
    /// `unknown_field`, except names starting with `_`, which are ignored (cache busters such as `_=1712`).
    package static func query(_ query: String?, allowed: Set<String>) throws(APIError) -> [String: String] {
        guard let query, !query.isEmpty else { return [:] }
        var result: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = try percentDecode(parts[0])
            let value = parts.count > 1 ? try percentDecode(parts[1]) : ""
            if key.hasPrefix("_") { continue }
            guard allowed.contains(key) else {
                let shown = key.count > 64 ? String(key.prefix(64)) + "…" : key
                let list = allowed.sorted().map { "'\($0)'" }.joined(separator: ", ")
                throw .badRequest(.unknownField, "unknown parameter '\(shown)'; this endpoint takes \(list)")
            }
            guard result.updateValue(value, forKey: key) == nil else {
                throw .badRequest(.duplicateField, "the parameter '\(key)' is given twice")
            }
        }
        return result
    }

    /// An integer query parameter in `range`, else `value` when absent: digits are read exactly, and another
    /// integral JSON number (`5.0`, `1e3`) is accepted below 2^53, where a Double still holds every integer, so
    /// no out-of-range value can round into range. Anything else is a 400 with `code` and `message`.
    package static func integer(_ query: [String: String], _ name: String, default value: Int, range: ClosedRange<Int>,
                        code: ErrorCode, message: String) throws(APIError) -> Int {
        guard let text = query[name] else { return value }
        var parsed: Int?
        if let exact = Int(text) {
            parsed = exact
        } else if let number = number(text), case .number(let literal) = number, let integer = literal.integer(as: Int.self) {
            parsed = integer
        }
        guard let parsed, range.contains(parsed) else { throw .badRequest(code, message) }
        return parsed
    }

    /// A query parameter read as a JSON number, so `k=5.0` means what `"k": 5.0` does (JSON Schema's integer).
    package static func number(_ text: String) -> JSONValue? {
        guard let value = try? JSONParser.parse(Array(text.utf8), maxValues: 1), case .number = value else { return nil }
        return value
    }

    package static func percentDecode(_ text: Substring) throws(APIError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(HexDigit.value),
                      let low = iterator.next().flatMap(HexDigit.value) else {
                    throw .badRequest(.badPercentEncoding, "the query has a malformed %-escape")
                }
                bytes.append(UInt8(high * 16 + low))
            default:
                bytes.append(byte)
            }
        }
        if JSONParser.firstInvalidUTF8(bytes) != nil {
            throw .badRequest(.invalidUtf8, "the query is not valid UTF-8 after %-decoding")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Authorisation

    /// `Authorization: Bearer <token>` compared in constant time (no early exit on the first difference).
    package static func authorize(_ request: HTTPRequest, token: String?) throws(APIError) {
        guard let token, !token.isEmpty else { return }
        let unauthorized = APIError(.unauthorized, .unauthorized, "this change needs 'Authorization: Bearer <token>'",
                                    headers: [("WWW-Authenticate", "Bearer")])
        guard let given = bearer(request) else { throw unauthorized }
        guard constantTimeEqual(Array(given.utf8), Array(token.utf8)) else { throw unauthorized }
    }

    /// The token of `Authorization: Bearer <token>` (the scheme in any case), or nil without one.
    package static func bearer(_ request: HTTPRequest) -> String? {
        guard let header = request.headers["Authorization"] else { return nil }
        let prefix = "bearer "
        guard header.utf8.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix else { return nil }
        return String(header.dropFirst(prefix.count).trimmingSpaces())
    }

    /// Compares every byte of the longer input, so the time depends only on the lengths.
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let length = max(a.count, b.count)
        var difference = UInt(bitPattern: a.count ^ b.count)
        for index in 0..<length {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= UInt(x ^ y)
        }
        return difference == 0
    }
}


extension String {
    package func trimmingCharacters(in text: String) -> String {
        trimmingCharacters(in: CharacterSet(charactersIn: text))
    }
}

extension Substring {
    package func trimmingCharacters(in text: String) -> String {
        String(self).trimmingCharacters(in: CharacterSet(charactersIn: text))
    }
}
