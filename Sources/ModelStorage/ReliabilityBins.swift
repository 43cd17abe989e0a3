// Top-1 confidences against outcomes, in the ten equal-width bins of a reliability diagram: one definition of
// the expected calibration error for training's reports, the promote gate and the shadow's live figures.

/// Sums per bin of (confidence, right or wrong) pairs; O(1) to add a pair and to read the ECE.
public struct ReliabilityBins: Sendable, Equatable {
    public static let binCount = 10

    /// Per bin: pairs, the sum of their confidences, how many were right.
    public private(set) var counts = [Int](repeating: 0, count: binCount)
    public private(set) var confidenceSums = [Double](repeating: 0, count: binCount)
    public private(set) var rightCounts = [Int](repeating: 0, count: binCount)

    public init() {}

    public init(_ pairs: [(Double, Bool)]) {
        for (confidence, correct) in pairs { add(confidence: confidence, correct: correct) }
    }

    /// The bin of `confidence`: [b/10, (b+1)/10), with 1 in the last.
    public static func bin(of confidence: Double) -> Int {
        min(binCount - 1, max(0, Int(confidence * Double(binCount))))
    }

    public mutating func add(confidence: Double, correct: Bool) {
        let b = Self.bin(of: confidence)
        counts[b] += 1
        confidenceSums[b] += confidence
        if correct { rightCounts[b] += 1 }
    }

    public var total: Int { counts.reduce(0, +) }

    /// Expected calibration error: Σ (nᵦ / n) |accuracyᵦ − mean confidenceᵦ|; 0 with no pairs.
    public var ece: Double {
        let total = Double(self.total)
        guard total > 0 else { return 0 }
        return counts.indices.reduce(0) { sum, b in
            guard counts[b] > 0 else { return sum }
            let n = Double(counts[b])
            return sum + n / total * abs(Double(rightCounts[b]) / n - confidenceSums[b] / n)
        }
    }
}
