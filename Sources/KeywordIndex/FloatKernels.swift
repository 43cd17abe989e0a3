import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import CKernels

// The index's vector kernels over raw buffers: dot products and the keyword-blocked scoring kernel (portable
// here; the AVX2 + FMA build of the same kernel is in Sources/CKernels, and both take the one argument struct
// `ckernels_score_args` that the C header defines).

/// Vectorised kernels over raw Float32 buffers. Callers pass pointers of `ScratchBuffer`s or from inside
/// `withUnsafe(Mutable)BufferPointer`, and `arguments(…)` checks the sizes the scoring kernel relies on.
@usableFromInline
enum FloatKernels {
    /// Keywords are scored in blocks of this many lanes (one SIMD8 per quantity).
    static let lanes = 8

    /// Σ a[i] · b[i].
    /// - Complexity: O(count).
    @inlinable @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        var acc0 = SIMD8<Float>(), acc1 = SIMD8<Float>()
        var i = 0
        let rawA = UnsafeRawPointer(a), rawB = UnsafeRawPointer(b)
        while i + 16 <= count {
            acc0 += rawA.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                * rawB.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            acc1 += rawA.loadUnaligned(fromByteOffset: (i + 8) * 4, as: SIMD8<Float>.self)
                * rawB.loadUnaligned(fromByteOffset: (i + 8) * 4, as: SIMD8<Float>.self)
            i += 16
        }
        while i + 8 <= count {
            acc0 += rawA.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                * rawB.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        var sum = (acc0 + acc1).sum()
        while i < count {
            sum += a[i] * b[i]
            i += 1
        }
        return sum
    }

    /// out[r] += Σ_c matrix[r · cols + c] · vector[c] for every row r < rows (row-major matrix), with `kernel`.
    /// - Complexity: O(rows · cols).
    static func matvecAdd(kernel: ScoringKernel, _ matrix: UnsafePointer<Float>, rows: Int, cols: Int,
                          _ vector: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>) {
        #if arch(x86_64)
        if kernel.runnable == .avx2 {
            ckernels_matvec_add_avx2(matrix, rows, cols, vector, out)
            return
        }
        #endif
        for r in 0..<rows { out[r] += dot(matrix + r * cols, vector, cols) }
    }

    /// out[i] = x[i] + tanh(out[i]) for i < count (the encoder's residual), with `kernel`; the AVX2 tanh is
    /// within 2e-7 absolute of `tanhf`.
    /// - Complexity: O(count).
    static func addTanh(kernel: ScoringKernel, _ x: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, count: Int) {
        #if arch(x86_64)
        if kernel.runnable == .avx2 {
            ckernels_add_tanh_avx2(x, out, count)
            return
        }
        #endif
        for i in 0..<count { out[i] = x[i] + tanhf(out[i]) }
    }

    /// e^x for x ≤ 0 (clamped below at −87), lane-wise: Cody–Waite range reduction and a degree-6 polynomial;
    /// relative error below 2e-7 on the range.
    @inlinable @inline(__always)
    static func exp(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let clamped = x.replacing(with: -87, where: x .< -87)
        // Adding 1.5·2²³ rounds to the nearest integer k and leaves k in the low mantissa bits.
        let magic = SIMD8<Float>(repeating: 12_582_912)
        let shifted = clamped * 1.442_695_04 + magic
        let k = shifted - magic
        let r = clamped - k * 0.693_359_375 + k * 2.121_944_4e-4
        var p = SIMD8<Float>(repeating: 1.987_569_15e-4)
        p = p * r + 1.398_199_95e-3
        p = p * r + 8.333_451_9e-3
        p = p * r + 4.166_579_6e-2
        p = p * r + 1.666_666_55e-1
        p = p * r + 5.000_000_1e-1
        p = p * r * r + r + 1
        let integer = unsafeBitCast(shifted, to: SIMD8<UInt32>.self) &- 0x4B40_0000
        let scale = (integer &+ 127) &<< 23
        return p * unsafeBitCast(scale, to: SIMD8<Float>.self)
    }

