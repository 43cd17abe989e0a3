// `GET /v1/queue/keywords`: per first-suggested keyword, what waits, what the model labelled, what people said of
// it, and whether the auto-accept rule lets the model label it now.
import APICore
import HTTPCore
import SuggestionRuntime
import StoreInterface
import TeamQueue
import StrictJSON

/// One row of `GET /v1/queue/keywords`.
public struct QueueKeywordRow: Sendable, Equatable {
    public var keyword: String
    public var category: String?
    public var counts: QueueKeywordCounts
    /// People's labels on items whose first suggestion was this keyword (audits included), and how many held it.
    public var labelled = 0, labelledCorrect = 0
    /// Audits of the model's labels of this keyword, and how many kept it.
    public var audited = 0, auditCorrect = 0
    public var state: AutoAcceptState = .learning

    public var auditPrecision: Double? { audited > 0 ? Double(auditCorrect) / Double(audited) : nil }
    public var top1Precision: Double? { labelled > 0 ? Double(labelledCorrect) / Double(labelled) : nil }
}

extension AnnotationQueue {
    /// Every keyword that is some item's first suggestion or some label's evidence, the most queued first (then by
    /// keyword). States are the rule's for `model`'s evidence as last refreshed.
    public func keywordRows(model: String) throws(QueueError) -> [QueueKeywordRow] {
        var rows: [String: QueueKeywordRow] = [:]
        for (keyword, counts) in try store.keywordCounts() where counts.queued > 0 || counts.autoAccepted > 0 {
            rows[keyword] = QueueKeywordRow(keyword: keyword, category: trust.category(of: keyword), counts: counts)
        }
        for evidence in try store.evidence(model: nil) {
            var row = rows[evidence.keyword]
                ?? QueueKeywordRow(keyword: evidence.keyword, category: trust.category(of: evidence.keyword), counts: QueueKeywordCounts())
            row.labelled += 1
            if evidence.correct { row.labelledCorrect += 1 }
            if evidence.audit {
                row.audited += 1
                if evidence.correct { row.auditCorrect += 1 }
            }
            rows[evidence.keyword] = row
        }
        let rule = trust.rule(for: model)
        return rows.values.map { row in
            var row = row
            row.state = trust.configuration.mode == .calibration ? .on : trust.state(of: row.keyword, rule: rule)
            return row
        }.sorted { ($0.counts.queued, $1.keyword) > ($1.counts.queued, $0.keyword) }
    }
}

extension QueueHandlers {
    /// The page size of `GET /v1/queue/keywords` without `limit`, and the largest `limit`.
    static let defaultKeywordPage = 100
    static let maxKeywordPage = 1_000

    /// `GET /v1/queue/keywords[?limit&offset]` → 200 `{"keywords": [...], "count"}`: `count` keywords in all.
    func keywords(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let query = try RequestDecoding.query(request.query, allowed: ["offset", "limit"])
        func integer(_ name: String, default value: Int, range: ClosedRange<Int>) throws(APIError) -> Int {
            try RequestDecoding.integer(query, name, default: value, range: range, code: .invalidPage,
                                        message: "'\(name)' must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        let offset = try integer("offset", default: 0, range: 0...Int(Int32.max))
        let limit = try integer("limit", default: Self.defaultKeywordPage, range: 1...Self.maxKeywordPage)
        guard let engine = currentEngine() else { throw APIError.notReady }
        let rows = try run { (queue: AnnotationQueue) throws(QueueError) in try queue.keywordRows(model: engine.modelVersion) }
        var json = JSONWriter()
        json.object { json in
            json.field("keywords") { json in
                json.array { json in
                    for row in rows.dropFirst(offset).prefix(limit) {
                        json.object { json in
                            json.field("keyword", string: row.keyword)
                            json.field("category") { json in if let category = row.category { json.string(category) } else { json.null() } }
                            json.field("queued", int: row.counts.queued)
                            json.field("auto_accepted", int: row.counts.autoAccepted)
                            json.field("audited", int: row.audited)
                            json.field("audit_precision") { json in
                                if let value = row.auditPrecision { json.number(value) } else { json.null() }
                            }
                            json.field("labelled", int: row.labelled)
                            json.field("top1_precision") { json in
                                if let value = row.top1Precision { json.number(value) } else { json.null() }
                            }
                            json.field("auto_accept", string: row.state.rawValue)
                        }
                    }
                }
            }
            json.field("count", int: rows.count)
        }
        return .json(.ok, json.bytes)
    }
}
