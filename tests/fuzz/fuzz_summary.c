/* libFuzzer target: compare's summary reading. Whatever the bytes, parsing
 * must not crash or leak; a summary it accepts must hold finite samples.
 * Inputs that start with the side-file magic go to the decoder of
 * samples_ranks_N_rank_r.bin files (folder/samples.h) instead, which must
 * hold to the same rule. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "folder/samples.h"

static void check_samples(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]) || v[i] < 0)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    harness_error err = {0};
    if (size >= 8 && memcmp(data, HARNESS_SAMPLE_FILE_MAGIC, 8) == 0) {
        const harness_sample_file_expect any = {.count = -1};
        double *v;
        size_t n;
        if (harness_sample_file_decode("fuzz.bin", data, size, &any, &v, &n, &err) == 0) {
            check_samples(v, n);
            free(v);
        }
        return 0;
    }
    harness_run_summary r;
    if (harness_run_summary_parse("fuzz.json", (const char *)data, size, &r, &err) == 0) {
        check_samples(r.samples, r.n_samples);
        harness_run_summary_free(&r);
    }
    return 0;
}
