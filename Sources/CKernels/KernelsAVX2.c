// AVX2 + FMA versions of the blocked keyword scoring kernel and of the encoder's matrix-vector product and
// residual tanh.
// Same equations, same order of blocks and the same exp approximation as the portable Swift kernels
// (FloatKernels.swift); results differ from them only by rounding (fused multiply-adds, summation order).
#include "CKernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <math.h>

int ckernels_has_avx2_fma(void) {
    __builtin_cpu_init();
    // The compiler runtime's check for "avx2" includes the OS check (OSXSAVE and XCR0 YMM state).
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
}

/// e^x lane-wise for x <= 0, clamped below at -87: the range reduction and polynomial of `FloatKernels.exp`.
__attribute__((target("avx2,fma")))
static inline __m256 exp_avx2(__m256 x) {
    const __m256 magic = _mm256_set1_ps(12582912.0f);
    __m256 clamped = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));
    __m256 shifted = _mm256_fmadd_ps(clamped, _mm256_set1_ps(1.44269504f), magic);
    __m256 k = _mm256_sub_ps(shifted, magic);
    __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693359375f), clamped);
    r = _mm256_fmadd_ps(k, _mm256_set1_ps(2.1219444e-4f), r);
    __m256 p = _mm256_set1_ps(1.98756915e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.39819995e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665796e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.66666655e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001e-1f));
    p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    __m256i integer = _mm256_sub_epi32(_mm256_castps_si256(shifted), _mm256_set1_epi32(0x4B400000));
    __m256i scale = _mm256_slli_epi32(_mm256_add_epi32(integer, _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(scale));
}

/// The same product for `count` (1 to 4) rows (tokens) at once, `stride` floats apart: every column load is
/// shared by `count` FMAs, and even and odd components go to separate accumulators to hide the FMA latency.
/// Always inlined with a constant `count`, so the accumulator arrays live in registers.
__attribute__((target("avx2,fma"), always_inline))
static inline void block_product_tile(const float *row, ptrdiff_t stride, const float *matrix, ptrdiff_t h,
                                      float *out, const int count) {
    __m256 even_acc[4], odd_acc[4];
    for (int t = 0; t < count; t++) { even_acc[t] = _mm256_setzero_ps(); odd_acc[t] = _mm256_setzero_ps(); }
    ptrdiff_t q = 0;
    for (; q + 2 <= h; q += 2) {
        __m256 even = _mm256_loadu_ps(matrix + q * 8), odd = _mm256_loadu_ps(matrix + q * 8 + 8);
        for (int t = 0; t < count; t++) {
            even_acc[t] = _mm256_fmadd_ps(_mm256_broadcast_ss(row + t * stride + q), even, even_acc[t]);
            odd_acc[t] = _mm256_fmadd_ps(_mm256_broadcast_ss(row + t * stride + q + 1), odd, odd_acc[t]);
        }
    }
    if (q < h) {
        __m256 last = _mm256_loadu_ps(matrix + q * 8);
        for (int t = 0; t < count; t++) {
            even_acc[t] = _mm256_fmadd_ps(_mm256_broadcast_ss(row + t * stride + q), last, even_acc[t]);
        }
    }
    for (int t = 0; t < count; t++) _mm256_storeu_ps(out + t * 8, _mm256_add_ps(even_acc[t], odd_acc[t]));
}

/// `out[i] = Σ_q rows[i · h + q] · column(q)` for the n rows: four at a time, then the last one to three together.
__attribute__((target("avx2,fma")))
static inline void block_products(const float *rows, ptrdiff_t n, const float *matrix, ptrdiff_t h, float *out) {
    ptrdiff_t i = 0;
    for (; i + 4 <= n; i += 4) block_product_tile(rows + i * h, h, matrix, h, out + i * 8, 4);
    switch (n - i) {
    case 3: block_product_tile(rows + i * h, h, matrix, h, out + i * 8, 3); break;
    case 2: block_product_tile(rows + i * h, h, matrix, h, out + i * 8, 2); break;
    case 1: block_product_tile(rows + i * h, h, matrix, h, out + i * 8, 1); break;
    default: break;
    }
}

