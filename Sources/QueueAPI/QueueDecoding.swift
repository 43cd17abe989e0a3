// The queue routes' request bodies, checked field by field; each error names the field.
import APICore
import EventLog
import HTTPCore
import Platform
import StoreInterface
import StrictJSON
import TeamQueue

package enum QueueDecoding {
    /// Items in one `POST /v1/queue/items`, and ids in one bulk decision.
    static let maxItems = 1000
    /// Items in one lease: `n` is 1 to this.
    static let maxLease = 100
    /// Keywords in one label.
    static let maxLabelKeywords = 10

    static let itemFields: Set<String> = ["id", "name"]
    static let leaseFields: Set<String> = ["annotator", "n", "order", "keyword"]
    static let decisionFields: Set<String> = ["lease", "annotator", "id", "ids", "keywords", "action"]

    /// `{"items": [{"id", "name"}, …]}`.
    static func products(_ fields: [String: JSONValue], limits: APILimits) throws(APIError) -> [QueueProduct] {
        try RequestDecoding.onlyFields(fields, ["items"])
        guard case .array(let values) = fields["items"] ?? .null else {
            throw .badRequest(.invalidItems, "'items' is required: an array of {\"id\", \"name\"} objects")
        }
        guard !values.isEmpty else { throw .badRequest(.emptyItems, "'items' needs at least one item") }
        guard values.count <= maxItems else { throw .badRequest(.tooManyItems, "at most \(maxItems) items per request") }
        var products: [QueueProduct] = []
        for (index, value) in values.enumerated() {
            guard case .object(let item) = value else { throw .badRequest(.invalidItem, "'items[\(index)]' must be an object") }
            try RequestDecoding.onlyFields(item, itemFields)
            products.append(QueueProduct(id: try id(item["id"], field: "items[\(index)].id"),
                                         name: try RequestDecoding.name(item["name"], field: "items[\(index)].name", limits: limits)))
        }
        return products
    }

    /// `{"annotator", "n", "order", "keyword"}`.
    static func lease(_ fields: [String: JSONValue], limits: APILimits) throws(APIError) -> LeaseRequest {
        try RequestDecoding.onlyFields(fields, leaseFields)
        var request = LeaseRequest(annotator: try annotator(fields["annotator"]))
        if let value = fields["n"], value != .null {
            guard case .number(let number) = value, let count = number.integer(as: Int.self), (1...maxLease).contains(count) else {
                throw .badRequest(.invalidN, "'n' must be an integer from 1 to \(maxLease)")
            }
            request.count = count
        }
        if let value = fields["order"], value != .null {
            guard case .string(let text) = value, let order = QueueOrder(rawValue: text) else {
                throw .badRequest(.invalidOrder, "'order' must be 'uncertain', 'confident' or 'oldest'")
            }
            request.order = order
        }
        request.keyword = try RequestDecoding.keywordText(fields["keyword"], field: "keyword", limits: limits, required: false)
        return request
    }

    /// `{"lease", "annotator", "id" | "ids", "keywords" | "action"}`.
    static func decision(_ fields: [String: JSONValue], limits: APILimits) throws(APIError) -> DecisionRequest {
        try RequestDecoding.onlyFields(fields, decisionFields)
        guard let lease = try RequestDecoding.label(fields["lease"], field: "lease", code: .invalidLease) else {
            throw .badRequest(.invalidLease, "'lease' is required: the id a lease answered with")
        }
        let annotator = try annotator(fields["annotator"])
        let one = fields["id"].flatMap { $0 == .null ? nil : $0 }
        let many = fields["ids"].flatMap { $0 == .null ? nil : $0 }
        var ids: [String]
        switch (one, many) {
        case (let value?, nil):
            ids = [try id(value, field: "id")]
        case (nil, .array(let values)?):
            guard !values.isEmpty, values.count <= maxItems else {
                throw .badRequest(.invalidIds, "'ids' must hold 1 to \(maxItems) item ids")
            }
            ids = []
            for (index, value) in values.enumerated() { ids.append(try id(value, field: "ids[\(index)]")) }
        case (nil, _?):
            throw .badRequest(.invalidIds, "'ids' must be an array of item ids")
        case (nil, nil), (_?, _?):
            throw .badRequest(.invalidIds, "give exactly one of 'id' (one item) and 'ids' (many items)")
        }
        let keywords = fields["keywords"].flatMap { $0 == .null ? nil : $0 }
        let action = fields["action"].flatMap { $0 == .null ? nil : $0 }
        switch (keywords, action) {
        case (.array(let values)?, nil):
            guard !values.isEmpty, values.count <= maxLabelKeywords else {
                throw .badRequest(.invalidKeywords, "'keywords' must hold 1 to \(maxLabelKeywords) keywords")
            }
            var labels: [String] = []
            for (index, value) in values.enumerated() {
                let keyword = try RequestDecoding.keywordText(value, field: "keywords[\(index)]", limits: limits, required: true) ?? ""
                if !labels.contains(keyword) { labels.append(keyword) }
            }
            return DecisionRequest(lease: lease, annotator: annotator, ids: ids, kind: .label, keywords: labels)
        case (nil, .string(let text)?):
            guard let kind = QueueDecisionKind(rawValue: text), kind != .label else {
                throw .badRequest(.invalidAction, "'action' must be 'skip' or 'flag'")
            }
            guard ids.count == 1, one != nil else {
                throw .badRequest(.invalidIds, "'\(text)' takes one item: give 'id', not 'ids'")
            }
            return DecisionRequest(lease: lease, annotator: annotator, ids: ids, kind: kind)
        case (_?, nil):
            throw .badRequest(.invalidKeywords, "'keywords' must be an array of keywords")
        case (nil, _?):
            throw .badRequest(.invalidAction, "'action' must be 'skip' or 'flag'")
        case (nil, nil), (_?, _?):
            throw .badRequest(.invalidKeywords, "give exactly one of 'keywords' (a label) and 'action' ('skip' or 'flag')")
        }
    }

    /// `{"annotator"}`.
    static func undo(_ fields: [String: JSONValue]) throws(APIError) -> String {
        try RequestDecoding.onlyFields(fields, ["annotator"])
        return try annotator(fields["annotator"])
    }

    /// A required annotator name, by `QueueRules.key`: 1 to 200 characters, no control characters, kept in NFC.
    static func annotator(_ value: JSONValue?) throws(APIError) -> String {
        try key(value, field: "annotator", code: .invalidAnnotator, missing: "'annotator' is required: who is working")
    }

    /// A required item id, by `QueueRules.key`: 1 to 200 characters, no control characters, kept in NFC.
    static func id(_ value: JSONValue?, field: String) throws(APIError) -> String {
        try key(value, field: field, code: .invalidId, missing: "'\(field)' is required: the product's id")
    }

    private static func key(_ value: JSONValue?, field: String, code: ErrorCode, missing: String) throws(APIError) -> String {
        guard let text = try RequestDecoding.labelString(value, field: field, code: code) else {
            throw .badRequest(code, missing)
        }
        do {
            return try QueueRules.key(text, field: field)
        } catch {
            throw .badRequest(code, error.message)
        }
    }

    /// The `since` of the labels export: a UTC time as `2026-01-31T12:00:00Z` (milliseconds optional).
    static func since(_ query: [String: String]) throws(APIError) -> QueueTime? {
        guard let text = query["since"] else { return nil }
        guard let time = UTCTime.parse(text) else {
            throw .badRequest(.invalidSince, "'since' must be a UTC time such as 2026-01-31T12:00:00Z")
        }
        return time
    }

    /// The answer for a queue failure: what the client can act on, the rest logged.
    package static func error(_ error: QueueError) -> APIError {
        switch error {
        case .unknownItem(let id): return APIError(.notFound, .unknownItem, "no queued item has the id '\(id.prefix(200))'")
        case .notHeld(let id):
            return APIError(.conflict, .notLeased, "item '\(id.prefix(200))' is not in this annotator's lease (it expired, or another lease took it)")
        case .notOpen(let id): return APIError(.conflict, .itemClosed, "item '\(id.prefix(200))' is already labelled or flagged")
        case .nothingToUndo: return APIError(.conflict, .nothingToUndo, "this annotator has no decision to undo (at most 10 back)")
        case .cannotUndo(let id, let why):
            return APIError(.conflict, .cannotUndo, "the latest decision, on item '\(id.prefix(200))', cannot be undone: \(why); it stands")
        case .tooManyDecisions(let id, let most):
            return APIError(.conflict, .tooManyDecisions,
                            "this annotator has made \(most) decisions on item '\(id.prefix(200))', undone ones included: the most one annotator makes on one item; nothing was changed")
        case .store(.unavailable): return .storeUnavailable
        case .store(.clientIDConflict(_, let earlierID)):
            // Only an import can put a record in the queue's id namespace: one with another decision than the label's.
            return APIError(.conflict, .idConflict,
                            "feedback record \(earlierID), imported from an archive, holds this label's id with another decision; nothing was changed")
        case .store(let failure):
            EventLog.record(.error, "queue_failed", ["error": "\(failure)"])
            return APIError(.internalServerError, .queueFailed, "the queue could not be read or written")
        }
    }
}