    /// The arguments of one name's scoring pass, from buffers whose sizes debug builds check here, once,
    /// so neither kernel needs to trust its caller's arithmetic.
    static func arguments(n: Int, hidden h: Int, blocks: Int, singleBlocks: Int, temperature: Float, attention: Bool,
                          states: UnsafeBufferPointer<Float>, units: UnsafeBufferPointer<Float>,
                          gram: UnsafeBufferPointer<Float>, unitMeans: UnsafeBufferPointer<Float>,
                          directions: UnsafeBufferPointer<Float>, out: UnsafeMutableBufferPointer<Float>) -> ckernels_score_args {
        assert(n > 0 && h > 0 && blocks >= 0 && (0...blocks).contains(singleBlocks), "bad scoring shape")
        assert(states.count >= n * h && units.count >= n * h, "token states shorter than n × hidden")
        assert(gram.count >= n * n, "gram matrix shorter than n × n")
        assert(unitMeans.count >= blocks * h * lanes && directions.count >= blocks * h * lanes,
               "keyword matrices shorter than blocks × hidden × 8")
        assert(out.count >= blocks * lanes, "score output shorter than blocks × 8")
        return ckernels_score_args(
            blocks: blocks, single_blocks: singleBlocks, n: n, hidden: h, temperature: temperature, attention: attention ? 1 : 0,
            states: states.baseAddress, units: units.baseAddress, gram: gram.baseAddress,
            unit_means: unitMeans.baseAddress, directions: directions.baseAddress, out: out.baseAddress)
    }

    /// Scores all blocks of `arguments` with `kernel` on the calling thread; `work` holds `3 · n` SIMD8 values.
    @inline(__always)
    static func scoreAll(kernel: ScoringKernel, _ arguments: inout ckernels_score_args,
                         work: UnsafeMutablePointer<SIMD8<Float>>) {
        switch kernel.runnable {
        case .avx2:
            #if arch(x86_64)
            work.withMemoryRebound(to: Float.self, capacity: 3 * arguments.n * lanes) { floats in
                ckernels_score_blocks_avx2(&arguments, 0, arguments.blocks, floats)
            }
            #else
            scoreBlocks(arguments, blocks: 0..<arguments.blocks, work: work)
            #endif
        case .portable:
            scoreBlocks(arguments, blocks: 0..<arguments.blocks, work: work)
        }
    }

