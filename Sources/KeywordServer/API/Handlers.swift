// The API's handlers: each turns a request into a response or throws an APIError.
import Foundation
import HTTPCore
import KeywordService
import StrictJSON

#if canImport(Glibc)
import Glibc
#endif

final class Handlers: Sendable {
    let configuration: APIConfiguration
    let state: EngineState
    let metrics: ServerMetrics
    let feedbackCounts = FeedbackCounters()
    let queueCounters = QueueCounters()
    private let healthBody: [UInt8] = Array(#"{"status":"ok"}"#.utf8)
    private let pageBody: [UInt8] = Array(AdminPage.html.utf8)
    private let openAPIBody: [UInt8] = Array(OpenAPIDocument.json.utf8)

    init(configuration: APIConfiguration, state: EngineState, metrics: ServerMetrics) {
        self.configuration = configuration
        self.state = state
        self.metrics = metrics
    }

    private var limits: APILimits { configuration.limits }
    /// The most JSON values each route's body may hold (see `ValueCaps`).
    var valueCaps: ValueCaps { ValueCaps(configuration.limits) }

    private func engine() throws(APIError) -> any SuggestionEngine {
        switch state.current {
        case .ready(let engine): return engine
        case .loading: throw APIError.notReady
        case .failed: throw APIError.modelUnavailable
        }
    }

    // MARK: Static routes

    func health() -> HTTPResponse { .json(.ok, healthBody) }

    func ready() -> HTTPResponse {
        switch state.current {
        case .ready(let engine):
            var json = JSONWriter()
            json.object { json in
                json.field("status", string: "ready")
                json.field("model", string: engine.modelVersion)
                if let store = state.store {
                    json.field("store", string: store.isAvailable ? "ok" : "unavailable")
                    json.field("store_kind", string: store.kind)
                }
            }
            return .json(.ok, json.bytes)
        case .loading:
            return APIError.notReady.response
        case .failed:
            return APIError.modelUnavailable.response
        }
    }

    func adminPage() -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/html; charset=utf-8")
        headers.add("Cache-Control", "no-cache")
        headers.add("Content-Security-Policy", "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'")
        return HTTPResponse(status: .ok, headers: headers, body: pageBody)
    }

    func openAPI() -> HTTPResponse { .json(.ok, openAPIBody) }

    func metricsText() -> HTTPResponse {
        var text = metrics.render()
        text += "# HELP kwsuggest_model_ready 1 once the model is loaded.\n# TYPE kwsuggest_model_ready gauge\n"
        switch state.current {
        case .ready(let engine):
            text += "kwsuggest_model_ready 1\n"
            text += "# HELP kwsuggest_model_info The loaded model.\n# TYPE kwsuggest_model_info gauge\n"
            text += "kwsuggest_model_info{version=\"\(ServerMetrics.label(engine.modelVersion))\"} 1\n"
            let list = engine.keywordList()
            text += "# HELP kwsuggest_keywords Keywords currently served.\n# TYPE kwsuggest_keywords gauge\n"
            text += "kwsuggest_keywords{version=\"\(ServerMetrics.label(list.version))\"} \(list.keywords.count)\n"
            if let seconds = state.modelLoadSeconds {
                text += "# HELP kwsuggest_model_load_seconds Time the model took to load.\n# TYPE kwsuggest_model_load_seconds gauge\n"
                text += "kwsuggest_model_load_seconds \(seconds)\n"
            }
        case .loading, .failed:
            text += "kwsuggest_model_ready 0\n"
        }
        if let store = state.store {
            text += "# HELP kwsuggest_store_up 1 while the store of keyword changes and feedback can be reached.\n"
            text += "# TYPE kwsuggest_store_up gauge\n"
            text += "kwsuggest_store_up{kind=\"\(store.kind)\"} \(store.isAvailable ? 1 : 0)\n"
        }
        text += feedbackCounts.render()
        text += queueCounters.render(try? state.queue?.stats())
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        return HTTPResponse(status: .ok, headers: headers, body: Array(text.utf8))
    }

    // MARK: Suggestions

    /// The fields of a suggestion request in text form (a query string or a form body).
    private static let textFields: Set<String> = ["name", "k", "explain"]

