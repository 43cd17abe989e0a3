// The served list's order as sort keys, so a change can say where its keywords go without scanning the list.
import KeywordModel
import Platform
import StoreInterface

/// How a keyword change moves the list: indices of the old list that leave it, and keywords that enter it
/// with their index in the new list (ascending).
struct KeywordListEdit: Equatable {
    var removals: [Int] = []
    var insertions: [(index: Int, keyword: String)] = []
    var isEmpty: Bool { removals.isEmpty && insertions.isEmpty }

    static func == (a: KeywordListEdit, b: KeywordListEdit) -> Bool {
        a.removals == b.removals && a.insertions.map(\.index) == b.insertions.map(\.index)
            && a.insertions.map(\.keyword) == b.insertions.map(\.keyword)
    }
}

/// The served list (the model's keywords minus removals, then additions; see `ModelEngine.apply`) as one
/// ascending sort key per keyword: a model keyword's key is its place in the model's list, an added keyword's
/// is the model list's length plus a counter that grows with every addition, since an added keyword always
/// joins the end of the overlay's `added`.
///
/// That holds for an overlay that lists no keyword twice in `added` and none in both lists ("clean"), which
/// `KeywordOverlay.applying(add:remove:)` keeps so. For other overlays (edited by hand) `edit` is not used.
struct KeywordOrder {
    private let baseIndex: [String: Int]
    private let baseCount: Int
    private var keyOf: [String: Int64] = [:]
    private var keys: [Int64] = []
    private var nextAdded: Int64 = 0
    /// Whether the overlay this order was built from is clean (see the type's description).
    let clean: Bool

    /// The order of `list`, which is `ModelEngine.apply(overlay, to: base)`.
    /// - Complexity: O(base + list), hashing every keyword.
    init(base: [String], list: [String], overlay: KeywordOverlay) {
        var baseIndex: [String: Int] = [:]
        for (i, keyword) in base.enumerated() where baseIndex[keyword] == nil { baseIndex[keyword] = i }
        self.baseIndex = baseIndex
        baseCount = base.count
        var keyOf: [String: Int64] = [:], keys: [Int64] = [], added: Int64 = 0
        keys.reserveCapacity(list.count)
        for keyword in list {
            var key = Int64(base.count) + added
            if let i = baseIndex[keyword] { key = Int64(i) } else { added += 1 }
            keyOf[keyword] = key
            keys.append(key)
        }
        self.keyOf = keyOf
        self.keys = keys
        nextAdded = added
        let addedSet = Set(overlay.added)
        clean = addedSet.count == overlay.added.count && !overlay.removed.contains { addedSet.contains($0) }
    }

    func isListed(_ keyword: String) -> Bool { keyOf[keyword] != nil }

    private mutating func nextKey() -> Int64 {
        defer { nextAdded += 1 }
        return Int64(baseCount) + nextAdded
    }

    /// How much `KeywordOverlay.applying(add:remove:)` lengthens the list (negative when it shortens it).
    /// - Complexity: O(a + r).
    func sizeChange(add: [String], remove: [String]) -> Int {
        let adding = Set(add), removing = Set(remove)
        var seen = Set<String>(), change = 0
        for keyword in add + remove where seen.insert(keyword).inserted {
            let after = adding.contains(keyword) && !removing.contains(keyword)
            if (keyOf[keyword] != nil) != after { change += after ? 1 : -1 }
        }
        return change
    }

    /// The edit that `KeywordOverlay.applying(add:remove:)` makes to the list, recorded in this order.
    /// Only for a clean overlay (`clean`); keywords not named by the change keep their places.
    /// - Complexity: O((a + r) · log K) plus moving `keys` (one Int64 per keyword) once for the whole change.
    mutating func edit(add: [String], remove: [String]) -> KeywordListEdit {
        precondition(clean, "an edit needs a clean overlay")
        let adding = Set(add), removing = Set(remove)
        var seen = Set<String>(), leaving: [Int64] = [], entering: [(key: Int64, keyword: String)] = []
        for keyword in add + remove where seen.insert(keyword).inserted {
            let before = keyOf[keyword] != nil
            let after = adding.contains(keyword) && !removing.contains(keyword)
            if before && !after, let key = keyOf.removeValue(forKey: keyword) {
                leaving.append(key)
            } else if !before && after {
                entering.append((baseIndex[keyword].map(Int64.init) ?? nextKey(), keyword))
            }
        }
        var edit = KeywordListEdit()
        let removals = leaving.map { keys.lowerBound(of: $0) }.sorted()
        edit.removals = removals.reversed()
        if !removals.isEmpty {
            var kept: [Int64] = [], r = 0
            kept.reserveCapacity(keys.count - removals.count)
            for (i, key) in keys.enumerated() {
                if r < removals.count && removals[r] == i { r += 1 } else { kept.append(key) }
            }
            keys = kept
        }
        guard !entering.isEmpty else { return edit }
        // The j-th entering key (ascending) lands after the j before it: at its place among the kept keys plus j.
        let sorted = entering.sorted(by: { $0.key < $1.key })
        for (j, (key, keyword)) in sorted.enumerated() {
            keyOf[keyword] = key
            edit.insertions.append((keys.lowerBound(of: key) + j, keyword))
        }
        var merged: [Int64] = [], old = 0
        merged.reserveCapacity(keys.count + sorted.count)
        for (key, _) in sorted {
            while old < keys.count && keys[old] < key { merged.append(keys[old]); old += 1 }
            merged.append(key)
        }
        merged.append(contentsOf: keys[old...])
        keys = merged
        return edit
    }
}
