// Ranking metrics: Accuracy@1, Accuracy@5 and MRR, where a name's rank is the best rank of any of its keywords.
import Dispatch
import KeywordIndex
import KeywordModel

/// Metrics over n names. A name none of whose keywords is a candidate counts as a miss (reciprocal rank 0).
public struct EvaluationMetrics: Sendable, Equatable {
    public var n = 0
    public var hitsAt1 = 0
    public var hitsAt5 = 0
    public var reciprocalRankSum = 0.0

    public init() {}

    public var accuracyAt1: Double { n == 0 ? 0 : Double(hitsAt1) / Double(n) }
    public var accuracyAt5: Double { n == 0 ? 0 : Double(hitsAt5) / Double(n) }
    public var mrr: Double { n == 0 ? 0 : reciprocalRankSum / Double(n) }

    public mutating func add(rank: Int?) {
        n += 1
        guard let rank else { return }
        if rank == 1 { hitsAt1 += 1 }
        if rank <= 5 { hitsAt5 += 1 }
        reciprocalRankSum += 1 / Double(rank)
    }
}

/// How the candidates are ranked.
public enum RankingMode: String, Sendable, CaseIterable {
    case model
    /// The containment baseline: keywords contained in the normalised name, longest first.
    case containment
}

public enum Evaluator {
    /// The rank of each name (nil when none of its keywords is among the candidates), in input order.
    /// - Complexity: O(N · K · n · hidden), split over `threads`.
    public static func ranks(_ data: [LabelledName], index: KeywordIndex, analyzer: any TextAnalyzer,
                             mode: RankingMode = .model, threads: Int = 2) -> [Int?] {
        var position: [String: Int] = [:]
        var folded: [[UInt32]: Int] = [:]
        for (k, entry) in index.entries.enumerated() {
            if position[entry.keyword] == nil { position[entry.keyword] = k }
            if folded[entry.text.folded] == nil { folded[entry.text.folded] = k }
        }
        let shards = max(1, threads)
        let results = ResultSlots(count: data.count)
        let positionTable = position, foldedTable = folded
        DispatchQueue.concurrentPerform(iterations: shards) { shard in
            var i = shard
            while i < data.count {
                let item = data[i]
                let positives = item.keywords.compactMap { keyword -> Int? in
                    positionTable[keyword] ?? foldedTable[analyzer.analyzeKeyword(keyword).lexical.folded]
                }
                if !positives.isEmpty {
                    let name = analyzer.analyzeName(item.name).lexical
                    let scores = mode == .containment ? index.containmentScores(name) : index.scores(name)
                    results.set(i, KeywordIndex.bestRank(scores, positives: positives))
                }
                i += shards
            }
        }
        return results.values
    }

    /// Metrics overall and per `source`.
    public static func metrics(_ data: [LabelledName], ranks: [Int?]) -> (all: EvaluationMetrics, bySource: [String: EvaluationMetrics]) {
        var all = EvaluationMetrics()
        var bySource: [String: EvaluationMetrics] = [:]
        for (item, rank) in zip(data, ranks) {
            all.add(rank: rank)
            bySource[item.source, default: EvaluationMetrics()].add(rank: rank)
        }
        return (all, bySource)
    }
}

/// One result slot per name, each written by exactly one concurrent iteration.
private final class ResultSlots: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Int?>
    let count: Int
    init(count: Int) {
        self.count = count
        storage = .allocate(capacity: max(1, count))
        storage.initialize(repeating: nil, count: max(1, count))
    }
    deinit {
        storage.deinitialize(count: max(1, count))
        storage.deallocate()
    }
    func set(_ i: Int, _ value: Int?) {
        precondition(i >= 0 && i < count)
        storage[i] = value
    }
    var values: [Int?] { (0..<count).map { storage[$0] } }
}