    func suggestFromBody(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        if try RequestDecoding.bodyFormat(request, form: true) == .form {
            let fields = try RequestDecoding.form(request, allowed: Self.textFields)
            return try suggest(try textInput(fields, missingName: "add name=<product name> to the form"))
        }
        let fields = try RequestDecoding.object(request, maxValues: valueCaps.suggest)
        try RequestDecoding.onlyFields(fields, ["name", "k", "explain"])
        let input = SuggestInput(name: try RequestDecoding.name(fields["name"], limits: limits),
                                 k: try RequestDecoding.k(fields["k"], limits: limits),
                                 explain: try RequestDecoding.flag(fields["explain"], field: "explain", code: .invalidExplain))
        return try suggest(input)
    }

    func suggestFromQuery(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        try suggest(try textInput(try RequestDecoding.query(request.query, allowed: Self.textFields), missingName: "add ?name=<product name>"))
    }

    /// A suggestion request from text fields (a query string or a form body): `name`, `k`, `explain`.
    private func textInput(_ fields: [String: String], missingName: String) throws(APIError) -> SuggestInput {
        guard let rawName = fields["name"] else { throw .badRequest(.missingName, missingName) }
        var k = limits.defaultK
        if let text = fields["k"] {
            guard let number = RequestDecoding.number(text) else {
                throw .badRequest(.invalidK, "'k' must be an integer from 1 to \(limits.maxK)")
            }
            k = try RequestDecoding.k(number, limits: limits)
        }
        var explain = false
        if let text = fields["explain"] {
            switch text.lowercased() {
            case "", "1", "true", "yes": explain = true
            case "0", "false", "no": explain = false
            default: throw .badRequest(.invalidExplain, "'explain' must be true or false")
            }
        }
        return SuggestInput(name: try RequestDecoding.name(rawName, limits: limits), k: k, explain: explain)
    }

    /// A score that is not a number means a damaged model, never an answer: 500, and the log says why.
    static func checkFinite(_ result: SuggestionResult) throws(APIError) {
        guard result.suggestions.contains(where: { !$0.score.isFinite }) else { return }
        Syscall.writeAll(2, Array("{\"event\":\"non_finite_score\",\"name\":\(quoted(String(result.name.prefix(200))))}\n".utf8))
        throw APIError(.internalServerError, .internalError, "the model produced a score that is not a number; see the server log")
    }

    private func suggest(_ input: SuggestInput) throws(APIError) -> HTTPResponse {
        let engine = try engine()
        let result = engine.suggest(input.name, k: input.k, explain: input.explain)
        try Self.checkFinite(result)
        var json = JSONWriter(capacity: 256 + input.name.utf8.count)
        json.object { json in
            json.field("name", string: input.name)
            if input.explain, let tokens = result.tokens {
                json.field("tokens") { json in json.array { json in for token in tokens { json.string(token) } } }
            }
            json.field("suggestions") { json in Self.writeSuggestions(result.suggestions, explain: input.explain, into: &json) }
            Self.writeVerdict(result, into: &json)
            json.field("model", string: engine.modelVersion)
        }
        return .json(.ok, json.bytes)
    }

    /// `auto_accept`, and `reason` when there are no suggestions.
    static func writeVerdict(_ result: SuggestionResult, into json: inout JSONWriter) {
        json.field("auto_accept", bool: result.autoAccept)
        if let reason = result.reason { json.field("reason", string: reason.rawValue) }
    }

