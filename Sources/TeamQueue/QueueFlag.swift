// The flagged list: items an annotator set aside, for a reviewer to read.

/// A flagged item: who set it aside and when, with the model's suggestions it was shown with.
public struct QueueFlag: Sendable, Equatable {
    public var id: String
    public var name: String
    public var annotator: String
    public var at: QueueTime
    public var suggestions: [QueueSuggestion]

    public init(id: String, name: String, annotator: String, at: QueueTime, suggestions: [QueueSuggestion]) {
        self.id = id
        self.name = name
        self.annotator = annotator
        self.at = at
        self.suggestions = suggestions
    }

    /// The item's flag, or nil when it is not flagged.
    public init?(_ item: QueueItem) {
        guard let flag = item.flag else { return nil }
        self.init(id: item.id, name: item.name, annotator: flag.annotator, at: flag.at, suggestions: item.suggestions)
    }

    /// One page of the flagged list in (time, id) order: the first `limit` of `items`' flags after `cursor`. The
    /// file store pages with it; the PostgreSQL store pages in SQL in the same order, and the store contract tests
    /// hold both to it.
    public static func page<Items: Sequence>(of items: Items, after cursor: LabelCursor?, limit: Int) -> [QueueFlag]
    where Items.Element == QueueItem {
        LabelCursor.firstPage(of: items.lazy.compactMap(QueueFlag.init), after: cursor, limit: limit)
    }
}