__attribute__((target("avx2,fma")))
void ckernels_score_blocks_avx2(const ckernels_score_args *args, ptrdiff_t block_start, ptrdiff_t block_end,
                                float *work) {
    const ptrdiff_t single_blocks = args->single_blocks, n = args->n, h = args->hidden;
    const float temperature = args->temperature;
    const int attention = args->attention;
    const float *states = args->states, *units = args->units, *gram = args->gram;
    const float *unit_means = args->unit_means, *directions = args->directions;
    float *out = args->out;
    // The softmax runs in place, so `alpha` is `similarity`; the third part of `work` holds τ / |h_i| for the
    // single-token blocks, computed once per name instead of once per block.
    float *similarity = work, *projection = work + n * 8, *alpha = similarity, *scaled_inverse_norms = work + 2 * n * 8;
    const __m256 tau = _mm256_set1_ps(temperature);
    for (ptrdiff_t i = 0; i < n; i++) scaled_inverse_norms[i] = temperature / __builtin_sqrtf(gram[i * n + i] + 1e-12f);
    for (ptrdiff_t block = block_start; block < block_end; block++) {
        const float *means = unit_means + block * h * 8, *dirs = directions + block * h * 8;
        block_products(states, n, dirs, h, projection);
        if (attention && block < single_blocks) {
            // Single-token keywords: the attention query is the direction, so U m = (H d) / |h|.
            for (ptrdiff_t i = 0; i < n; i++) {
                _mm256_storeu_ps(similarity + i * 8,
                                 _mm256_mul_ps(_mm256_loadu_ps(projection + i * 8), _mm256_set1_ps(scaled_inverse_norms[i])));
            }
        } else if (attention) {
            block_products(units, n, means, h, similarity);
            for (ptrdiff_t i = 0; i < n; i++) {
                _mm256_storeu_ps(similarity + i * 8, _mm256_mul_ps(_mm256_loadu_ps(similarity + i * 8), tau));
            }
        }
        if (attention) {
            __m256 largest = _mm256_loadu_ps(similarity);
            for (ptrdiff_t i = 1; i < n; i++) largest = _mm256_max_ps(largest, _mm256_loadu_ps(similarity + i * 8));
            __m256 total = _mm256_setzero_ps();
            for (ptrdiff_t i = 0; i < n; i++) {
                __m256 e = exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(similarity + i * 8), largest));
                _mm256_storeu_ps(alpha + i * 8, e);
                total = _mm256_add_ps(total, e);
            }
            __m256 inverse = _mm256_div_ps(_mm256_set1_ps(1.0f), total);
            for (ptrdiff_t i = 0; i < n; i++) _mm256_storeu_ps(alpha + i * 8, _mm256_mul_ps(_mm256_loadu_ps(alpha + i * 8), inverse));
        } else {
            __m256 uniform = _mm256_set1_ps(1.0f / (float)n);
            for (ptrdiff_t i = 0; i < n; i++) _mm256_storeu_ps(alpha + i * 8, uniform);
        }
        __m256 numerator = _mm256_setzero_ps(), quadratic = _mm256_set1_ps(1e-12f);
        for (ptrdiff_t i = 0; i < n; i++) {
            __m256 a = _mm256_loadu_ps(alpha + i * 8);
            numerator = _mm256_fmadd_ps(a, _mm256_loadu_ps(projection + i * 8), numerator);
            __m256 row = _mm256_setzero_ps();
            for (ptrdiff_t j = 0; j < n; j++) {
                row = _mm256_fmadd_ps(_mm256_loadu_ps(alpha + j * 8), _mm256_set1_ps(gram[i * n + j]), row);
            }
            quadratic = _mm256_fmadd_ps(a, row, quadratic);
        }
        _mm256_storeu_ps(out + block * 8, _mm256_div_ps(numerator, _mm256_sqrt_ps(quadratic)));
    }
}
/// Horizontal sum of the 8 lanes.
__attribute__((target("avx2,fma")))
static inline float sum_lanes(__m256 v) {
    __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    half = _mm_add_ps(half, _mm_movehl_ps(half, half));
    half = _mm_add_ss(half, _mm_movehdup_ps(half));
    return _mm_cvtss_f32(half);
}

