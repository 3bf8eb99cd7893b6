/* See peer_failure.h. The other ranks' status files are read by the
 * folder stage's reader (folder/status.h: regular files only, capped),
 * since another rank may have died while writing one. */
#include "pipeline/peer_failure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folder/status.h"

#define STATUS_FILE_CAP (1u << 20)

static int is_failure(const char *status)
{
    static const char *const failures[] = {"failed", "crashed", "timed_out", "validation_failed"};
    for (size_t i = 0; i < sizeof failures / sizeof failures[0]; i++)
        if (strcmp(status, failures[i]) == 0)
            return 1;
    return 0;
}

/* Rank r's status and error, if its file says it failed. */
static int rank_failed(const harness_experiment *exp, int world_size, int r, char *buf, size_t cap)
{
    char name[256], path[4400];
    harness_status_file_name(name, sizeof name, world_size, r);
    harness_status_record st;
    harness_error ignored = {0};
    if (harness_status_read(harness_experiment_path(exp, name, path, sizeof path), STATUS_FILE_CAP, &st,
                            &ignored) != 0)
        return 0;
    int failed = st.status && is_failure(st.status);
    if (failed)
        snprintf(buf, cap, "; rank %d of %d %s first%s%.300s", r, world_size, st.status, st.error ? ": " : "",
                 st.error ? st.error : "");
    harness_status_record_free(&st);
    return failed;
}

const char *harness_peer_failure(const harness_experiment *exp, int world_size, int self, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (int r = 0; r < world_size && world_size > 1; r++)
        if (r != self && rank_failed(exp, world_size, r, buf, cap))
            break;
    return buf;
}
