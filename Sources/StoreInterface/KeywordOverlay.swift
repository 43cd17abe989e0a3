// The keyword overlay: additions and removals on top of a model's own keyword list, as every store holds them.

/// Keyword changes on top of the model's own keyword list.
///
/// `added` keywords are served in addition to the model's list; `removed` keywords are hidden even when the
/// model ships them. A keyword is never in both lists (see `applying(add:remove:)`).
public struct KeywordOverlay: Codable, Sendable, Equatable {
    public var added: [String]
    public var removed: [String]
    /// Set by the store that hands the overlay out (the file store: a number per contents it read or wrote; the
    /// PostgreSQL store: the list revision): overlays from one store with the same non-nil revision hold the same
    /// keywords, so a holder can tell "unchanged" without comparing the lists, or keeping them. nil for an overlay
    /// with no stored form yet (no overlay file). Neither encoded nor compared.
    public var revision: UInt64?

    private enum CodingKeys: String, CodingKey { case added, removed }

    public init(added: [String] = [], removed: [String] = []) {
        self.added = added
        self.removed = removed
    }

    public static func == (a: KeywordOverlay, b: KeywordOverlay) -> Bool { a.added == b.added && a.removed == b.removed }

    /// The list served from `base` (a model's own keywords) with this overlay: the base minus removals plus
    /// additions, order kept, duplicates dropped.
    /// - Complexity: O(base + added + removed).
    public func applied(to base: [String]) -> [String] {
        let removed = Set(self.removed)
        var seen = Set<String>()
        var result: [String] = []
        for keyword in base + added where !removed.contains(keyword) {
            if seen.insert(keyword).inserted { result.append(keyword) }
        }
        return result
    }

    /// The overlay after adding `add` and then removing `remove`; a later change wins over an earlier one.
    ///
    /// Order is kept (first insertion wins); duplicates are dropped. Hash sets, not list scans: a change of c
    /// keywords on an overlay of n costs O(c + n), so a change of thousands at a list of 50,000 stays linear.
    /// - Complexity: O(a + r + n) for n keywords already in the overlay.
    public func applying(add: [String], remove: [String]) -> KeywordOverlay {
        let adding = Set(add)
        let removing = Set(remove)
        var added = self.added
        var inAdded = Set(added)
        for keyword in add where inAdded.insert(keyword).inserted { added.append(keyword) }
        if !removing.isEmpty { added.removeAll { removing.contains($0) } }
        var removed = adding.isEmpty ? self.removed : self.removed.filter { !adding.contains($0) }
        var inRemoved = Set(removed)
        for keyword in remove where inRemoved.insert(keyword).inserted { removed.append(keyword) }
        return KeywordOverlay(added: added, removed: removed)
    }
}

