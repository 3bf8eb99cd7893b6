/* sha256.h - SHA-256 (FIPS 180-4), for naming experiment folders after the
 * resolved config. Not for anything where timing side channels matter. */
#ifndef HARNESS_SHA256_H
#define HARNESS_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct harness_sha256 {
    uint32_t h[8];
    uint64_t bytes;                /* message length so far */
    uint8_t block[64];             /* pending input, `bytes % 64` of it used */
} harness_sha256;

void harness_sha256_init(harness_sha256 *s);
void harness_sha256_update(harness_sha256 *s, const void *data, size_t len);
void harness_sha256_final(harness_sha256 *s, uint8_t digest[32]);

/* One-shot: digest of `len` bytes at `data`. */
void harness_sha256_digest(const void *data, size_t len, uint8_t digest[32]);

#endif
