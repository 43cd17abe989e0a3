// The article's attention and cosine, in Float64, with the hand-written backward pass.
//
// Name states h_i (n × hidden), keyword states g_j (m × hidden):
//   a_i = unit(h_i) · mean_j unit(g_j)          (mean cosine of name word i to the keyword's words)
//   α   = softmax(τ · a)                        (uniform when attention is off)
//   u   = Σ_i α_i h_i,   g = mean_j g_j
//   s   = cos(u, g)

/// Forward values of one (name, keyword) pair, kept for the backward pass.
public struct PairActivation: Sendable {
    public var score: Double
    public var weights: [Double]
    var similarities: [Double]
    var nameUnits: [Double]
    var nameNorms: [Double]
    var keywordUnits: [Double]
    var keywordNorms: [Double]
    var keywordUnitMean: [Double]
    var pooledName: [Double]
    var pooledKeyword: [Double]
}

/// Gradients of one pair with respect to its inputs.
public struct PairGradient: Sendable {
    public var name: [Double]
    public var keyword: [Double]
    public var temperature: Double
}

public enum AttentionScorer {
    static let epsilon = 1e-12

    /// Scores one pair. `hidden` is the state width; `attention == false` gives uniform weights.
    /// - Complexity: O((n + m) · hidden).
    public static func forward(name: [Double], keyword: [Double], hidden h: Int,
                               temperature: Double, attention: Bool) -> PairActivation {
        let n = name.count / h, m = keyword.count / h
        var act = PairActivation(score: 0, weights: [Double](repeating: n > 0 ? 1 / Double(n) : 0, count: n),
                                 similarities: [Double](repeating: 0, count: n),
                                 nameUnits: name, nameNorms: [Double](repeating: 0, count: n),
                                 keywordUnits: keyword, keywordNorms: [Double](repeating: 0, count: m),
                                 keywordUnitMean: [Double](repeating: 0, count: h),
                                 pooledName: [Double](repeating: 0, count: h),
                                 pooledKeyword: [Double](repeating: 0, count: h))
        guard n > 0, m > 0 else { return act }
        for i in 0..<n {
            var sq = epsilon
            for q in 0..<h { sq += name[i * h + q] * name[i * h + q] }
            let norm = sq.squareRoot()
            act.nameNorms[i] = norm
            for q in 0..<h { act.nameUnits[i * h + q] = name[i * h + q] / norm }
        }
        for j in 0..<m {
            var sq = epsilon
            for q in 0..<h { sq += keyword[j * h + q] * keyword[j * h + q] }
            let norm = sq.squareRoot()
            act.keywordNorms[j] = norm
            for q in 0..<h {
                let unit = keyword[j * h + q] / norm
                act.keywordUnits[j * h + q] = unit
                act.keywordUnitMean[q] += unit / Double(m)
                act.pooledKeyword[q] += keyword[j * h + q] / Double(m)
            }
        }
        if attention {
            var largest = -Double.infinity
            for i in 0..<n {
                var a = 0.0
                for q in 0..<h { a += act.nameUnits[i * h + q] * act.keywordUnitMean[q] }
                act.similarities[i] = a
                largest = max(largest, temperature * a)
            }
            var total = 0.0
            for i in 0..<n {
                let e = expD(temperature * act.similarities[i] - largest)
                act.weights[i] = e
                total += e
            }
            for i in 0..<n { act.weights[i] /= total }
        }
        for i in 0..<n {
            for q in 0..<h { act.pooledName[q] += act.weights[i] * name[i * h + q] }
        }
        var dot = 0.0, uu = epsilon, gg = epsilon
        for q in 0..<h {
            dot += act.pooledName[q] * act.pooledKeyword[q]
            uu += act.pooledName[q] * act.pooledName[q]
            gg += act.pooledKeyword[q] * act.pooledKeyword[q]
        }
        act.score = dot / (uu.squareRoot() * gg.squareRoot())
        return act
    }

    /// The gradient of `dScore · score` with respect to the name states, keyword states and temperature.
    /// - Complexity: O((n + m) · hidden).
    public static func backward(_ act: PairActivation, dScore: Double, name: [Double], keyword: [Double],
                                hidden h: Int, temperature: Double, attention: Bool) -> PairGradient {
        let n = name.count / h, m = keyword.count / h
        var result = PairGradient(name: [Double](repeating: 0, count: name.count),
                                  keyword: [Double](repeating: 0, count: keyword.count), temperature: 0)
        guard n > 0, m > 0, dScore != 0 else { return result }
        let u = act.pooledName, g = act.pooledKeyword
        var uu = epsilon, gg = epsilon
        for q in 0..<h { uu += u[q] * u[q]; gg += g[q] * g[q] }
        let un = uu.squareRoot(), gn = gg.squareRoot(), s = act.score
        var du = [Double](repeating: 0, count: h), dg = [Double](repeating: 0, count: h)
        for q in 0..<h {
            du[q] = dScore * (g[q] / (un * gn) - s * u[q] / uu)
            dg[q] = dScore * (u[q] / (un * gn) - s * g[q] / gg)
        }
        // u = Σ α_i h_i
        var dAlpha = [Double](repeating: 0, count: n)
        for i in 0..<n {
            var d = 0.0
            for q in 0..<h {
                d += du[q] * name[i * h + q]
                result.name[i * h + q] += act.weights[i] * du[q]
            }
            dAlpha[i] = d
        }
        // g = mean_j g_j
        for j in 0..<m { for q in 0..<h { result.keyword[j * h + q] += dg[q] / Double(m) } }
        guard attention else { return result }
        // α = softmax(τ a)
        var mean = 0.0
        for i in 0..<n { mean += act.weights[i] * dAlpha[i] }
        var dMean = [Double](repeating: 0, count: h)
        for i in 0..<n {
            let dLogit = act.weights[i] * (dAlpha[i] - mean)
            result.temperature += dLogit * act.similarities[i]
            let da = temperature * dLogit
            // a_i = ĥ_i · μ ; ĥ_i = h_i / |h_i|
            var radial = 0.0
            for q in 0..<h {
                dMean[q] += da * act.nameUnits[i * h + q]
                radial += act.nameUnits[i * h + q] * act.keywordUnitMean[q]
            }
            let norm = act.nameNorms[i]
            for q in 0..<h {
                let dUnit = da * act.keywordUnitMean[q]
                result.name[i * h + q] += (dUnit - act.nameUnits[i * h + q] * da * radial) / norm
            }
        }
        // μ = mean_j ĝ_j ; ĝ_j = g_j / |g_j|
        for j in 0..<m {
            var radial = 0.0
            for q in 0..<h { radial += act.keywordUnits[j * h + q] * dMean[q] }
            let norm = act.keywordNorms[j]
            for q in 0..<h {
                let dUnit = dMean[q] / Double(m)
                result.keyword[j * h + q] += (dUnit - act.keywordUnits[j * h + q] * radial / Double(m)) / norm
            }
        }
        return result
    }
}