__attribute__((target("avx2,fma")))
void ckernels_matvec_add_avx2(const float *matrix, ptrdiff_t rows, ptrdiff_t cols, const float *vector, float *out) {
    ptrdiff_t r = 0;
    // Four rows at a time share each load of the vector.
    for (; r + 4 <= rows; r += 4) {
        const float *m0 = matrix + r * cols, *m1 = m0 + cols, *m2 = m1 + cols, *m3 = m2 + cols;
        __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
        __m256 acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps();
        ptrdiff_t c = 0;
        for (; c + 8 <= cols; c += 8) {
            __m256 v = _mm256_loadu_ps(vector + c);
            acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(m0 + c), v, acc0);
            acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(m1 + c), v, acc1);
            acc2 = _mm256_fmadd_ps(_mm256_loadu_ps(m2 + c), v, acc2);
            acc3 = _mm256_fmadd_ps(_mm256_loadu_ps(m3 + c), v, acc3);
        }
        float s0 = sum_lanes(acc0), s1 = sum_lanes(acc1), s2 = sum_lanes(acc2), s3 = sum_lanes(acc3);
        for (; c < cols; c++) {
            s0 += m0[c] * vector[c]; s1 += m1[c] * vector[c]; s2 += m2[c] * vector[c]; s3 += m3[c] * vector[c];
        }
        out[r] += s0; out[r + 1] += s1; out[r + 2] += s2; out[r + 3] += s3;
    }
    for (; r < rows; r++) {
        const float *m = matrix + r * cols;
        __m256 acc = _mm256_setzero_ps();
        ptrdiff_t c = 0;
        for (; c + 8 <= cols; c += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(m + c), _mm256_loadu_ps(vector + c), acc);
        float s = sum_lanes(acc);
        for (; c < cols; c++) s += m[c] * vector[c];
        out[r] += s;
    }
}
__attribute__((target("avx2,fma")))
void ckernels_add_tanh_avx2(const float *x, float *out, ptrdiff_t count) {
    const __m256 sign_mask = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f), small = _mm256_set1_ps(0.0625f);
    ptrdiff_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256 v = _mm256_loadu_ps(out + i);
        __m256 t = _mm256_andnot_ps(sign_mask, v);
        // |v| >= 1/16: tanh t = (1 - e) / (1 + e) with e = exp(-2t) <= 1, no overflow for any t.
        __m256 e = exp_avx2(_mm256_mul_ps(t, _mm256_set1_ps(-2.0f)));
        __m256 large = _mm256_div_ps(_mm256_sub_ps(one, e), _mm256_add_ps(one, e));
        // |v| < 1/16: the odd Taylor series to t^7 (next term < 4e-13), free of the cancellation in 1 - e.
        __m256 t2 = _mm256_mul_ps(t, t);
        __m256 series = _mm256_fmadd_ps(t2, _mm256_set1_ps(-17.0f / 315.0f), _mm256_set1_ps(2.0f / 15.0f));
        series = _mm256_fmadd_ps(t2, series, _mm256_set1_ps(-1.0f / 3.0f));
        series = _mm256_fmadd_ps(_mm256_mul_ps(t2, t), series, t);
        __m256 magnitude = _mm256_blendv_ps(large, series, _mm256_cmp_ps(t, small, _CMP_LT_OQ));
        __m256 tanh_v = _mm256_or_ps(magnitude, _mm256_and_ps(sign_mask, v));
        _mm256_storeu_ps(out + i, _mm256_add_ps(_mm256_loadu_ps(x + i), tanh_v));
    }
    for (; i < count; i++) out[i] = x[i] + tanhf(out[i]);
}
#endif /* __x86_64__ */
