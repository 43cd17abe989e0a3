// POST /v1/feedback and GET /v1/feedback/export: annotator decisions in, training data out.
import APICore
import EventLog
import HTTPCore
import Locking
import QueueAPI
import StoreInterface
import StrictJSON
import TrainingData

extension KeywordAPIHandlers {
    /// The store once opened; 503 while the service is still starting.
    private func store() throws(APIError) -> any KeywordStore {
        guard let store = state.store else { throw APIError.notReady }
        return store
    }

    /// One item (`{"name", "keyword", "action", …}`) → 201 `{"id", "duplicate"}`; `{"items": [...]}` →
    /// 201 `{"ids", "stored", "duplicates"}`. All items are checked before any is stored, and stored all or none.
    func postFeedback(_ request: HTTPRequest, valueCap: Int) throws(APIError) -> HTTPResponse {
        let fields = try RequestDecoding.object(request, maxValues: valueCap)
        var items: [FeedbackItem] = []
        let single = fields["items"] == nil
        if single {
            items.append(try FeedbackDecoding.item(fields, field: "", limits: configuration.limits))
        } else {
            try RequestDecoding.onlyFields(fields, ["items"])
            guard case .array(let values) = fields["items"] ?? .null else {
                throw .badRequest(.invalidItems, "'items' must be an array of feedback objects")
            }
            guard !values.isEmpty else { throw .badRequest(.emptyItems, "'items' needs at least one feedback object") }
            guard values.count <= configuration.limits.maxFeedbackItems else {
                throw .badRequest(.tooManyItems, "at most \(configuration.limits.maxFeedbackItems) items per request")
            }
            for (index, value) in values.enumerated() {
                guard case .object(let itemFields) = value else {
                    throw .badRequest(.invalidItem, "'items[\(index)]' must be an object")
                }
                items.append(try FeedbackDecoding.item(itemFields, field: "items[\(index)].", limits: configuration.limits))
            }
        }
        let store = try store()
        let receipts: [FeedbackReceipt]
        do {
            receipts = try store.appendFeedback(items)
            state.noteWrite(failure: nil)
        } catch .unavailable {
            throw APIError.storeUnavailable
        } catch .clientIDConflict(let clientID, let earlierID) {
            throw APIError(HTTPStatus(409, "Conflict"), .idConflict,
                           "\(KeywordStoreError.clientIDConflict(clientID: clientID, earlierID: earlierID)); nothing of this request was stored")
        } catch {
            EventLog.record(.error, "feedback_failed", ["error": "\(error)"])
            state.noteWrite(failure: "feedback could not be saved (log event feedback_failed)")
            throw APIError(.internalServerError, .feedbackFailed, "the feedback could not be saved")
        }
        let servedModel = state.engine?.modelVersion
        for (item, receipt) in zip(items, receipts) where !receipt.duplicate {
            feedbackCounts.count(item, servedModel: servedModel)
            if item.action != .reject, let live = state.engine {
                state.watcher?.shadow.offerFeedback(name: item.name, keyword: item.keyword, live: live)
            }
        }
        // The decisions answer this replica at once (after the shadow compared the live answer without them); the
        // memory's follower reads them again from the store, and other replicas there, and keeps each id once.
        state.memory?.ingest(zip(items, receipts).filter { !$0.1.duplicate }.map { item, receipt in
            FeedbackRecord(id: receipt.id, receivedAt: "", item: item)
        })
        var json = JSONWriter()
        json.object { json in
            if single, let receipt = receipts.first {
                json.field("id", int: Int(receipt.id))
                json.field("duplicate", bool: receipt.duplicate)
            } else {
                json.field("ids") { json in json.array { json in for receipt in receipts { json.int(Int(receipt.id)) } } }
                json.field("stored", int: receipts.filter { !$0.duplicate }.count)
                json.field("duplicates", int: receipts.filter(\.duplicate).count)
            }
        }
        return .json(.created, json.bytes)
    }


