/* sample_file.c - the binary side file of a run's samples; see sample_file.h. */
#include "folder/samples.h"

#include "util/input_file.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/fsutil.h"
#include "util/sha256.h"

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void hex(const uint8_t digest[32], char out[65])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = digits[digest[i] >> 4];
        out[2 * i + 1] = digits[digest[i] & 15];
    }
    out[64] = '\0';
}

/* Doubles as little-endian bytes, in chunks: a straight copy on the usual
 * hosts, byte by byte on the others. */
static void encode(const double *v, size_t n, unsigned char *out)
{
    if (host_is_little_endian()) {
        memcpy(out, v, n * sizeof *v);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &v[i], sizeof bits);
        put_le(out + 8 * i, bits, 8);
    }
}

int harness_sample_file_write(const char *path, const double *v, size_t n, const char *unit, char sha256_hex[65],
                              harness_error *err)
{
    unsigned char header[HARNESS_SAMPLE_FILE_HEADER] = {0};
    memcpy(header, HARNESS_SAMPLE_FILE_MAGIC, 8);
    put_le(header + 8, HARNESS_SAMPLE_FILE_VERSION, 4);
    put_le(header + 12, HARNESS_SAMPLE_FILE_HEADER, 4);
    put_le(header + 16, (uint64_t)n, 8);
    size_t unit_len = strlen(unit);
    memcpy(header + 24, unit, unit_len < 8 ? unit_len : 8);

    char tmp[4096];
    FILE *f = harness_atomic_open(path, tmp, err);
    if (!f)
        return err->code;
    harness_sha256 sha;
    harness_sha256_init(&sha);
    harness_sha256_update(&sha, header, sizeof header);
    int ok = fwrite(header, 1, sizeof header, f) == sizeof header;
    enum { CHUNK = 8192 };
    unsigned char buf[CHUNK * 8];
    for (size_t i = 0; ok && i < n; i += CHUNK) {
        size_t k = n - i < CHUNK ? n - i : CHUNK;
        encode(v + i, k, buf);
        harness_sha256_update(&sha, buf, k * 8);
        ok = fwrite(buf, 8, k, f) == k;
    }
    if (!ok) {
        int e = errno;
        harness_atomic_abort(f, tmp);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot write %s: %s", path, strerror(e));
    }
    uint8_t digest[32];
    harness_sha256_final(&sha, digest);
    hex(digest, sha256_hex);
    return harness_atomic_commit(f, tmp, path, err);
}

static int bad(harness_error *err, const char *path, const char *what)
{
    return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: %s; not the samples file the summary names (%s)", path,
                             what, HARNESS_SAMPLE_FILE_FORMAT);
}

int harness_sample_file_decode(const char *path, const unsigned char *data, size_t len,
                               const harness_sample_file_expect *expect, double **out, size_t *n,
                               harness_error *err)
{
    *out = NULL;
    *n = 0;
    char why[256];
    if (len < HARNESS_SAMPLE_FILE_HEADER) {
        snprintf(why, sizeof why, "%zu bytes, shorter than its %u-byte header", len, HARNESS_SAMPLE_FILE_HEADER);
        return bad(err, path, why);
    }
    if (memcmp(data, HARNESS_SAMPLE_FILE_MAGIC, 8) != 0)
        return bad(err, path, "no \"" HARNESS_SAMPLE_FILE_MAGIC "\" at its start");
    uint64_t version = get_le(data + 8, 4), header = get_le(data + 12, 4), count = get_le(data + 16, 8);
    if (version != HARNESS_SAMPLE_FILE_VERSION) {
        snprintf(why, sizeof why, "version %llu; this harness reads version %u", (unsigned long long)version,
                 HARNESS_SAMPLE_FILE_VERSION);
        return bad(err, path, why);
    }
    if (header < HARNESS_SAMPLE_FILE_HEADER || header > len) {
        snprintf(why, sizeof why, "a header of %llu bytes in a file of %zu", (unsigned long long)header, len);
        return bad(err, path, why);
    }
    size_t held = (len - header) / 8;
    if ((len - header) % 8 != 0 || held != count) {
        snprintf(why, sizeof why, "%s: the header says %llu samples, the file holds %zu bytes of data (%zu samples)",
                 held < count ? "truncated" : "trailing bytes", (unsigned long long)count, len - header, held);
        return bad(err, path, why);
    }
    char unit[9] = {0};
    memcpy(unit, data + 24, 8);
    if (expect && expect->count >= 0 && (uint64_t)expect->count != count) {
        snprintf(why, sizeof why, "%llu samples, the summary says %lld", (unsigned long long)count, expect->count);
        return bad(err, path, why);
    }
    if (expect && expect->unit && strcmp(unit, expect->unit) != 0) {
        snprintf(why, sizeof why, "unit \"%.8s\", the summary says \"%.16s\"", unit, expect->unit);
        return bad(err, path, why);
    }
    if (expect && expect->sha256_hex) {
        uint8_t digest[32];
        char got[65];
        harness_sha256_digest(data, len, digest);
        hex(digest, got);
        if (strcmp(got, expect->sha256_hex) != 0) {
            snprintf(why, sizeof why, "SHA-256 %.16s..., the summary says %.16s...: changed since the run wrote it",
                     got, expect->sha256_hex);
            return bad(err, path, why);
        }
    }
    if (count == 0)
        return 0;
    double *v = malloc((size_t)count * sizeof *v);
    if (!v)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory reading %s", path);
    const unsigned char *p = data + header;
    for (size_t i = 0; i < (size_t)count; i++) {
        uint64_t bits = get_le(p + 8 * i, 8);
        memcpy(&v[i], &bits, sizeof bits);
        if (!isfinite(v[i]) || v[i] < 0) {
            snprintf(why, sizeof why, "sample %zu is %g, not a duration (a number >= 0)", i, v[i]);
            free(v);
            return bad(err, path, why);
        }
    }
    *out = v;
    *n = (size_t)count;
    return 0;
}

int harness_sample_file_read(const char *path, const harness_sample_file_expect *expect, double **out, size_t *n,
                             harness_error *err)
{
    *out = NULL;
    *n = 0;
    char *data = NULL;
    size_t got = 0;
    /* Regular files only, never waiting on a FIFO, and capped: the summary
     * that names this file is not to be trusted further than its folder. */
    if (harness_read_input_file(path, "the samples file the summary names", HARNESS_MAX_READ_BACK_BYTES,
                                HARNESS_EXIT_USAGE, &data, &got, err) != 0)
        return err->code;
    int rc = harness_sample_file_decode(path, (const unsigned char *)data, got, expect, out, n, err);
    free(data);
    return rc;
}
