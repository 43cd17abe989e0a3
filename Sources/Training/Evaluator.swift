// Ranking metrics: Accuracy@1, Accuracy@5 and MRR, where a name's rank is the best rank of any of its keywords,
// and primary Accuracy@1 / MRR, where only the first listed (most specific) keyword counts.
import Dispatch
import KeywordIndex
import KeywordModel
import ModelStorage
import SuggestionRuntime
import TrainingData

/// Metrics over n names. A name none of whose keywords is a candidate counts as a miss (reciprocal rank 0).
public struct EvaluationMetrics: Sendable, Equatable {
    public var n = 0
    public var hitsAt1 = 0
    public var hitsAt5 = 0
    public var reciprocalRankSum = 0.0
    /// Names whose first listed keyword ranks first (白ごま first for 「白ごま」, not ごま).
    public var primaryHitsAt1 = 0
    public var primaryReciprocalRankSum = 0.0

    public init() {}

    public var accuracyAt1: Double { n == 0 ? 0 : Double(hitsAt1) / Double(n) }
    public var accuracyAt5: Double { n == 0 ? 0 : Double(hitsAt5) / Double(n) }
    public var mrr: Double { n == 0 ? 0 : reciprocalRankSum / Double(n) }
    public var primaryAccuracyAt1: Double { n == 0 ? 0 : Double(primaryHitsAt1) / Double(n) }
    public var primaryMRR: Double { n == 0 ? 0 : primaryReciprocalRankSum / Double(n) }

    /// Adds one name: `rank` is the best rank of any of its keywords, `primaryRank` that of its first keyword
    /// (nil when it is not a candidate; a miss).
    public mutating func add(rank: Int?, primaryRank: Int? = nil) {
        n += 1
        if let primaryRank {
            if primaryRank == 1 { primaryHitsAt1 += 1 }
            primaryReciprocalRankSum += 1 / Double(primaryRank)
        }
        guard let rank else { return }
        if rank == 1 { hitsAt1 += 1 }
        if rank <= 5 { hitsAt5 += 1 }
        reciprocalRankSum += 1 / Double(rank)
    }
}

/// The ranks of one labelled name: the best of any of its keywords, and that of its first (primary) keyword.
public struct NameRank: Sendable, Equatable {
    public var best: Int?
    public var primary: Int?
    public init(best: Int?, primary: Int?) {
        self.best = best
        self.primary = primary
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
    public static func ranks(_ data: [LabelledName], index: KeywordIndex, analyzer: any TextAnalyzer, roles: KeywordRoles,
                             mode: RankingMode = .model, threads: Int = 2) -> [Int?] {
        rankings(data, index: index, analyzer: analyzer, roles: roles, mode: mode, threads: threads).map(\.best)
    }

    /// The best and the primary rank of each name, in input order.
    /// - Complexity: O(N · K · n · hidden), split over `threads`.
    /// The served order reads `roles` as serving does.
    public static func rankings(_ data: [LabelledName], index: KeywordIndex, analyzer: any TextAnalyzer, roles: KeywordRoles,
                                mode: RankingMode = .model, threads: Int = 2) -> [NameRank] {
        var position: [String: Int] = [:]
        var folded: [[UInt32]: Int] = [:]
        for (k, entry) in index.entries.enumerated() {
            if position[entry.keyword] == nil { position[entry.keyword] = k }
            if folded[entry.text.folded] == nil { folded[entry.text.folded] = k }
        }
        let shards = max(1, threads)
        let results = ConcurrentResults(count: data.count, empty: NameRank(best: nil, primary: nil))
        let positionTable = position, foldedTable = folded
        DispatchQueue.concurrentPerform(iterations: shards) { shard in
            var i = shard
            while i < data.count {
                let item = data[i]
                let positions = item.keywords.map { keyword -> Int? in
                    positionTable[keyword] ?? foldedTable[analyzer.analyzeKeyword(keyword).lexical.folded]
                }
                let positives = positions.compactMap { $0 }
                if !positives.isEmpty {
                    let name = analyzer.analyzeName(item.name).lexical
                    let primary = positions.first.flatMap { $0 }
                    switch mode {
                    case .containment:
                        let scores = index.containmentScores(name)
                        results.set(i, NameRank(best: KeywordIndex.bestRank(scores, positives: positives),
                                                primary: primary.flatMap { KeywordIndex.bestRank(scores, positives: [$0]) }))
                    case .model:
                        let served = servedRanks(name, index: index, roles: roles)
                        results.set(i, NameRank(best: served.rank(positives), primary: primary.flatMap { served.rank([$0]) }))
                    }
                }
                i += shards
            }
        }
        return results.values
    }

    /// The ranks of keywords for `name` as served: the best `NameHead.depth` in serving order (`NameHead.ordered`),
    /// the rest by score (serving reorders only those).
    static func servedRanks(_ name: LexicalText, index: KeywordIndex, roles: KeywordRoles) -> ServedRanks {
        let (scores, found) = index.scoresAndSearch(name, k: NameHead.depth + 1)
        let served = name.rows.isEmpty
            ? [] : ConfidenceFeatures.served(found, name: name, k: NameHead.depth, roles: roles, index: index)
        return ServedRanks(scores: scores, top: served.map(\.keyword.index))
    }

    struct ServedRanks {
        var scores: [Float]
        var top: [Int]

        /// The best rank of any of `positives` (1-based); nil when none is a keyword of the list.
        func rank(_ positives: [Int]) -> Int? {
            if let i = top.firstIndex(where: positives.contains) { return i + 1 }
            // Below the served ones (a tie at the edge could otherwise give a served rank twice).
            return KeywordIndex.bestRank(scores, positives: positives).map { max($0, top.count + 1) }
        }
    }

    /// Metrics overall and per `source` (best ranks only: the primary metrics stay zero).
    public static func metrics(_ data: [LabelledName], ranks: [Int?]) -> (all: EvaluationMetrics, bySource: [String: EvaluationMetrics]) {
        metrics(data, rankings: ranks.map { NameRank(best: $0, primary: nil) })
    }

    /// Metrics overall and per `source`, with the primary metrics.
    public static func metrics(_ data: [LabelledName], rankings: [NameRank]) -> (all: EvaluationMetrics, bySource: [String: EvaluationMetrics]) {
        var all = EvaluationMetrics()
        var bySource: [String: EvaluationMetrics] = [:]
        for (item, rank) in zip(data, rankings) {
            all.add(rank: rank.best, primaryRank: rank.primary)
            bySource[item.source, default: EvaluationMetrics()].add(rank: rank.best, primaryRank: rank.primary)
        }
        return (all, bySource)
    }
}