    /// JSON lines of the records after `since`, oldest first, streamed in pages straight from the store: training
    /// data (`{"name","keywords","source"}` for accepts and corrections) by default, every record as stored with
    /// `format=raw`. Without `limit` every record there is when the request arrives; with it at most `limit`.
    /// `Feedback-Last-Id` names the last record the answer covers (fixed before the first line is sent), for the
    /// next `since`.
    func exportFeedback(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let query = try RequestDecoding.query(request.query, allowed: ["since", "format", "limit"])
        let since = Int64(try RequestDecoding.integer(query, "since", default: 0, range: 0...(1 << 53), code: .invalidSince,
                                                      message: "'since' must be a record id (an integer ≥ 0)"))
        var limit: Int?
        if query["limit"] != nil {
            limit = try RequestDecoding.integer(query, "limit", default: 1, range: 1...(1 << 53), code: .invalidLimit,
                                                message: "'limit' must be an integer from 1 to \(1 << 53)")
        }
        let raw: Bool
        switch query["format"] ?? "training" {
        case "training": raw = false
        case "raw": raw = true
        default: throw .badRequest(.invalidFormat, "'format' must be 'training' or 'raw'")
        }
        let store = try store()
        // Records written by queue decisions that were undone since leave the training data.
        var withdrawn = Set<Int64>()
        if !raw, let queue = state.queue {
            do {
                withdrawn = try queue.store.withdrawnFeedback()
            } catch {
                throw QueueDecoding.error(error)
            }
        }
        // Held until the body has streamed (or the client has gone): the slot goes with the export.
        guard let slot = exportSlots.take() else {
            throw APIError(.serviceUnavailable, .serverBusy,
                           "\(exportSlots.limit) feedback exports are streaming, the most served at once; retry shortly",
                           headers: [("Retry-After", "1")])
        }
        let last: Int64?
        do {
            last = try store.lastFeedbackID(after: since, limit: limit)
        } catch .unavailable {
            throw APIError.storeUnavailable
        } catch {
            Self.logExportFailure(error)
            throw APIError(.internalServerError, .feedbackExportFailed, "the feedback could not be read")
        }
        var response = HTTPResponse(status: .ok)
        response.headers.add("Content-Type", "application/x-ndjson; charset=utf-8")
        response.headers.add("Cache-Control", "no-store")
        response.headers.add("Feedback-Last-Id", String(last ?? since))
        if let last {
            response.stream = FeedbackExport(store: store, after: since, through: last, raw: raw, withdrawn: withdrawn,
                                             slot: slot).stream()
        }
        return response
    }

    static func logExportFailure(_ error: KeywordStoreError) {
        EventLog.record(.error, "feedback_export_failed", ["error": "\(error)"])
    }
}

/// One export's progress through the store: each pull reads the next page of records (on a bulk-lane worker,
/// never an event loop) and renders it as JSON lines, up to the record fixed as its end. A page is sized so its
/// lines come to about `pieceBytes`, from the records seen so far, so what one export holds at a time (its page,
/// and the piece waiting for the socket) stays near that whatever the records' size.
final class FeedbackExport: Sendable {
    /// The bytes of JSON lines one pull aims at.
    static let pieceBytes = 256 * 1024
    /// Records in the first page, before any size is known: few enough that the largest records the API
    /// accepts (about 25 KB each) stay within a piece.
    static let firstPageRecords = 8
    /// Records in a page at most, however small they are.
    static let maxPageRecords = 1_000

    private struct Progress {
        /// The id after which the next page starts; nil once the export is complete.
        var cursor: Int64?
        var pageRecords: Int
    }

    private let store: any KeywordStore
    private let through: Int64
    private let raw: Bool
    private let withdrawn: Set<Int64>
    private let progress: Locked<Progress>
    /// The export's place among those streaming at once, given back when the export is dropped.
    private let slot: ExportSlots.Slot

