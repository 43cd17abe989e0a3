// The handlers `KeywordAPI`'s routes point at: each turns a request into a response or throws an APIError.
import APICore
import EventLog
import Foundation
import HTTPCore
import Locking
import QueueAPI
import SuggestionRuntime
import StoreInterface
import StrictJSON

#if canImport(Glibc)
import Glibc
#endif

/// Validated input of one suggestion request.
public struct SuggestInput: Equatable, Sendable {
    public var name: String
    public var k: Int
    public var explain: Bool
}

final class KeywordAPIHandlers: Sendable {
    let configuration: APIConfiguration
    let state: EngineSlot
    let metrics: ServerMetrics
    let feedbackCounts = FeedbackCounters()
    /// Feedback exports streaming now (see `APILimits.maxConcurrentExports`).
    let exportSlots: ExportSlots
    /// The annotation queue's routes, on the queue and the engine this state holds.
    let queue: QueueHandlers
    private let healthBody: [UInt8] = Array(#"{"status":"ok"}"#.utf8)
    /// The OpenAPI document for the configured limits.
    /// The OpenAPI document, rendered on its first request (its keyword pattern scans every code point once
    /// per process) and kept.
    private let openAPIBody = Locked<[UInt8]?>(nil)

    init(configuration: APIConfiguration, state: EngineSlot, metrics: ServerMetrics) {
        self.configuration = configuration
        self.state = state
        self.metrics = metrics
        exportSlots = ExportSlots(limit: configuration.limits.maxConcurrentExports)
        queue = QueueHandlers(limits: configuration.limits, access: configuration.queueAccess, queue: { [state] in state.queue },
                              engine: { [state] in state.engine })
    }

    private var limits: APILimits { configuration.limits }

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
                    let failure = state.lastWriteFailure
                    json.field("store", string: !store.isAvailable ? "unavailable" : failure == nil ? "ok" : "write_failed")
                    json.field("store_kind", string: store.kind)
                    if let failure { json.field("last_write_error", string: failure) }
                }
                state.watcher?.writeReadyFields(into: &json)
            }
            return .json(.ok, json.bytes)
        case .loading:
            return APIError.notReady.response
        case .failed:
            return APIError.modelUnavailable.response
        }
    }

    func openAPI() -> HTTPResponse {
        let limits = configuration.limits
        return .json(.ok, openAPIBody.withLock { body in
            if let body { return body }
            let rendered = Array(OpenAPIDocument.json(limits).utf8)
            body = rendered
            return rendered
        })
    }

    func metricsText() -> HTTPResponse {
        var text = PrometheusText()
        metrics.render(into: &text)
        text.family("kwsuggest_model_ready", .gauge, help: "1 once the model is loaded.")
        switch state.current {
        case .ready(let engine):
            text.sample("kwsuggest_model_ready", 1)
            text.family("kwsuggest_model_info", .gauge, help: "The loaded model.")
            text.sample("kwsuggest_model_info", labels: ["version": engine.modelVersion], 1)
            let list = engine.keywordList()
            text.family("kwsuggest_keywords", .gauge, help: "Keywords currently served.")
            text.sample("kwsuggest_keywords", labels: ["version": list.version], list.keywords.count)
            if let seconds = state.modelLoadSeconds {
                text.family("kwsuggest_model_load_seconds", .gauge, help: "Time the model took to load.")
                text.sample("kwsuggest_model_load_seconds", seconds)
            }
        case .loading, .failed:
            text.sample("kwsuggest_model_ready", 0)
        }
        if let store = state.store {
            text.family("kwsuggest_store_up", .gauge, help: "1 while the store of keyword changes and feedback can be reached.")
            text.sample("kwsuggest_store_up", labels: ["kind": store.kind], store.isAvailable ? 1 : 0)
        }
        feedbackCounts.render(into: &text)
        state.watcher?.render(into: &text)
        queue.renderMetrics(into: &text)
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        return HTTPResponse(status: .ok, headers: headers, body: Array(text.text.utf8))
    }

    // MARK: Suggestions

    /// The fields of a suggestion request in text form (a query string or a form body).
    private static let textFields: Set<String> = ["name", "k", "explain"]

    func suggestFromBody(_ request: HTTPRequest, valueCap: Int) throws(APIError) -> HTTPResponse {
        if try RequestDecoding.bodyFormat(request, form: true) == .form {
            let fields = try RequestDecoding.form(request, allowed: Self.textFields)
            return try suggest(try textInput(fields, missingName: "add name=<product name> to the form"))
        }
        let fields = try RequestDecoding.object(request, maxValues: valueCap)
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
        do throws(SuggestionWire.NonFiniteScore) {
            try SuggestionWire.check(result)
        } catch {
            EventLog.record(.error, "non_finite_score", ["name": String(result.name.prefix(200))])
            throw APIError(.internalServerError, .internalError, "the model produced a score that is not a number; see the server log")
        }
    }

    private func suggest(_ input: SuggestInput) throws(APIError) -> HTTPResponse {
        let engine = try engine()
        let result = engine.suggest(input.name, k: input.k, explain: input.explain)
        try Self.checkFinite(result)
        // An answer from the decision memory is not the live model's: the shadow compares models.
        if result.memory == nil { state.watcher?.shadow.offer(name: input.name, liveTop: result.suggestions.first?.keyword) }
        var json = JSONWriter(capacity: 256 + input.name.utf8.count)
        json.object { json in
            SuggestionWire.writeMembers(result, name: input.name, explain: input.explain, into: &json)
            json.field("model", string: engine.modelVersion)
        }
        return .json(.ok, json.bytes)
    }

    func batch(_ request: HTTPRequest, valueCap: Int) throws(APIError) -> HTTPResponse {
        let fields = try RequestDecoding.object(request, maxValues: valueCap)
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
                        json.object { json in SuggestionWire.writeMembers(result, name: name, explain: explain, into: &json) }
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

    /// One page of the keywords that start with `prefix` (all of them without it), in list order: `limit`
    /// keywords (`APILimits.defaultKeywordPage` unless given) from `offset`. `count` is always the whole list's
    /// length, `matched` the number with the prefix, so a client pages until `offset + limit ≥ matched`.
    func keywords(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let query = try RequestDecoding.query(request.query, allowed: ["offset", "limit", "prefix"])
        let list = try engine().keywordList()
        func integer(_ name: String, default value: Int, range: ClosedRange<Int>) throws(APIError) -> Int {
            try RequestDecoding.integer(query, name, default: value, range: range, code: .invalidPage,
                                        message: "'\(name)' must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        let offset = try integer("offset", default: 0, range: 0...Int(Int32.max))
        let limit = try integer("limit", default: min(limits.defaultKeywordPage, limits.maxKeywordPage), range: 1...limits.maxKeywordPage)
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
        // If-Match compares strongly (RFC 9110 §13.1.1): a weak tag can never match, and the list's tags are strong.
        if tag.hasPrefix("W/") {
            throw .badRequest(.invalidIfMatch, "If-Match takes the strong entity tag of GET /v1/keywords, not a weak W/ tag")
        }
        if tag.hasPrefix("\""), tag.hasSuffix("\""), tag.count >= 2 { tag = tag.dropFirst().dropLast() }
        guard !tag.isEmpty, !tag.contains(","), !tag.contains("\"") else {
            throw .badRequest(.invalidIfMatch, "If-Match must be one entity tag, the \"version\" of GET /v1/keywords")
        }
        return String(tag)
    }

    func updateKeywords(_ request: HTTPRequest, valueCap: Int) throws(APIError) -> HTTPResponse {
        let fields = try RequestDecoding.object(request, maxValues: valueCap)
        try RequestDecoding.onlyFields(fields, ["add", "remove", "actor"])
        let sent = KeywordChange(add: try RequestDecoding.strings(fields["add"], field: "add", code: .invalidAdd),
                                 remove: try RequestDecoding.strings(fields["remove"], field: "remove", code: .invalidRemove))
        let checked: KeywordChange
        do {
            checked = try sent.checked(maxCodePoints: limits.maxKeywordCharacters, maxPadding: limits.maxPaddingCharacters)
        } catch {
            throw .badRequest(.invalidKeyword, "\(error)")
        }
        let (requestedAdd, requestedRemove) = (checked.add, checked.remove)
        guard requestedAdd.count + requestedRemove.count <= limits.maxKeywordChanges else {
            throw .badRequest(.tooManyKeywords, "at most \(limits.maxKeywordChanges) keywords per change")
        }
        let expectedVersion = try Self.expectedVersion(request)
        let actor = try RequestDecoding.label(fields["actor"], field: "actor", code: .invalidActor)
        let engine = try engine()
        let present = engine.listed(requestedAdd + requestedRemove)
        // A removal wins over an addition in the same change, and removing a keyword the list does not hold
        // changes nothing, so it is not recorded: the overlay's `removed` stays bounded by the list.
        let requestedRemoval = Set(requestedRemove)
        let removing = requestedRemoval.intersection(present)
        let remove = requestedRemove.filter { removing.contains($0) }
        let add = requestedAdd.filter { !requestedRemoval.contains($0) }
        // An empty change changes nothing: the answer is the current list, and nothing is written; a stale
        // If-Match is still a failed precondition.
        if add.isEmpty && remove.isEmpty {
            let list = engine.keywordList()
            if let expectedVersion, expectedVersion != list.version { throw Self.versionMismatch(expectedVersion, list.version) }
            return keywordResponse(list)
        }
        let change = KeywordChange(add: add, remove: remove, expectedVersion: expectedVersion,
                                   requestID: request.requestID,
                                   actor: actor)
        // The list's size is checked by the engine under the store's lock (`KeywordStoreError.listFull`).
        do {
            let list = try engine.updateKeywords(change)
            state.noteWrite(failure: nil)
            return keywordResponse(list)
        } catch KeywordStoreError.listFull(let count, let limit) {
            throw .badRequest(.keywordListFull, "\(KeywordStoreError.listFull(count: count, limit: limit))")
        } catch KeywordStoreError.versionMismatch(let current) {
            throw Self.versionMismatch(change.expectedVersion ?? "", current)
        } catch KeywordStoreError.unavailable {
            throw APIError.storeUnavailable
        } catch {
            // The detail (a path, an errno) goes to the log, not to the client.
            EventLog.record(.error, "keyword_update_failed", ["error": "\(error)"])
            state.noteWrite(failure: "a keyword change could not be saved (log event keyword_update_failed)")
            throw APIError(.internalServerError, .keywordUpdateFailed, "the keyword change could not be saved")
        }
    }

    /// 412 `version_mismatch`: the list is no longer at the version the client's If-Match names.
    static func versionMismatch(_ expected: String, _ current: String) -> APIError {
        APIError(.preconditionFailed, .versionMismatch,
                 "the keyword list changed since version \(expected); it is now \(current): reload it and retry",
                 headers: [("ETag", "\"\(current)\"")])
    }
}
