/// One node on the best path of a segment.
struct PathNode: Sendable, Equatable {
    /// Scalar offsets within the segment.
    var start: Int
    var end: Int
    /// Lexicon entry index, or -1 for an unknown word.
    var entry: Int
    /// Parameter class (for the part of speech).
    var paramClass: UInt16
    var isOOV: Bool { entry < 0 }
}

/// Viterbi segmentation over the lexicon, following Sudachi's lattice rules: lexicon words that
/// end where a word may begin, MeCab-style unknown words from character categories, a one-character
/// fallback, and afterwards the joining of short or unknown katakana words and of digit runs.
struct Lattice {
    let lexicon: Lexicon
    /// Bitmap over lexicon entries (empty: none) of preferred words, whose cost is lowered by `preferredBonus`
    /// per character (up to eight): the words of the keyword list, so that a name is not split into a rarer word
    /// plus a stray kana where a keyword's word covers the same span (みょうがたけ, not みょう / が / たけ), and a longer
    /// keyword word beats a shorter one inside it (えごま油, not え / ごま油).
    let preferred: [UInt64]
    static let preferredBonus: Int32 = 1000

    init(lexicon: Lexicon, preferred: [UInt64] = []) {
        self.lexicon = lexicon
        self.preferred = preferred
    }

    @inline(__always)
    func cost(_ entry: Int, packed: UInt64, length: Int) -> Int16 {
        let cost = Int16(bitPattern: UInt16(truncatingIfNeeded: packed >> 16))
        guard !preferred.isEmpty, preferred[entry >> 6] & (1 << UInt64(entry & 63)) != 0 else { return cost }
        return Int16(clamping: Int32(cost) - Lattice.preferredBonus * Int32(min(length, 8)))
    }

    fileprivate struct Node {
        var start: Int32
        var end: Int32
        var entry: Int32
        var paramClass: UInt16
        var right: UInt16
        var total: Int32
        var previous: Int32
    }

    /// The growing lattice of one segment: nodes, and for each position the nodes ending there.
    /// Reused from segment to segment (`reset`) so its buffers are allocated once per name.
    struct State {
        let lexicon: Lexicon
        fileprivate var nodes: [Node] = []
        var categories: [CharCategories] = []
        var canBegin: [Bool] = []
        var continuity: [Int] = []
        /// Head of the list of nodes ending at each position (linked through `nextEnding`).
        var endingHead: [Int32]
        var nextEnding: [Int32] = []
        /// The best predecessor found last, for its start position and left class: consecutive
        /// candidates often share both.
        var cacheStart = -1
        var cacheLeftClass: UInt16 = 0
        var cacheBest: Int32 = 0
        var cachePrevious: Int32 = -1

        init(lexicon: Lexicon) {
            self.lexicon = lexicon
            endingHead = []
        }

        mutating func reset(count: Int) {
            nodes.removeAll(keepingCapacity: true)
            nextEnding.removeAll(keepingCapacity: true)
            endingHead.removeAll(keepingCapacity: true)
            endingHead.append(contentsOf: repeatElement(-1, count: count + 1))
            categories.removeAll(keepingCapacity: true)
            canBegin.removeAll(keepingCapacity: true)
            continuity.removeAll(keepingCapacity: true)
            cacheStart = -1
        }

        func reachable(_ position: Int) -> Bool { position == 0 || endingHead[position] >= 0 }

        /// Adds a node, linked to the best node ending where it starts (Viterbi step).
        mutating func add(_ start: Int, _ end: Int, entry: Int32, paramClass: UInt16, cost: Int16) {
            let left = lexicon.classLeft[Int(paramClass)]
            var best = Int32.max
            var bestPrevious: Int32 = -1
            if start == 0 {
                best = lexicon.connect(0, left)
            } else {
                if cacheStart == start && cacheLeftClass == left {
                    best = cacheBest
                    bestPrevious = cachePrevious
                } else {
                    var cursor = endingHead[start]
                    while cursor >= 0 {
                        let previous = nodes[Int(cursor)]
                        let total = previous.total &+ lexicon.connect(previous.right, left)
                        if total < best { best = total; bestPrevious = cursor }
                        cursor = nextEnding[Int(cursor)]
                    }
                    cacheStart = start
                    cacheLeftClass = left
                    cacheBest = best
                    cachePrevious = bestPrevious
                }
                if bestPrevious < 0 { return }
            }
            nodes.append(Node(start: Int32(start), end: Int32(end), entry: entry, paramClass: paramClass,
                              right: lexicon.classRight[Int(paramClass)], total: best &+ Int32(cost), previous: bestPrevious))
            nextEnding.append(endingHead[end])
            endingHead[end] = Int32(nodes.count - 1)
        }

