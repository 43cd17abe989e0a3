// The lines of the queue's two exports, shared by the HTTP routes and `kwsuggest store export`: the labels
// (`GET /v1/labels/export`, `--format labels`) and the flagged items (`GET /v1/queue/flagged`, `--format flagged`).
import Platform
import StrictJSON

/// An entry of one of the queue's time-ordered lists: where it stands in the list, and its export line.
public protocol ExportedQueueEntry: Sendable {
    var id: String { get }
    var at: QueueTime { get }
    func exportLine() -> [UInt8]
}

extension QueueLabel: ExportedQueueEntry {
    /// `{"id","name","keywords","decided_by","annotator","model","at"}` and a newline; `annotator` is null for
    /// the model's and the memory's labels, `model` null when the model is not known; the memory's labels add
    /// `"annotators"`, whose decisions they repeat.
    public func exportLine() -> [UInt8] {
        var json = JSONWriter()
        json.object { json in
            json.field("id", string: id)
            json.field("name", string: name)
            json.field("keywords") { json in json.array { json in for keyword in keywords { json.string(keyword) } } }
            json.field("decided_by", string: decidedBy.rawValue)
            json.field("annotator") { json in if let annotator { json.string(annotator) } else { json.null() } }
            json.field("model") { json in if let model { json.string(model) } else { json.null() } }
            json.field("at", string: UTCTime.format(milliseconds: at))
            if decidedBy == .memory {
                json.field("annotators") { json in json.array { json in for name in annotators { json.string(name) } } }
            }
        }
        return json.bytes + [0x0A]
    }
}

extension QueueFlag: ExportedQueueEntry {
    /// `{"id","name","flagged_by","at","suggestions":[{"keyword","confidence"}]}` and a newline: the item, who set it
    /// aside and when, and the suggestions they were shown (`confidence` null without a calibration).
    public func exportLine() -> [UInt8] {
        var json = JSONWriter()
        json.object { json in
            json.field("id", string: id)
            json.field("name", string: name)
            json.field("flagged_by", string: annotator)
            json.field("at", string: UTCTime.format(milliseconds: at))
            json.field("suggestions") { json in json.suggestions(suggestions) }
        }
        return json.bytes + [0x0A]
    }
}

extension JSONWriter {
    /// `[{"keyword","confidence"}…]`, best first; `confidence` is null without a calibration.
    public mutating func suggestions(_ suggestions: [QueueSuggestion]) {
        array { json in
            for suggestion in suggestions {
                json.object { json in
                    json.field("keyword", string: suggestion.keyword)
                    json.field("confidence") { json in
                        if let confidence = suggestion.confidence { json.number(confidence) } else { json.null() }
                    }
                }
            }
        }
    }
}

/// Pages through one of a store's time-ordered lists (the labels, or the flagged items) after a starting point:
/// what both surfaces of each export stream.
public struct LabelPages: Sendable {
    /// Which list: the current labels, in the order they were made, or the flagged items, in the order they were flagged.
    public enum List: String, Sendable, CaseIterable {
        case labels, flagged
    }

    public let store: any QueueStore
    public let list: List
    public let pageSize: Int
    public init(store: any QueueStore, list: List = .labels, pageSize: Int = 1000) {
        self.store = store
        self.list = list
        self.pageSize = pageSize
    }

    /// The cursor that starts an export at entries made at or after `since` (all of them without it).
    public static func start(since: QueueTime?) -> LabelCursor? {
        since.map { LabelCursor(at: $0, id: nil) }
    }

    /// Every entry from `since` on, page by page through `write`. Returns how many were written.
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
        switch list {
        case .labels: return Self.page(try store.labels(after: cursor, limit: pageSize))
        case .flagged: return Self.page(try store.flagged(after: cursor, limit: pageSize))
        }
    }

    private static func page(_ entries: [some ExportedQueueEntry]) -> (lines: [UInt8], count: Int, end: LabelCursor)? {
        guard let last = entries.last else { return nil }
        return (entries.flatMap { $0.exportLine() }, entries.count, LabelCursor(at: last.at, id: last.id))
    }
}
