import Foundation
import Training

/// Text and JSON renderings of calibration metrics, for `eval`.
enum CalibrationReport {
    static func text(_ metrics: CalibrationMetrics) -> String {
        var out = "Calibration (top-1, 10 bins): ECE \(f(metrics.eceTop1)) \(range(metrics.eceTop1Interval)), Brier \(f(metrics.brierTop1)) \(range(metrics.brierTop1Interval))\n"
        out += "Calibration (top-5): ECE \(f(metrics.eceTop5)), Brier \(f(metrics.brierTop5))\n"
        for c in metrics.coverage {
            let threshold = c.threshold.map(f) ?? "none"
            out += "Auto-accept at \(Int((c.target * 100).rounded()))% precision: threshold \(threshold), coverage \(f(c.coverage)) \(range(c.coverageInterval)), precision \(f(c.precision)) \(range(c.precisionInterval)); best threshold on this data: coverage \(f(c.oracleCoverage))\n"
        }
        return out
    }

    static func json(_ metrics: CalibrationMetrics) -> String {
        func interval(_ i: CalibrationMetrics.Interval) -> String { "[\(g(i.low)),\(g(i.high))]" }
        let coverage = metrics.coverage.map { c in
            "{\"precision_target\":\(g(c.target)),\"threshold\":\(c.threshold.map(g) ?? "null"),\"coverage\":\(g(c.coverage)),\"coverage_interval\":\(interval(c.coverageInterval)),\"precision\":\(g(c.precision)),\"precision_interval\":\(interval(c.precisionInterval)),\"oracle_coverage\":\(g(c.oracleCoverage))}"
        }.joined(separator: ",")
        let bins = metrics.bins.map { b in
            "{\"lower\":\(g(b.lower)),\"upper\":\(g(b.upper)),\"count\":\(b.count),\"mean_confidence\":\(g(b.meanConfidence)),\"accuracy\":\(g(b.accuracy))}"
        }.joined(separator: ",")
        return "{\"names\":\(metrics.names),\"ece_top1\":\(g(metrics.eceTop1)),\"ece_top1_interval\":\(interval(metrics.eceTop1Interval)),\"brier_top1\":\(g(metrics.brierTop1)),\"brier_top1_interval\":\(interval(metrics.brierTop1Interval)),\"ece_top5\":\(g(metrics.eceTop5)),\"brier_top5\":\(g(metrics.brierTop5)),\"bootstrap\":\(metrics.bootstrapSamples),\"coverage\":[\(coverage)],\"bins\":[\(bins)]}"
    }

    private static func f(_ value: Double) -> String { String(format: "%.4f", value) }
    private static func g(_ value: Double) -> String { String(format: "%.6f", value) }
    private static func range(_ i: CalibrationMetrics.Interval) -> String { "[\(f(i.low)), \(f(i.high))]" }
}
