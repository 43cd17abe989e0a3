// Paging the queue's time-ordered lists (labels, flags) the same way in every store.
import Platform

extension LabelCursor {
    /// The first `limit` of `entries` after `cursor` (from the start when nil) in (time, id) order, found in one
    /// pass over entries in any order, keeping at most `limit` at a time.
    public static func firstPage<Entries: Sequence>(of entries: Entries, after cursor: LabelCursor?,
                                                    limit: Int) -> [Entries.Element]
    where Entries.Element: ExportedQueueEntry {
        var page: [Entries.Element] = []
        guard limit > 0 else { return page }
        func before(_ a: Entries.Element, _ b: Entries.Element) -> Bool { (a.at, a.id) < (b.at, b.id) }
        for entry in entries {
            if let cursor, !cursor.precedes(at: entry.at, id: entry.id) { continue }
            if page.count == limit, let last = page.last, !before(entry, last) { continue }
            page.insert(entry, at: page.partitioningIndex { before(entry, $0) })
            if page.count > limit { page.removeLast() }
        }
        return page
    }
}

/// A time-ordered list (labels, flags) held sorted in (time, id) order, so that a page after any cursor is a binary
/// search and a slice: an export of n entries in pages costs one sort, not one pass over every entry per page.
public struct SortedQueueList<Entry: ExportedQueueEntry>: Sendable {
    public let entries: [Entry]

    public init<Entries: Sequence>(_ unsorted: Entries) where Entries.Element == Entry {
        entries = unsorted.sorted { ($0.at, $0.id) < ($1.at, $1.id) }
    }

    /// The first `limit` entries after `cursor` (from the start when nil), as `LabelCursor.firstPage` finds them.
    public func page(after cursor: LabelCursor?, limit: Int) -> [Entry] {
        guard limit > 0 else { return [] }
        let start = cursor.map { cursor in entries.partitioningIndex { cursor.precedes(at: $0.at, id: $0.id) } } ?? 0
        return Array(entries[start..<Swift.min(entries.count, start + limit)])
    }
}
