/* libFuzzer target: compare's summary reading. Whatever the bytes, parsing
 * must not crash or leak; a summary it accepts must hold finite samples. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "compare/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    harness_run_summary r;
    harness_error err = {0};
    if (harness_run_summary_parse("fuzz.json", (const char *)data, size, &r, &err) == 0) {
        for (size_t i = 0; i < r.n_samples; i++)
            if (!isfinite(r.samples[i]) || r.samples[i] < 0)
                abort();
        harness_run_summary_free(&r);
    }
    return 0;
}