    init(store: any KeywordStore, after: Int64, through: Int64, raw: Bool, withdrawn: Set<Int64> = [],
         slot: ExportSlots.Slot) {
        self.store = store
        self.through = through
        self.raw = raw
        self.withdrawn = withdrawn
        self.slot = slot
        progress = Locked(Progress(cursor: after, pageRecords: Self.firstPageRecords))
    }

    func stream() -> ResponseStream {
        ResponseStream { [self] in next() }
    }

    private func next() -> ResponseStream.Piece {
        let (cursor, pageRecords) = progress.withLock { ($0.cursor, $0.pageRecords) }
        guard let after = cursor else { return .end }
        let records: [FeedbackRecord]
        do {
            records = try store.feedback(after: after, limit: pageRecords)
        } catch {
            KeywordAPIHandlers.logExportFailure(error)
            progress.withLock { $0.cursor = nil }
            return .failed("the feedback could not be read: \(error)")
        }
        var body: [UInt8] = []
        var reached = after
        var recordBytes = 0
        for record in records where record.id <= through {
            reached = record.id
            let line = Self.line(record, raw: raw, withdrawn: withdrawn)
            // Rejects have no training line; their size as stored still counts towards the page's memory.
            recordBytes += max(line.count, record.item.name.utf8.count + record.item.keyword.utf8.count + 64)
            body += line
        }
        let done = records.count < pageRecords || reached >= through || records.last.map({ $0.id > through }) == true
        let perRecord = max(1, recordBytes / max(1, records.count))
        progress.withLock {
            $0.cursor = done ? nil : reached
            $0.pageRecords = min(Self.maxPageRecords, max(1, Self.pieceBytes / perRecord))
        }
        return .bytes(body)
    }

    /// A raw record is written as the stores write it (`FeedbackLine`); otherwise its training line, if it teaches one.
    static func line(_ record: FeedbackRecord, raw: Bool, withdrawn: Set<Int64> = []) -> [UInt8] {
        if raw { return FeedbackLine.encode(record) }
        return LabelledData.example(record, withdrawn: withdrawn).map(LabelledData.line) ?? []
    }
}

/// Checks one feedback object: the JSON types here, the values by `FeedbackRules` (which `store import` applies
/// too); the error names the field (`items[3].action`).
enum FeedbackDecoding {
    static let fields: Set<String> = ["id", "name", "keyword", "action", "shown", "model", "annotator"]
    /// Longest client id, model and annotator, in characters.
    static let maxLabelCharacters = FeedbackRules.maxLabelCodePoints

    static func item(_ fields: [String: JSONValue], field prefix: String, limits: APILimits) throws(APIError) -> FeedbackItem {
        try RequestDecoding.onlyFields(fields, Self.fields)
        guard let nameValue = fields["name"] else { throw .badRequest(.missingName, "'\(prefix)name' is required") }
        guard case .string(let name) = nameValue else { throw .badRequest(.invalidName, "'\(prefix)name' must be a string") }
        let keyword = try keywordString(fields["keyword"], field: prefix + "keyword")
        guard case .string(let actionText) = fields["action"] ?? .null else {
            throw .badRequest(.invalidAction, "'\(prefix)action' is required: 'accept', 'correct' or 'reject'")
        }
        guard let action = FeedbackAction(rawValue: actionText) else {
            throw .badRequest(.invalidAction, "'\(prefix)action' must be 'accept', 'correct' or 'reject'")
        }
        var shown: [String] = []
        if let value = fields["shown"], value != .null {
            guard case .array(let values) = value else {
                throw .badRequest(.invalidShown, "'\(prefix)shown' must be an array of keywords")
            }
            guard values.count <= limits.maxK else {
                throw .badRequest(.invalidShown, "'\(prefix)shown' holds at most \(limits.maxK) keywords")
            }
            for (index, value) in values.enumerated() {
                shown.append(try keywordString(value, field: "\(prefix)shown[\(index)]"))
            }
        }
        let sent = FeedbackItem(name: name, keyword: keyword, action: action, shown: shown,
                                model: try RequestDecoding.labelString(fields["model"], field: prefix + "model", code: .invalidModel),
                                annotator: try RequestDecoding.labelString(fields["annotator"], field: prefix + "annotator", code: .invalidAnnotator),
                                clientID: try RequestDecoding.labelString(fields["id"], field: prefix + "id", code: .invalidId))
        do {
            return try FeedbackRules.checked(sent, field: prefix, limits: limits.feedbackLimits)
        } catch {
            throw .badRequest(code(of: error.kind), error.message)
        }
    }

