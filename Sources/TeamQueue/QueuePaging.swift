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