        /// MeCab-style unknown words starting at `start`. Returns whether any were added.
        mutating func addUnknown(at start: Int, categories: CharCategories, run: Int, otherWords: Bool) -> Bool {
            var created = false
            var remaining = categories.bits
            while remaining != 0 {
                let raw = UInt8(remaining.trailingZeroBitCount)
                remaining &= remaining - 1
                guard let category = CharCategory(rawValue: raw) else { continue }
                if !category.invoke && otherWords { continue }
                var available = run
                let definitions = lexicon.unknownByCategory[Int(category.rawValue)]
                if category.group {
                    for unknown in definitions {
                        add(start, start + run, entry: -1, paramClass: unknown.paramClass, cost: unknown.cost)
                        created = true
                    }
                    available -= 1
                }
                if category.length > 0 {
                    for length in 1 ... category.length {
                        if length > available { break }
                        for unknown in definitions {
                            add(start, start + length, entry: -1, paramClass: unknown.paramClass, cost: unknown.cost)
                            created = true
                        }
                    }
                }
            }
            return created
        }

        /// The cheapest path from the start to `count`, or nil.
        func bestPath(count: Int) -> [PathNode]? {
            var best = Int32.max
            var cursor = endingHead[count]
            var last: Int32 = -1
            while cursor >= 0 {
                let node = nodes[Int(cursor)]
                let total = node.total &+ lexicon.connect(node.right, 0)
                if total < best { best = total; last = cursor }
                cursor = nextEnding[Int(cursor)]
            }
            guard last >= 0 else { return nil }
            var path: [PathNode] = []
            while last >= 0 {
                let node = nodes[Int(last)]
                path.append(PathNode(start: Int(node.start), end: Int(node.end), entry: Int(node.entry), paramClass: node.paramClass))
                last = node.previous
            }
            path.reverse()
            return path
        }
    }

    /// Segments `scalars` (already normalised).
    /// - Complexity: O(n × w) for n scalars and w lexicon matches per position (bounded by the
    ///   longest surface, 16 scalars).
    func segment(scalars: ArraySlice<UInt32>) -> [PathNode] {
        var state = State(lexicon: lexicon)
        return segment(scalars: scalars, state: &state)
    }

    /// `segment(scalars:)` with a reusable state.
    func segment(scalars: ArraySlice<UInt32>, state: inout State) -> [PathNode] {
        let count = scalars.count
        if count == 0 { return [] }
        state.reset(count: count)
        let base = scalars.startIndex
        for index in 0 ..< count { state.categories.append(CharCategories.of(scalars[base + index])) }
        beginnings(state.categories, into: &state.canBegin)
        continuityLengths(state.categories, into: &state.continuity)
        let categories = state.categories
        let canBegin = state.canBegin
        let continuity = state.continuity

        scalars.withUnsafeBufferPointer { text in
            for start in 0 ..< count where state.reachable(start) {
                var longestWord = 0
                var hash = Lexicon.fnvBasis
                var end = start
                while end < count && end - start < 16 {
                    let scalar = text[end]
                    if scalar > 0xFFFF { break }
                    hash = Lexicon.fnvStep(hash, UInt16(scalar))
                    end += 1
                    let (first, latticeEntries, extends) = lexicon.probe(hash: hash, text: text, start: start, end: end)
                    if latticeEntries > 0 && (end == count || canBegin[end]) {
                        for entry in first ..< first + latticeEntries {
                            let packed = lexicon.entryPacked[entry]
                            state.add(start, end, entry: Int32(entry), paramClass: UInt16(truncatingIfNeeded: packed),
                                      cost: cost(entry, packed: packed, length: end - start))
                        }
                        longestWord = end - start
                    }
                    if !extends { break }
                }
                var created = longestWord > 0
                if !categories[start].noOOVBeginning {
                    created = state.addUnknown(at: start, categories: categories[start], run: continuity[start],
                                               otherWords: longestWord > 0) || created
                }
                if !created {
                    // Sudachi's SimpleOovPlugin: one symbol-like word up to the next possible beginning.
                    var end = start + 1
                    while end < count && !canBegin[end] { end += 1 }
                    if let fallback = lexicon.unknownWords.first(where: { $0.category == .default }) {
                        state.add(start, end, entry: -1, paramClass: fallback.paramClass, cost: fallback.cost)
                    }
                }
            }
        }

        guard let path = state.bestPath(count: count) else {
            // Cannot happen with the one-character fallback; keep the text whole rather than lose it.
            let paramClass = lexicon.unknownWords.first?.paramClass ?? 0
            return [PathNode(start: 0, end: count, entry: -1, paramClass: paramClass)]
        }
        return joinDigits(joinKatakana(path, categories: categories), scalars: scalars)
    }

