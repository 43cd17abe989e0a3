// A small seeded random number generator, so that training is deterministic for a seed.

/// SplitMix64: fast, tiny state, good enough for initialisation and sampling.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed &+ 0x9E37_79B9_7F4A_7C15
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform Double in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// A standard normal sample (Box–Muller).
    public mutating func normal() -> Double {
        let u1 = max(unit(), 1e-300)
        let u2 = unit()
        return (-2 * _log(u1)).squareRoot() * _cos(2 * Double.pi * u2)
    }

    /// A uniform integer in 0..<bound (bound > 0).
    public mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

#if canImport(Glibc)
import Glibc
@inline(__always) func _log(_ x: Double) -> Double { Glibc.log(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Glibc.cos(x) }
#else
import Foundation
@inline(__always) func _log(_ x: Double) -> Double { Foundation.log(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Foundation.cos(x) }
#endif
