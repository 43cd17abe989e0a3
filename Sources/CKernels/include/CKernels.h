#ifndef KWSUGGEST_CKERNELS_H
#define KWSUGGEST_CKERNELS_H
// AVX2 + FMA builds of the scoring kernel and of the encoder's matrix-vector product and tanh, chosen at run time.
// Swift cannot compile one function for a wider instruction set than the rest of the binary; C can
// (`__attribute__((target))`), so only these kernels live here. The portable kernel and every caller are in Sources/KeywordIndex/FloatKernels.swift.
#include <stddef.h>

/// The inputs of one name's scoring pass, shared by the Swift (portable) and the AVX2 kernels: one definition,
/// so the two cannot disagree on an argument's order. Layouts (see `FloatKernels.scoreBlocks`):
/// `states`, `units`: n × hidden (name token states and their unit vectors); `gram`: n × n;
/// `unit_means`, `directions`: blocks × hidden × 8 (keyword matrices, 8 keywords per block);
/// `out`: blocks × 8 scores.
typedef struct ckernels_score_args {
    /// Keyword blocks in the matrices and in `out`; a kernel scores a sub-range of [0, blocks).
    ptrdiff_t blocks;
    ptrdiff_t single_blocks;
    ptrdiff_t n;
    ptrdiff_t hidden;
    float temperature;
    int attention;
    const float *states;
    const float *units;
    const float *gram;
    const float *unit_means;
    const float *directions;
    float *out;
} ckernels_score_args;

#if defined(__x86_64__)
/// 1 when this CPU and OS run AVX2 and FMA code (CPUID plus the OS's saved YMM state), else 0.
int ckernels_has_avx2_fma(void);

/// Scores the keyword blocks `[block_start, block_end)` (8 keywords per block) for one name:
/// exactly the computation of `FloatKernels.scoreBlocks` in Swift (see there for the formula).
/// `work` holds at least 3 · n · 8 floats. Call only when `ckernels_has_avx2_fma()` returned 1.
/// - Complexity: O((block_end − block_start) · 8 · n · (2 · hidden + n)).
void ckernels_score_blocks_avx2(const ckernels_score_args *args, ptrdiff_t block_start, ptrdiff_t block_end,
                                float *work);

/// out[r] += Σ_c matrix[r · cols + c] · vector[c] for r < rows (row-major matrix), with AVX2 + FMA.
/// Call only when `ckernels_has_avx2_fma()` returned 1.
/// - Complexity: O(rows · cols).
void ckernels_matvec_add_avx2(const float *matrix, ptrdiff_t rows, ptrdiff_t cols, const float *vector, float *out);

/// out[i] = x[i] + tanh(out[i]) for i < count (the encoder's residual), with AVX2 + FMA; absolute error of the
/// tanh below 2e-7. Call only when `ckernels_has_avx2_fma()` returned 1.
/// - Complexity: O(count).
void ckernels_add_tanh_avx2(const float *x, float *out, ptrdiff_t count);
#endif /* __x86_64__ */
#endif
