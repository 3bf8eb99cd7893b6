/* libFuzzer target: the folder stage's readers of JSON text (harness/folder/)
 * and compare's judging of what they read. Whatever the bytes, parsing must
 * not crash or leak; a summary it accepts must hold finite samples and
 * replicates within them; a job summary it accepts must write back; a
 * suite index it accepts must write back to text
 * that reads back to the same bytes.
 * Inputs that start with the side-file magic go to the decoder of
 * samples_ranks_N_rank_r.bin files (folder/samples.h) instead, which must
 * hold to the same rule. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "folder/job_summary.h"
#include "folder/rank_summary.h"
#include "folder/samples.h"
#include "folder/suite_index.h"

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
        for (size_t i = 0; i < r.n_windows; i++)
            if (r.window_len[i] && r.window_start[i] + r.window_len[i] > r.n_samples)
                abort();
        harness_run_summary_free(&r);
    }
    /* export's reading: the same record without the samples */
    harness_rank_summary t;
    err = (harness_error){0};
    if (harness_rank_summary_parse("fuzz.json", (const char *)data, size, HARNESS_RANK_SUMMARY_NO_SAMPLES, &t,
                                   &err) == 0) {
        if (t.n_samples || t.n_windows)
            abort();
        harness_rank_summary_free(&t);
    }
    harness_suite_index x;
    err = (harness_error){0};
    if (harness_suite_index_parse("index.json", (const char *)data, size, &x, &err) == 0) {
        char *text = harness_suite_index_write(&x), *again = NULL;
        harness_suite_index y;
        if (text && harness_suite_index_parse("index.json", text, strlen(text), &y, &err) == 0) {
            again = harness_suite_index_write(&y);
            if (again && strcmp(text, again) != 0)
                abort();
            harness_suite_index_free(&y);
        }
        free(text);
        free(again);
        harness_suite_index_free(&x);
    }
    harness_job_summary j;
    err = (harness_error){0};
    if (harness_job_summary_parse("summary.json", (const char *)data, size, &j, &err) == 0) {
        char *text = harness_job_summary_write(&j);
        free(text);
        harness_job_summary_free(&j);
    }
    return 0;
}