    static func writeSuggestions(_ suggestions: [Suggestion], explain: Bool, into json: inout JSONWriter) {
        json.array { json in
            for suggestion in suggestions {
                json.object { json in
                    json.field("keyword", string: suggestion.keyword)
                    json.field("score") { $0.number(suggestion.score) }
                    if let confidence = suggestion.confidence { json.field("confidence", number: (confidence * 1e6).rounded() / 1e6) }
                    if explain, let weights = suggestion.weights {
                        json.field("weights") { json in
                            json.array { json in
                                for weight in weights {
                                    json.object { json in
                                        json.field("token", string: weight.token)
                                        json.field("weight") { $0.number(weight.weight) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    func batch(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let fields = try RequestDecoding.object(request, maxValues: valueCaps.batch)
        try RequestDecoding.onlyFields(fields, ["names", "k", "explain"])
        guard let namesValue = fields["names"] else { throw .badRequest(.missingNames, "'names' is required") }
        guard namesValue != .null else { throw .badRequest(.invalidNames, "'names' must be an array of strings") }
        let rawNames = try RequestDecoding.strings(namesValue, field: "names", code: .invalidNames)
        guard rawNames.count <= limits.maxBatchNames else {
            throw .badRequest(.batchTooLarge, "at most \(limits.maxBatchNames) names per batch")
        }
        var names: [String] = []
        names.reserveCapacity(rawNames.count)
        for (index, raw) in rawNames.enumerated() {
            names.append(try RequestDecoding.name(raw, field: "names[\(index)]", limits: limits))
        }
        let k = try RequestDecoding.k(fields["k"], limits: limits)
        let explain = try RequestDecoding.flag(fields["explain"], field: "explain", code: .invalidExplain)
        let most = explain ? limits.maxBatchExplainedSuggestions : limits.maxBatchSuggestions
        guard names.count * k <= most else {
            throw .badRequest(.batchTooLarge, "names × k is \(names.count * k); at most \(most)\(explain ? " with explain" : "") per batch")
        }
        let engine = try engine()
        var json = JSONWriter(capacity: 64 + names.count * 200)
        var overflow = false
        var failure: APIError?
        json.object { json in
            json.field("results") { json in
                json.array { json in
                    for name in names where !overflow && failure == nil {
                        if json.bytes.count > limits.maxBatchResponseBytes {
                            overflow = true
                            break
                        }
                        let result = engine.suggest(name, k: k, explain: explain)
                        do throws(APIError) { try Self.checkFinite(result) } catch {
                            failure = error
                            break
                        }
                        json.object { json in
                            json.field("name", string: name)
                            if explain, let tokens = result.tokens {
                                json.field("tokens") { json in json.array { json in for token in tokens { json.string(token) } } }
                            }
                            json.field("suggestions") { json in Self.writeSuggestions(result.suggestions, explain: explain, into: &json) }
                            Self.writeVerdict(result, into: &json)
                        }
                    }
                }
            }
            json.field("model", string: engine.modelVersion)
        }
        if let failure { throw failure }
        guard !overflow && json.bytes.count <= limits.maxBatchResponseBytes else {
            throw APIError(.contentTooLarge, .responseTooLarge,
                           "the answer would exceed \(limits.maxBatchResponseBytes) bytes; send fewer names or a smaller k")
        }
        return .json(.ok, json.bytes)
    }

    // MARK: Keywords

    /// The whole list, or with `offset`, `limit` or `prefix` one page of the keywords that start with `prefix`
    /// (in list order); `count` is always the whole list's length, `matched` the number with the prefix.
    func keywords(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let query = try RequestDecoding.query(request.query, allowed: ["offset", "limit", "prefix"])
        let list = try engine().keywordList()
        guard !query.isEmpty else { return keywordResponse(list) }
        func integer(_ name: String, default value: Int, range: ClosedRange<Int>) throws(APIError) -> Int {
            try RequestDecoding.integer(query, name, default: value, range: range, code: .invalidPage,
                                        message: "'\(name)' must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        let offset = try integer("offset", default: 0, range: 0...Int(Int32.max))
        let limit = try integer("limit", default: min(1000, limits.maxKeywordPage), range: 1...limits.maxKeywordPage)
        let prefix = query["prefix"] ?? ""
        // No keyword is longer than this, and the schema's maxLength keeps every page URL under the URI limit.
        guard RequestDecoding.fitsCodePoints(prefix, limits.maxKeywordCharacters + limits.maxPaddingCharacters) else {
            throw .badRequest(.invalidPage, "'prefix' is at most \(limits.maxKeywordCharacters + limits.maxPaddingCharacters) characters (Unicode code points)")
        }
        let matching = prefix.isEmpty ? list.keywords : KeywordList(list.keywords.filter { $0.hasPrefix(prefix) })
        let page = matching.dropFirst(offset).prefix(limit)
        var json = JSONWriter(capacity: 128 + page.count * 16)
        json.object { json in
            json.field("keywords") { json in json.array { json in for keyword in page { json.string(keyword) } } }
            json.field("count", int: list.keywords.count)
            json.field("version", string: list.version)
            json.field("matched", int: matching.count)
            json.field("offset", int: offset)
            json.field("limit", int: limit)
        }
        var response = HTTPResponse.json(.ok, json.bytes)
        response.headers.add("ETag", "\"\(list.version)\"")
        return response
    }

    /// The list, with its version as a strong ETag (`"<version>"`) for `If-Match` on the next change.
    private func keywordResponse(_ list: KeywordListSnapshot) -> HTTPResponse {
        var json = JSONWriter(capacity: 64 + list.keywords.count * 16)
        json.object { json in
            json.field("keywords") { json in json.array { json in for keyword in list.keywords { json.string(keyword) } } }
            json.field("count", int: list.keywords.count)
            json.field("version", string: list.version)
        }
        var response = HTTPResponse.json(.ok, json.bytes)
        response.headers.add("ETag", "\"\(list.version)\"")
        return response
    }

    /// `If-Match: "<version>"` (or a bare version) → the version a change must be made against; `*` or
    /// no header → no check. A list of several tags is refused: a keyword list has one current version.
    static func expectedVersion(_ request: HTTPRequest) throws(APIError) -> String? {
        guard let header = request.headers["If-Match"]?.trimmingCharacters(in: .whitespaces), !header.isEmpty, header != "*" else { return nil }
        var tag = Substring(header)
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.hasPrefix("\""), tag.hasSuffix("\""), tag.count >= 2 { tag = tag.dropFirst().dropLast() }
        guard !tag.isEmpty, !tag.contains(","), !tag.contains("\"") else {
            throw .badRequest(.invalidIfMatch, "If-Match must be one entity tag, the \"version\" of GET /v1/keywords")
        }
        return String(tag)
    }

    func updateKeywords(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        try RequestDecoding.authorize(request, token: configuration.adminToken)
        let fields = try RequestDecoding.object(request, maxValues: valueCaps.keywords)
        try RequestDecoding.onlyFields(fields, ["add", "remove", "actor"])
        let add = try cleanKeywords(try RequestDecoding.strings(fields["add"], field: "add", code: .invalidAdd), field: "add")
        let remove = try cleanKeywords(try RequestDecoding.strings(fields["remove"], field: "remove", code: .invalidRemove), field: "remove")
        guard add.count + remove.count <= limits.maxKeywordChanges else {
            throw .badRequest(.tooManyKeywords, "at most \(limits.maxKeywordChanges) keywords per change")
        }
        let change = KeywordChange(add: add, remove: remove, expectedVersion: try Self.expectedVersion(request),
                                   requestID: request.headers["X-Request-Id"].map { String($0.prefix(200)) },
                                   actor: try FeedbackDecoding.label(fields["actor"], field: "actor", code: .invalidActor))
        let engine = try engine()
        // An empty change changes nothing: the answer is the current list, and nothing is written.
        if add.isEmpty && remove.isEmpty { return keywordResponse(engine.keywordList()) }
        // Writes run on their own lane (one worker unless configured otherwise), so the list does not grow
        // between this check and the write.
        let count = engine.keywordList().keywords.count
        let present = engine.listed(add + remove)
        let removing = Set(remove).intersection(present)
        let adding = Set(add).subtracting(present).subtracting(Set(remove))
        let resulting = count - removing.count + adding.count
        guard resulting <= limits.maxKeywords || resulting <= count else {
            throw .badRequest(.keywordListFull, "the list would hold \(resulting) keywords; at most \(limits.maxKeywords) are served (remove some first)")
        }
        do {
            return keywordResponse(try engine.updateKeywords(change))
        } catch KeywordStoreError.versionMismatch(let current) {
            throw APIError(.preconditionFailed, .versionMismatch,
                           "the keyword list changed since version \(change.expectedVersion ?? ""); it is now \(current): reload it and retry",
                           headers: [("ETag", "\"\(current)\"")])
        } catch KeywordStoreError.unavailable {
            throw APIError.storeUnavailable
        } catch {
            // The detail (a path, an errno) goes to the log, not to the client.
            Syscall.writeAll(2, Array("{\"event\":\"keyword_update_failed\",\"error\":\(Self.quoted("\(error)"))}\n".utf8))
            throw APIError(.internalServerError, .keywordUpdateFailed, "the keyword change could not be saved")
        }
    }

    private func cleanKeywords(_ raw: [String], field: String) throws(APIError) -> [String] {
        var result: [String] = []
        for (index, keyword) in raw.enumerated() {
            try RequestDecoding.keywordLength(keyword, field: "\(field)[\(index)]", limits: limits)
            let trimmed = keyword.trimmingCharacters(in: .whitespacesAndNewlines)
            if let problem = KeywordRules.problem(with: trimmed, maxCodePoints: limits.maxKeywordCharacters) {
                throw .badRequest(.invalidKeyword, "'\(field)[\(index)]' \(problem)")
            }
            result.append(trimmed)
        }
        return result
    }

    static func quoted(_ text: String) -> String {
        var json = JSONWriter()
        json.string(text)
        return String(decoding: json.bytes, as: UTF8.self)
    }
}
