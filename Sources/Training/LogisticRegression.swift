// A small L2-regularised logistic regression, fitted by Newton's method (IRLS) on standardised features.
import Foundation
import ModelStorage

public enum LogisticRegression {
    /// Fits `y ~ x` by Newton's method on standardised features (a constant feature gets scale 1), with an L2
    /// penalty `l2` on the weights (not the bias). Deterministic; stops when no step moves a weight by 1e-9.
    /// - Complexity: O(iterations · n · d²) for n rows of d features.
    public static func fit(_ x: [[Double]], _ y: [Bool], l2: Double = 1, iterations: Int = 50) -> LogisticModel {
        let d = x.first?.count ?? 0
        let n = Double(max(x.count, 1))
        var mean = [Double](repeating: 0, count: d)
        var scale = [Double](repeating: 1, count: d)
        for row in x { for j in 0..<d { mean[j] += row[j] / n } }
        for j in 0..<d {
            var variance = 0.0
            for row in x { variance += (row[j] - mean[j]) * (row[j] - mean[j]) / n }
            scale[j] = variance > 1e-12 ? variance.squareRoot() : 1
        }
        let z = x.map { row in (0..<d).map { (row[$0] - mean[$0]) / scale[$0] } + [1] }
        let m = d + 1
        var beta = [Double](repeating: 0, count: m)
        for _ in 0..<iterations {
            var gradient = [Double](repeating: 0, count: m)
            var hessian = [Double](repeating: 0, count: m * m)
            for (row, label) in zip(z, y) {
                var s = 0.0
                for j in 0..<m { s += beta[j] * row[j] }
                let p = 1 / (1 + exp(-s))
                let w = max(p * (1 - p), 1e-10)
                let r = (label ? 1 : 0) - p
                for j in 0..<m {
                    gradient[j] += r * row[j]
                    for l in j..<m { hessian[j * m + l] += w * row[j] * row[l] }
                }
            }
            for j in 0..<m { for l in 0..<j { hessian[j * m + l] = hessian[l * m + j] } }
            for j in 0..<d {
                gradient[j] -= l2 * beta[j]
                hessian[j * m + j] += l2
            }
            guard let step = solve(hessian, gradient, size: m) else { break }
            var largest = 0.0
            for j in 0..<m {
                beta[j] += step[j]
                largest = max(largest, abs(step[j]))
            }
            if largest < 1e-9 { break }
        }
        return LogisticModel(mean: mean, scale: scale, weights: Array(beta[0..<d]), bias: beta[d])
    }

    /// Solves `a x = b` for a symmetric positive definite `a` (row-major, size × size) by Cholesky; nil when
    /// `a` is not positive definite.
    static func solve(_ a: [Double], _ b: [Double], size m: Int) -> [Double]? {
        var l = [Double](repeating: 0, count: m * m)
        for i in 0..<m {
            for j in 0...i {
                var sum = a[i * m + j]
                for k in 0..<j { sum -= l[i * m + k] * l[j * m + k] }
                if i == j {
                    guard sum > 0 else { return nil }
                    l[i * m + i] = sum.squareRoot()
                } else {
                    l[i * m + j] = sum / l[j * m + j]
                }
            }
        }
        var y = b
        for i in 0..<m {
            for k in 0..<i { y[i] -= l[i * m + k] * y[k] }
            y[i] /= l[i * m + i]
        }
        for i in stride(from: m - 1, through: 0, by: -1) {
            for k in (i + 1)..<m { y[i] -= l[k * m + i] * y[k] }
            y[i] /= l[i * m + i]
        }
        return y
    }
}