    /// Scores all blocks with `kernel`, split over `threads` (1 or 2) with disjoint output ranges; `work` holds
    /// `3 · n · threads` SIMD8 values.
    static func score(kernel: ScoringKernel, _ arguments: ckernels_score_args, threads: Int,
                      work: UnsafeMutableBufferPointer<SIMD8<Float>>) {
        let n = arguments.n, blocks = arguments.blocks
        assert(work.count >= 3 * n * max(1, threads), "work shorter than 3 · n · threads")
        // The pointers are shared read-only, and each thread writes only its own blocks of `out` and its own
        // part of `work`.
        struct Shared: @unchecked Sendable {
            var arguments: ckernels_score_args
            let work: UnsafeMutablePointer<SIMD8<Float>>
        }
        guard let workBase = work.baseAddress else { return }
        let shared = Shared(arguments: arguments, work: workBase)
        let chosen = kernel.runnable
        @Sendable func run(_ range: Range<Int>, _ work: UnsafeMutablePointer<SIMD8<Float>>) {
            switch chosen {
            case .avx2:
                #if arch(x86_64)
                var arguments = shared.arguments
                work.withMemoryRebound(to: Float.self, capacity: 3 * n * lanes) { floats in
                    ckernels_score_blocks_avx2(&arguments, range.lowerBound, range.upperBound, floats)
                }
                #else
                fallthrough
                #endif
            case .portable:
                scoreBlocks(shared.arguments, blocks: range, work: work)
            }
        }
        guard threads > 1, blocks > 1 else {
            run(0..<blocks, workBase)
            return
        }
        let half = blocks / 2
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            run(part == 0 ? 0..<half : half..<blocks, shared.work + part * 3 * n)
        }
    }

    /// Scores the keywords of `blocks` (8 per block) for one name of `n` tokens.
    ///
    /// Keyword matrices are blocked: `unitMeans[(b · hidden + q) · 8 + lane]`. For each lane (keyword k):
    /// `α = softmax(τ · U m_k)` (uniform without attention), `out[k] = (α · H d_k) / √(αᵀ G α)`.
    /// `work` holds at least `3 · n` SIMD8 values.
    /// - Complexity: O(blocks · 8 · n · (2 · hidden + n)).
    static func scoreBlocks(_ arguments: ckernels_score_args, blocks: Range<Int>, work: UnsafeMutablePointer<SIMD8<Float>>) {
        guard let states = arguments.states, let units = arguments.units, let gram = arguments.gram,
              let unitMeans = arguments.unit_means, let directions = arguments.directions, let out = arguments.out else {
            assertionFailure("scoring arguments without buffers")
            return
        }
        assert(blocks.lowerBound >= 0 && blocks.upperBound <= arguments.blocks, "blocks outside the arguments' range")
        let n = arguments.n, h = arguments.hidden, temperature = arguments.temperature
        let attention = arguments.attention != 0, singleBlocks = arguments.single_blocks
        let similarity = work, projection = work + n, alpha = work + 2 * n
        let rawMeans = UnsafeRawPointer(unitMeans), rawDirections = UnsafeRawPointer(directions)
        let uniform = SIMD8<Float>(repeating: 1 / Float(n))
        for block in blocks {
            let base = block * h * 8 * 4
            // Single-token keywords: the attention query is the direction, so U m = (H d) / |h|.
            let shared = attention && block < singleBlocks
            for i in 0..<n {
                var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), b0 = SIMD8<Float>(), b1 = SIMD8<Float>()
                let u = units + i * h, s = states + i * h
                var q = 0
                while q + 2 <= h {
                    let offset = base + q * 32
                    if attention && !shared {
                        a0 += SIMD8(repeating: u[q]) * rawMeans.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                        a1 += SIMD8(repeating: u[q + 1]) * rawMeans.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
                    }
                    b0 += SIMD8(repeating: s[q]) * rawDirections.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                    b1 += SIMD8(repeating: s[q + 1]) * rawDirections.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
                    q += 2
                }
                if q < h {
                    let offset = base + q * 32
                    if attention && !shared { a0 += SIMD8(repeating: u[q]) * rawMeans.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self) }
                    b0 += SIMD8(repeating: s[q]) * rawDirections.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                }
                projection[i] = b0 + b1
                if shared {
                    let inverseNorm = 1 / (gram[i * n + i] + 1e-12).squareRoot()
                    similarity[i] = projection[i] * (inverseNorm * temperature)
                } else {
                    similarity[i] = (a0 + a1) * temperature
                }
            }
            if attention {
                var largest = similarity[0]
                for i in 1..<n { largest.replace(with: similarity[i], where: similarity[i] .> largest) }
                var total = SIMD8<Float>()
                for i in 0..<n {
                    let e = exp(similarity[i] - largest)
                    alpha[i] = e
                    total += e
                }
                let inverse = 1 / total
                for i in 0..<n { alpha[i] *= inverse }
            } else {
                for i in 0..<n { alpha[i] = uniform }
            }
            var numerator = SIMD8<Float>(), quadratic = SIMD8<Float>(repeating: 1e-12)
            for i in 0..<n {
                numerator += alpha[i] * projection[i]
                var row = SIMD8<Float>()
                for j in 0..<n { row += alpha[j] * gram[i * n + j] }
                quadratic += alpha[i] * row
            }
            let result = numerator / quadratic.squareRoot()
            UnsafeMutableRawPointer(out + block * 8).storeBytes(of: result, as: SIMD8<Float>.self)
        }
    }
}
