// Reproducible mutation tests: a seeded generator and sizes that a long local run can raise through the
// environment. A test-only module, shared by the test targets that mutate bytes.
import Foundation

/// Mutation-test size: `KWSUGGEST_FUZZ_ITERATIONS` (for long local runs, e.g. 1000000), else `default`.
public func fuzzIterations(default value: Int) -> Int {
    ProcessInfo.processInfo.environment["KWSUGGEST_FUZZ_ITERATIONS"].flatMap(Int.init) ?? value
}

/// Mutation-test seed: `KWSUGGEST_FUZZ_SEED`, else `default` (CI runs are reproducible).
public func fuzzSeed(default value: UInt64) -> UInt64 {
    ProcessInfo.processInfo.environment["KWSUGGEST_FUZZ_SEED"].flatMap(UInt64.init) ?? value
}

/// A small deterministic generator for reproducible mutation tests.
public struct SplitMix {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SplitMix {
    /// One to three random edits of `bytes`: a byte replaced by a random one, or a byte removed (an emptied
    /// input becomes `{`).
    public mutating func mutate(_ bytes: inout [UInt8]) {
        for _ in 0..<(1 + next() % 3) {
            let position = Int(next() % UInt64(bytes.count))
            if next() % 2 == 0 {
                bytes[position] = UInt8(truncatingIfNeeded: next())
            } else {
                bytes.remove(at: position)
                if bytes.isEmpty { bytes = [0x7B] }
            }
        }
    }
}