    /// The API's error code for a broken feedback rule.
    static func code(of kind: FeedbackProblem.Kind) -> ErrorCode {
        switch kind {
        case .name(.tooLongAsSent), .name(.tooLong): return .nameTooLong
        case .name(.empty): return .emptyName
        case .name(.containsNUL): return .invalidName
        case .keyword: return .invalidKeyword
        case .shownCount: return .invalidShown
        case .model: return .invalidModel
        case .annotator: return .invalidAnnotator
        case .clientID, .recordID, .receivedAt: return .invalidId
        }
    }

    /// A keyword field's string (its value is checked by `FeedbackRules`).
    private static func keywordString(_ value: JSONValue?, field: String) throws(APIError) -> String {
        guard let value, value != .null else { throw .badRequest(.invalidKeyword, "'\(field)' is required") }
        guard case .string(let raw) = value else { throw .badRequest(.invalidKeyword, "'\(field)' must be a string") }
        return raw
    }
}

/// Counters of feedback by action, and of accepted keywords by the rank they were shown at (1–5, or `none`
/// when the keyword was not among the first five shown), per model version: the online Acc@1 and Acc@5.
/// The `model` label is client data, so it names only versions this process has served; any other value is
/// counted as `other`, which keeps the series (and `/metrics`) bounded whatever clients send.
final class FeedbackCounters: Sendable {
    private struct Key: Hashable {
        var model: String
        var rank: String
    }
    /// The label of feedback naming a model version this process has not served.
    static let otherModel = "other"
    private let accepted = Locked<[Key: Int]>([:])
    private let actions = Locked<[String: Int]>([:])
    /// Model versions this process has served: each is a label of its own.
    private let knownModels = Locked<Set<String>>([])

    /// Counts `item`; `servedModel` is the version serving now (nil while none is loaded), which feedback without
    /// a `model` is counted for.
    func count(_ item: FeedbackItem, servedModel: String?) {
        actions.withLock { $0[item.action.rawValue, default: 0] += 1 }
        guard item.action != .reject else { return }
        let rank = item.shown.prefix(5).firstIndex(of: item.keyword).map { String($0 + 1) } ?? "none"
        let model = knownModels.withLock { known -> String in
            if let servedModel { known.insert(servedModel) }
            guard let named = item.model ?? servedModel else { return Self.otherModel }
            return known.contains(named) ? named : Self.otherModel
        }
        accepted.withLock { $0[Key(model: model, rank: rank), default: 0] += 1 }
    }

    func render(into text: inout PrometheusText) {
        text.family("kwsuggest_feedback_total", .counter, help: "Feedback records stored by this process, by action.")
        let actionCounts = actions.withLock { $0 }
        for action in FeedbackAction.allCases {
            text.sample("kwsuggest_feedback_total", labels: ["action": action.rawValue], actionCounts[action.rawValue] ?? 0)
        }
        text.family("kwsuggest_feedback_accepted_total", .counter,
                    help: "Accepted or corrected keywords by the rank they were shown at (1-5, none: not among the first five), per model version served by this process (other: any other model named).")
        let counts = accepted.withLock { $0 }
        for (key, count) in counts.sorted(by: { ($0.key.model, $0.key.rank) < ($1.key.model, $1.key.rank) }) {
            text.sample("kwsuggest_feedback_accepted_total", labels: ["model": key.model, "rank": key.rank], count)
        }
    }
}
