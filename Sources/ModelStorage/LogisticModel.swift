// The fitted form of the confidence calibrator: a logistic model over standardised features.
import Foundation

/// `p(x) = σ(bias + Σ wᵢ (xᵢ − meanᵢ) / scaleᵢ)`.
public struct LogisticModel: Sendable, Equatable {
    public var mean: [Double]
    public var scale: [Double]
    public var weights: [Double]
    public var bias: Double

    public init(mean: [Double], scale: [Double], weights: [Double], bias: Double) {
        self.mean = mean
        self.scale = scale
        self.weights = weights
        self.bias = bias
    }

    /// - Complexity: O(features).
    public func probability(_ x: [Double]) -> Double {
        var z = bias
        for i in 0..<min(x.count, weights.count) { z += weights[i] * (x[i] - mean[i]) / scale[i] }
        return 1 / (1 + exp(-z))
    }
}
