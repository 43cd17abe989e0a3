// How the index turns encoder states and exact-match evidence into one score per keyword.
#if arch(x86_64)
import CKernels
#endif

/// Which build of the keyword scoring kernel runs. Both compute the same scores up to Float32 rounding.
public enum ScoringKernel: String, Sendable, CaseIterable {
    /// SIMD8 Swift code for the baseline instruction set (SSE2 on x86-64), on any CPU.
    case portable
    /// AVX2 + FMA (C target `CKernels`), only on x86-64 CPUs that have both.
    case avx2

    /// Whether this CPU runs the kernel.
    public var isAvailable: Bool {
        switch self {
        case .portable: return true
        case .avx2: return ScoringKernel.hasAVX2
        }
    }

    /// This kernel when this CPU runs it, else `.portable`: what the kernels in `FloatKernels` actually execute.
    public var runnable: ScoringKernel { isAvailable ? self : .portable }

    /// The fastest kernel this CPU runs (checked once, from CPUID).
    public static let best: ScoringKernel = hasAVX2 ? .avx2 : .portable

    private static let hasAVX2: Bool = {
        #if arch(x86_64)
        return ckernels_has_avx2_fma() != 0
        #else
        return false
        #endif
    }()
}

/// Scoring switches; the defaults are the full model.
public struct ScoringOptions: Sendable, Equatable {
    /// The article's attention over name words; off = uniform weights ("no-attention" ablation).
    public var attention = true
    /// Add the learned exact-match evidence (see `LexicalFeature`) to the cosine.
    public var evidence = true
    /// CSLS-style hubness correction: subtract `hubness ×` each keyword's mean cosine to its
    /// `hubNeighbours` nearest keywords. 0 = off.
    public var hubness: Float = 0
    public var hubNeighbours = 10
    /// Multiplies the learned evidence weights (1 = as trained).
    public var evidenceScale: Float = 1
    /// Names longer than this many tokens are truncated (keeps scratch buffers bounded).
    public var maxNameTokens = 64
    /// The scoring kernel; one this CPU cannot run falls back to `.portable`.
    public var kernel = ScoringKernel.best

    public init(attention: Bool = true, evidence: Bool = true, hubness: Float = 0) {
        self.attention = attention
        self.evidence = evidence
        self.hubness = hubness
    }
}

/// A keyword (by index in the index's list) and its score; higher is better.
public struct ScoredKeyword: Sendable, Equatable {
    public var index: Int
    public var score: Float
    public init(index: Int, score: Float) {
        self.index = index
        self.score = score
    }
}
