// The varieties table as the lexical matcher indexes it.

/// The varieties table, indexed by the target's spelling and rows (fixed for a matcher and its updates).
final class VarietyTable: Sendable {
    let entries: [VarietyEntry]
    let byTargetText: [[UInt32]: [Int]]
    let byTargetRows: [[Int32]: [Int]]
    /// The entries' distinct weights, ascending; `table[v]` is the index of entry v's weight among them.
    let weights: [Float]
    let table: [Int]

    init(_ entries: [VarietyEntry]) {
        self.entries = entries
        let weights = Set(entries.map(\.weight)).sorted()
        self.weights = weights
        table = entries.map { entry in weights.firstIndex(of: entry.weight) ?? 0 }
        var byText: [[UInt32]: [Int]] = [:], byRows: [[Int32]: [Int]] = [:]
        for (v, entry) in entries.enumerated() {
            byText[entry.target.folded, default: []].append(v)
            if LexicalMatcher.validRows(entry.target.rows) { byRows[entry.target.rows, default: []].append(v) }
        }
        byTargetText = byText
        byTargetRows = byRows
    }
}
