// SHA-256 compression: portable C, and the x86 SHA extensions (SHA-NI) selected at run time.
#include "CDigest.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

void cdigest_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks) {
    uint32_t w[64];
    for (size_t block = 0; block < blocks; block++, data += 64) {
        for (int t = 0; t < 16; t++) {
            const uint8_t *p = data + 4 * t;
            w[t] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
        }
        for (int t = 16; t < 64; t++) {
            uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
            uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int t = 0; t < 64; t++) {
            uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
            uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d;
        state[4] += e; state[5] += f; state[6] += g; state[7] += h;
    }
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

/// The SHA extensions keep the state as two vectors, ABEF and CDGH, and run two rounds per instruction.
__attribute__((target("sha,sse4.1,ssse3")))
static void sha256_blocks_extensions(uint32_t state[8], const uint8_t *data, size_t blocks) {
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i abcd = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i efgh = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(abcd, 0xB1);
    __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1B);
    __m128i state0 = _mm_alignr_epi8(cdab, hgfe, 8);    // ABEF
    __m128i state1 = _mm_blend_epi16(hgfe, cdab, 0xF0); // CDGH
    for (size_t block = 0; block < blocks; block++, data += 64) {
        __m128i saved0 = state0, saved1 = state1;
        __m128i w[4];
        for (int r = 0; r < 16; r++) {
            // Rounds 4r … 4r+3 on message words w[r % 4]; the schedule runs three groups ahead.
            if (r < 4) w[r] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * r)), byteSwap);
            __m128i current = w[r % 4];
            __m128i message = _mm_add_epi32(current, _mm_loadu_si128((const __m128i *)&K[4 * r]));
            state1 = _mm_sha256rnds2_epu32(state1, state0, message);
            if (r >= 3 && r <= 14) {
                int next = (r + 1) % 4;
                __m128i carried = _mm_alignr_epi8(current, w[(r + 3) % 4], 4);
                w[next] = _mm_sha256msg2_epu32(_mm_add_epi32(w[next], carried), current);
            }
            message = _mm_shuffle_epi32(message, 0x0E);
            state0 = _mm_sha256rnds2_epu32(state0, state1, message);
            if (r >= 1 && r <= 12) w[(r + 3) % 4] = _mm_sha256msg1_epu32(w[(r + 3) % 4], current);
        }
        state0 = _mm_add_epi32(state0, saved0);
        state1 = _mm_add_epi32(state1, saved1);
    }
    __m128i feba = _mm_shuffle_epi32(state0, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(state1, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0)); // ABCD
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));    // EFGH
}

static int detect_extensions(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return ssse3 && sse41 && ((b >> 29) & 1);
}

int cdigest_sha256_uses_extensions(void) {
    static int cached = -1;
    if (cached < 0) cached = detect_extensions();
    return cached;
}

void cdigest_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    if (cdigest_sha256_uses_extensions()) sha256_blocks_extensions(state, data, blocks);
    else cdigest_sha256_blocks_portable(state, data, blocks);
}
#else
int cdigest_sha256_uses_extensions(void) { return 0; }

void cdigest_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    cdigest_sha256_blocks_portable(state, data, blocks);
}
#endif
