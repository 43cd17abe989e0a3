// The two statistics the auto-accept rule rests on: a lower credible bound of a Beta posterior, and the exact
// binomial test of "at least this many wrong". Pure functions of counts.
import Foundation

public enum EvidenceBounds {
    /// The regularized incomplete beta function I_x(a, b), by its continued fraction (Lentz's method).
    /// - Complexity: O(1) (at most 300 terms).
    public static func incompleteBeta(_ x: Double, _ a: Double, _ b: Double) -> Double {
        guard a > 0, b > 0 else { return a <= 0 ? 1 : 0 }
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        // The fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry beyond it.
        if x > (a + 1) / (a + b + 2) { return 1 - incompleteBeta(1 - x, b, a) }
        let logBeta: Double = lgamma(a) + lgamma(b) - lgamma(a + b)
        let logPowers: Double = a * log(x) + b * log(1 - x)
        let logFront = logPowers - logBeta
        let tiny = 1e-300
        var c = 1.0, d = 1 - (a + b) * x / (a + 1)
        d = abs(d) < tiny ? tiny : d
        d = 1 / d
        var fraction = d
        for m in 1...300 {
            let m = Double(m)
            let even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
            d = 1 + even * d; d = abs(d) < tiny ? tiny : d; d = 1 / d
            c = 1 + even / c; c = abs(c) < tiny ? tiny : c
            fraction *= d * c
            let odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
            d = 1 + odd * d; d = abs(d) < tiny ? tiny : d; d = 1 / d
            c = 1 + odd / c; c = abs(c) < tiny ? tiny : c
            let step = d * c
            fraction *= step
            if abs(step - 1) < 1e-13 { break }
        }
        return exp(logFront) * fraction / a
    }

    /// The `q` quantile of Beta(a, b): the x with I_x(a, b) = q, by bisection to 1e-9.
    /// - Complexity: O(1) (about 30 evaluations of `incompleteBeta`).
    public static func betaQuantile(_ q: Double, _ a: Double, _ b: Double) -> Double {
        var low = 0.0, high = 1.0
        while high - low > 1e-9 {
            let middle = (low + high) / 2
            if incompleteBeta(middle, a, b) < q { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// P(X ≥ k) for X ~ Binomial(n, p): the chance of at least `k` wrong in `n` when each is wrong with `p`.
    public static func binomialUpperTail(_ k: Int, _ n: Int, _ p: Double) -> Double {
        guard k > 0 else { return 1 }
        guard k <= n else { return 0 }
        return incompleteBeta(p, Double(k), Double(n - k + 1))
    }
}
