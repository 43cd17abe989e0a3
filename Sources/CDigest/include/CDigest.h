#ifndef KWSUGGEST_CDIGEST_H
#define KWSUGGEST_CDIGEST_H
// The SHA-256 compression function (FIPS 180-4 §6.2.2) for the model files' checksums: the x86 SHA
// extensions when the CPU has them (chosen at run time), else portable C. Swift keeps the padding and the
// streaming (Sources/ModelStorage/SHA256.swift); only the per-block work is here, because a Swift debug
// build hashes the 29 MB model at a few MB/s, and Swift cannot target the SHA instructions per function.
#include <stddef.h>
#include <stdint.h>

/// Runs the compression function over `blocks` 64-byte blocks of `data`, updating `state` (8 words, H0…H7).
/// - Complexity: O(blocks).
void cdigest_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

/// The portable path alone (for tests that compare both paths).
void cdigest_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks);

/// 1 when `cdigest_sha256_blocks` uses the SHA extensions on this CPU, else 0.
int cdigest_sha256_uses_extensions(void);
#endif
