// The containment baseline (`eval --ablation lexical`): keywords whose text occurs in the normalised name,
// longest first. No model, no vectors: the floor the trained model must beat.
import KeywordModel

extension KeywordIndex {
    /// Containment-baseline scores: 1 + length/1000 for keywords whose folded text occurs in the folded name,
    /// 0 otherwise (so contained keywords rank longest first, then by list order).
    /// - Complexity: O(name length · longest keyword + K).
    public func containmentScores(_ name: LexicalText) -> [Float] {
        var scratch = LexicalScratch(keywordCount: matcher.keywordCount)
        matcher.match(name, into: &scratch)
        var scores = [Float](repeating: 0, count: count)
        for slot32 in scratch.touched {
            let slot = Int(slot32), k = Int(order[slot])
            if k >= 0 && scratch.features[slot * LexicalFeature.count + LexicalFeature.text.rawValue] > 0 {
                scores[k] = 1 + Float(matcher.textLength(of: slot)) / 1000
            }
        }
        return scores
    }

    /// The 1-based rank of the best of `positives` under `scores` (ties: lower index first), or nil.
    public static func bestRank(_ scores: [Float], positives: [Int]) -> Int? {
        var best: Int?
        for p in positives where p >= 0 && p < scores.count {
            if best == nil || scores[p] > scores[best!] || (scores[p] == scores[best!] && p < best!) { best = p }
        }
        guard let target = best else { return nil }
        let s = scores[target]
        var rank = 1
        for (i, score) in scores.enumerated() where score > s || (score == s && i < target) { rank += 1 }
        return rank
    }
}
