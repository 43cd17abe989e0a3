// The annotation queue's routes: items in, leases out, decisions and undo back, figures and labels out.
import APICore
import HTTPCore
import Locking
import Platform
import SuggestionRuntime
import StoreInterface
import StrictJSON
import TeamQueue

/// The handlers the queue's routes point at (see `routes`): each decodes its body, runs one queue operation and
/// answers, or throws an APIError.
package final class QueueHandlers: Sendable {
    private let limits: APILimits
    /// Whom each request acts for: a body naming another annotator than the token's is 403.
    private let access: QueueAccess
    private let currentQueue: @Sendable () -> AnnotationQueue?
    let currentEngine: @Sendable () -> (any SuggestionEngine)?
    /// What this process did with the queue, rendered on /metrics.
    let counters = QueueCounters()
    /// The queue's figures for /metrics, read off the event loop.
    package let figures: QueueFigures
    /// The labels and flagged exports streaming at once, capped as the feedback export is.
    private let exportSlots: ExportSlots

    /// - Parameters:
    ///   - queue: the queue once the store is open, nil while the service is still starting.
    ///   - engine: the engine once the model is loaded.
    package init(limits: APILimits, access: QueueAccess = QueueAccess(adminToken: nil, annotators: AnnotatorTokens()),
                 queue: @escaping @Sendable () -> AnnotationQueue?,
                 engine: @escaping @Sendable () -> (any SuggestionEngine)?, figuresMaxAge: Double = 5) {
        self.limits = limits
        figures = QueueFigures(maxAge: figuresMaxAge)
        exportSlots = ExportSlots(limit: limits.maxConcurrentExports)
        self.access = access
        currentQueue = queue
        currentEngine = engine
    }

    /// The queue once the store is open; 503 while the service is still starting.
    private func queue() throws(APIError) -> AnnotationQueue {
        guard let queue = currentQueue() else { throw APIError.notReady }
        return queue
    }

    // Every queue route needs the token when one is set (see `routes`): the middleware checks it. The routes that
    // name an annotator check here that the token may act as that annotator.

    /// Refuses `request` when its token is another annotator's than `annotator`.
    private func checkActor(_ request: HTTPRequest, _ annotator: String) throws(APIError) {
        try access.caller(of: request).check(acting: annotator)
    }

    /// This process's queue counters and the queue's figures (as last read off the event loop), for /metrics.
    package func renderMetrics(into text: inout PrometheusText) {
        guard let queue = currentQueue() else { return counters.render(nil, into: &text) }
        let (stats, age) = figures.current { try? queue.stats() }
        counters.render(stats, age: age, into: &text)
        // From the rule's last refresh (off the event loop): no store read here.
        let states = queue.trust.keywordStates
        text.family("kwsuggest_queue_keywords", .gauge,
                    help: "Keywords with items in the queue, by the auto-accept rule's state at its last refresh.")
        for state in AutoAcceptState.allCases {
            text.sample("kwsuggest_queue_keywords", labels: ["auto_accept": state.rawValue], states[state] ?? 0)
        }
    }

    /// Runs a queue operation, mapping its failure to the API's answer.
    func run<T>(_ body: (AnnotationQueue) throws(QueueError) -> T) throws(APIError) -> T {
        let queue = try queue()
        do {
            return try body(queue)
        } catch {
            throw QueueDecoding.error(error)
        }
    }

    /// `POST /v1/queue/items` → 200 `{"queued", "auto_accepted", "from_memory", "duplicates"}`. Each item is
    /// suggested first, outside the store's lock.
    func enqueue(_ request: HTTPRequest, valueCap: Int) throws(APIError) -> HTTPResponse {
        let products = try QueueDecoding.products(try RequestDecoding.object(request, maxValues: valueCap),
                                                  limits: limits)
        guard let engine = currentEngine() else { throw APIError.notReady }
        let summary = try run { (queue: AnnotationQueue) throws(QueueError) in try queue.enqueue(products, engine: engine) }
        counters.count(summary)
        var json = JSONWriter()
        json.object { json in
            json.field("queued", int: summary.queued)
            json.field("auto_accepted", int: summary.autoAccepted)
            json.field("from_memory", int: summary.fromMemory)
            json.field("duplicates", int: summary.duplicates)
        }
        return .json(.ok, json.bytes)
    }

    /// `POST /v1/queue/lease` → 200 `{"lease", "expires_at", "items": [{"id", "name", "suggestions"}]}`.
    func lease(_ request: HTTPRequest, valueCap: Int) throws(APIError) -> HTTPResponse {
        let lease = try QueueDecoding.lease(try RequestDecoding.object(request, maxValues: valueCap), limits: limits)
        try checkActor(request, lease.annotator)
        let granted = try run { (queue: AnnotationQueue) throws(QueueError) in try queue.lease(lease) }
        counters.countLease(granted.items.count)
        var json = JSONWriter()
        json.object { json in
            json.field("lease", string: granted.id)
            json.field("expires_at", string: UTCTime.format(milliseconds: granted.expiresAt))
            json.field("items") { json in
                json.array { json in
                    for item in granted.items {
                        json.object { json in
                            json.field("id", string: item.id)
                            json.field("name", string: item.name)
                            json.field("suggestions") { json in json.suggestions(item.suggestions) }
                        }
                    }
                }
            }
        }
        return .json(.ok, json.bytes)
    }

    /// `POST /v1/queue/decisions` → 200 `{"decided", "feedback"}`: how many items, and the feedback ids written.
    func decide(_ request: HTTPRequest, valueCap: Int) throws(APIError) -> HTTPResponse {
        let decision = try QueueDecoding.decision(try RequestDecoding.object(request, maxValues: valueCap),
                                                  limits: limits)
        try checkActor(request, decision.annotator)
        let decisions = try run { (queue: AnnotationQueue) throws(QueueError) in try queue.decide(decision) }
        counters.countDecisions(decision.kind, decisions.count)
        var json = JSONWriter()
        json.object { json in
            json.field("decided", int: decisions.count)
            json.field("feedback") { json in
                json.array { json in for id in decisions.flatMap(\.feedback) { json.int(Int(id)) } }
            }
        }
        return .json(.ok, json.bytes)
    }

    /// `POST /v1/queue/undo` → 200 `{"id", "lease"}`: the item is back in that lease.
    func undo(_ request: HTTPRequest, valueCap: Int) throws(APIError) -> HTTPResponse {
        let annotator = try QueueDecoding.undo(try RequestDecoding.object(request, maxValues: valueCap))
        try checkActor(request, annotator)
        let decision = try run { (queue: AnnotationQueue) throws(QueueError) in try queue.undo(annotator: annotator) }
        counters.countUndo()
        var json = JSONWriter()
        json.object { json in
            json.field("id", string: decision.item)
            json.field("lease", string: decision.lease)
        }
        return .json(.ok, json.bytes)
    }

    /// `GET /v1/queue/stats`.
    func stats() throws(APIError) -> HTTPResponse {
        let stats = try run { (queue: AnnotationQueue) throws(QueueError) in try queue.stats() }
        var json = JSONWriter()
        json.object { json in
            json.field("items") { json in
                json.object { json in
                    json.field("queued", int: stats.items.queued)
                    json.field("leased", int: stats.items.leased)
                    json.field("labelled", int: stats.items.labelled)
                    json.field("flagged", int: stats.items.flagged)
                }
            }
            json.field("annotators") { json in
                json.object { json in
                    for (name, figures) in stats.annotators.sorted(by: { $0.key < $1.key }) {
                        json.field(name) { json in
                            json.object { json in
                                json.field("decisions", int: figures.decisions)
                                json.field("median_seconds") { json in
                                    if let median = figures.medianSeconds { json.number(median) } else { json.null() }
                                }
                            }
                        }
                    }
                }
            }
            json.field("auto_accept") { json in
                json.object { json in
                    json.field("count", int: stats.autoAccepted)
                    json.field("audited", int: stats.audited)
                    json.field("audit_precision") { json in
                        if let precision = stats.auditPrecision { json.number(precision) } else { json.null() }
                    }
                }
            }
            json.field("agreement") { json in
                json.object { json in
                    json.field("overlap_items", int: stats.overlapItems)
                    json.field("agreed", int: stats.agreed)
                }
            }
        }
        return .json(.ok, json.bytes)
    }

    /// `GET /v1/labels/export[?since=…]`: one JSON line per labelled item with its current label, in the order
    /// labels were made; `GET /v1/queue/flagged[?since=…]`: one per flagged item, in the order they were flagged.
    /// Streamed page by page from the store. The first page is read before the answer starts, so a queue that
    /// cannot be read is a JSON error, not a 200 cut short.
    func export(_ list: LabelPages.List, _ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let query = try RequestDecoding.query(request.query, allowed: ["since"])
        let since = try QueueDecoding.since(query)
        let pages = LabelPages(store: try queue().store, list: list)
        // Held until the body has streamed (or the client has gone): the slot goes with the export.
        guard let slot = exportSlots.take() else {
            throw APIError(.serviceUnavailable, .serverBusy,
                           "\(exportSlots.limit) label and flagged exports are streaming, the most served at once; retry shortly",
                           headers: [("Retry-After", "1")])
        }
        let first: (lines: [UInt8], count: Int, end: LabelCursor)?
        do {
            first = try pages.page(after: LabelPages.start(since: since))
        } catch {
            throw QueueDecoding.error(error)
        }
        var response = HTTPResponse(status: .ok)
        response.headers.add("Content-Type", "application/x-ndjson; charset=utf-8")
        response.headers.add("Cache-Control", "no-store")
        let pending = Locked<[UInt8]?>(first?.lines)
        let cursor = Locked<LabelCursor??>(first.map { .some($0.end) } ?? .none)
        response.stream = ResponseStream {
            withExtendedLifetime(slot) {}
            if let lines = pending.withLock({ lines -> [UInt8]? in defer { lines = nil }; return lines }) {
                return .bytes(lines)
            }
            guard let after = cursor.withLock({ $0 }) else { return .end }
            do throws(QueueError) {
                guard let page = try pages.page(after: after) else {
                    cursor.withLock { $0 = .none }
                    return .end
                }
                cursor.withLock { $0 = .some(page.end) }
                return .bytes(page.lines)
            } catch {
                cursor.withLock { $0 = .none }
                _ = QueueDecoding.error(error)
                return .failed("the \(list == .labels ? "labels" : "flagged items") could not be read: \(error)")
            }
        }
        return response
    }
}