    /// Sudachi's beginning-of-word rule: not inside a run of Latin/Greek/Cyrillic letters, not at
    /// characters that cannot begin a word.
    private func beginnings(_ categories: [CharCategories], into result: inout [Bool]) {
        let nonStarting = CharCategory.alpha.bit | CharCategory.greek.bit | CharCategory.cyrillic.bit
        result.append(contentsOf: repeatElement(true, count: categories.count))
        var previous: UInt16 = 0
        for (index, category) in categories.enumerated() {
            if category.noOOVBeginning {
                result[index] = false
            } else if category.bits & nonStarting != 0 {
                result[index] = category.bits & previous == 0
            }
            previous = category.bits
        }
    }

    /// For each position, how many scalars continue a shared category (Sudachi's continuity).
    private func continuityLengths(_ categories: [CharCategories], into result: inout [Int]) {
        result.append(contentsOf: repeatElement(1, count: categories.count))
        guard var shared = categories.last?.bits else { return }
        var index = categories.count - 2
        while index >= 0 {
            let common = categories[index].bits & shared
            if common != 0 {
                result[index] = result[index + 1] + 1
                shared = common
            } else {
                shared = categories[index].bits
            }
            index -= 1
        }
    }

    private func isKatakana(_ node: PathNode, _ categories: [CharCategories]) -> Bool {
        var bits: UInt16 = 0xFFFF
        for index in node.start ..< node.end { bits &= categories[index].bits }
        return bits & CharCategory.katakana.bit != 0
    }

    /// Sudachi's JoinKatakanaOovPlugin (minimum length 3): an unknown or short katakana word joins
    /// the katakana words around it into one unknown noun.
    private func joinKatakana(_ input: [PathNode], categories: [CharCategories]) -> [PathNode] {
        guard let noun = lexicon.unknownWords.first(where: { $0.category == .katakana }) else { return input }
        var path = input
        var index = 0
        while index < path.count {
            let node = path[index]
            guard node.isOOV || node.end - node.start < 3, isKatakana(node, categories) else {
                index += 1
                continue
            }
            var begin = index - 1
            while begin >= 0 && isKatakana(path[begin], categories) { begin -= 1 }
            begin += 1
            var end = index + 1
            while end < path.count && isKatakana(path[end], categories) { end += 1 }
            while begin != end && categories[path[begin].start].noOOVBeginning { begin += 1 }
            if end - begin > 1 {
                let joined = PathNode(start: path[begin].start, end: path[end - 1].end, entry: -1, paramClass: noun.paramClass)
                path.replaceSubrange(begin ..< end, with: [joined])
                index = begin + 1
            }
            index += 1
        }
        return path
    }

    /// Joins neighbouring words made only of ASCII digits (with `.` or `,` between digits).
    private func joinDigits(_ input: [PathNode], scalars: ArraySlice<UInt32>) -> [PathNode] {
        let base = scalars.startIndex
        func isNumber(_ node: PathNode) -> Bool {
            (node.start ..< node.end).allSatisfy { (0x30 ... 0x39).contains(scalars[base + $0]) }
        }
        guard input.count > 1, let numeric = lexicon.unknownWords.first(where: { $0.category == .numeric }) else { return input }
        var path: [PathNode] = []
        for node in input {
            if let previous = path.last, isNumber(previous), isNumber(node) {
                path[path.count - 1] = PathNode(start: previous.start, end: node.end, entry: -1, paramClass: numeric.paramClass)
            } else {
                path.append(node)
            }
        }
        return path
    }
}
