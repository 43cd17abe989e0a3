// One line of the labels export, shared by `GET /v1/labels/export` and `kwsuggest store export --format labels`.
import StrictJSON

extension QueueLabel {
    /// `{"id","name","keywords","decided_by","annotator","model","at"}` and a newline; `annotator` is null for
    /// the model's labels, `model` null when the model is not known.
    public func exportLine() -> [UInt8] {
        var json = JSONWriter()
        json.object { json in
            json.field("id", string: id)
            json.field("name", string: name)
            json.field("keywords") { json in json.array { json in for keyword in keywords { json.string(keyword) } } }
            json.field("decided_by", string: decidedBy.rawValue)
            json.field("annotator") { json in if let annotator { json.string(annotator) } else { json.null() } }
            json.field("model") { json in if let model { json.string(model) } else { json.null() } }
            json.field("at", string: QueueTimestamp.format(at))
        }
        return json.bytes + [0x0A]
    }
}

/// Pages through a store's labels after a starting point: what both exports stream.
public struct LabelPages: Sendable {
    public let store: any QueueStore
    public let pageSize: Int
    public init(store: any QueueStore, pageSize: Int = 1000) {
        self.store = store
        self.pageSize = pageSize
    }

    /// The cursor that starts an export at labels made at or after `since` (all labels without it).
    public static func start(since: QueueTime?) -> LabelCursor? {
        since.map { LabelCursor(at: $0, id: nil) }
    }

    /// Every label from `since` on, page by page through `write`. Returns how many were written.
    @discardableResult
    public func export(since: QueueTime? = nil, write: ([UInt8]) throws -> Void) throws -> Int {
        var cursor = Self.start(since: since), written = 0
        while let page = try page(after: cursor) {
            try write(page.lines)
            written += page.count
            cursor = page.end
        }
        return written
    }

    /// The next page after `cursor` as export lines, and where it ended; nil once there is nothing more.
    public func page(after cursor: LabelCursor?) throws(QueueError) -> (lines: [UInt8], count: Int, end: LabelCursor)? {
        let labels = try store.labels(after: cursor, limit: pageSize)
        guard let last = labels.last else { return nil }
        return (labels.flatMap { $0.exportLine() }, labels.count, LabelCursor(at: last.at, id: last.id))
    }
}
