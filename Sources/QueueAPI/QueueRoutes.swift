// The queue's routes with all their facts, and the caps of their bodies, computed as `BodyCaps` computes the
// others'.
import APICore
import HTTPCore
import StoreInterface

/// The largest body each queue route's schema allows, in bytes (see `JSONSize`).
package struct QueueBodyCaps: Sendable, Equatable {
    /// `POST /v1/queue/items`, `/v1/queue/lease`, `/v1/queue/decisions`, `/v1/queue/undo`.
    package var items: Int
    package var lease: Int
    package var decisions: Int
    package var undo: Int

    package init(_ limits: APILimits) {
        let name = JSONSize.string(limits.maxNameCharacters, padding: limits.maxPaddingCharacters)
        let keyword = JSONSize.string(limits.maxKeywordCharacters, padding: limits.maxPaddingCharacters)
        let label = JSONSize.string(FeedbackRules.maxLabelCodePoints)
        let item = JSONSize.object([("id", label), ("name", name)])
        items = JSONSize.object([("items", JSONSize.array(QueueDecoding.maxItems, item))])
        lease = JSONSize.object([("annotator", label), ("n", JSONSize.numberBytes),
                                 ("order", JSONSize.string("uncertain".count)), ("keyword", keyword)])
        decisions = JSONSize.object([
            ("lease", label), ("annotator", label), ("id", label),
            ("ids", JSONSize.array(QueueDecoding.maxItems, label)),
            ("keywords", JSONSize.array(QueueDecoding.maxLabelKeywords, keyword)),
            ("action", JSONSize.string("skip".count)),
        ])
        undo = JSONSize.object([("annotator", label)])
    }
}

/// The most JSON values each queue route's body may hold (see `JSONSize.values`).
package struct QueueValueCaps: Sendable, Equatable {
    package var items: Int
    package var lease: Int
    package var decisions: Int
    package var undo: Int

    package init(_ limits: APILimits) {
        // {"items": [{"id", "name"}…]}
        items = JSONSize.values(1 + 1 + QueueDecoding.maxItems * 3)
        lease = JSONSize.values(1 + QueueDecoding.leaseFields.count)
        // Every field, `ids` at its most and `keywords` at theirs.
        decisions = JSONSize.values(1 + QueueDecoding.decisionFields.count + QueueDecoding.maxItems
                                    + QueueDecoding.maxLabelKeywords)
        undo = JSONSize.values(1 + 1)
    }
}

extension QueueHandlers {
    /// The queue's routes. Every one reads or writes the store, and all of them carry annotator names, so each
    /// needs the token when one is set, or an annotator's token (which acts as that annotator only). Enqueueing suggests every item, as a batch does: it runs on the batches'
    /// lane, not the writes'. Routes without a body take `bodyless`'s caps.
    package func routes(limits: APILimits, bodyless: (bodyCap: Int, valueCap: Int)) -> [APIRoute] {
        let bodies = QueueBodyCaps(limits), values = QueueValueCaps(limits)
        func route(_ method: HTTPMethod, _ path: String, lane: WorkLane, bodyCap: Int? = nil, valueCap: Int? = nil,
                   _ handler: @escaping APIRoute.Handler) -> APIRoute {
            APIRoute(method: method, path: path, lane: lane, needsToken: true, takesAnnotatorTokens: true,
                     bodyCap: bodyCap ?? bodyless.bodyCap,
                     valueCap: valueCap ?? bodyless.valueCap, handler: handler)
        }
        return [
            route(.post, "/v1/queue/items", lane: .batches, bodyCap: bodies.items,
                  valueCap: values.items) { request, route throws(APIError) in
                try self.enqueue(request, valueCap: route.valueCap)
            },
            route(.post, "/v1/queue/lease", lane: .queueWrites, bodyCap: bodies.lease,
                  valueCap: values.lease) { request, route throws(APIError) in
                try self.lease(request, valueCap: route.valueCap)
            },
            route(.post, "/v1/queue/decisions", lane: .queueWrites, bodyCap: bodies.decisions,
                  valueCap: values.decisions) { request, route throws(APIError) in
                try self.decide(request, valueCap: route.valueCap)
            },
            route(.post, "/v1/queue/undo", lane: .queueWrites, bodyCap: bodies.undo,
                  valueCap: values.undo) { request, route throws(APIError) in
                try self.undo(request, valueCap: route.valueCap)
            },
            route(.get, "/v1/queue/stats", lane: .bulkReads) { _, _ throws(APIError) in try self.stats() },
            route(.get, "/v1/queue/keywords", lane: .bulkReads) { request, _ throws(APIError) in try self.keywords(request) },
            route(.get, "/v1/queue/flagged", lane: .bulkReads) { request, _ throws(APIError) in try self.export(.flagged, request) },
            route(.get, "/v1/labels/export", lane: .bulkReads) { request, _ throws(APIError) in try self.export(.labels, request) },
        ]
    }
}
