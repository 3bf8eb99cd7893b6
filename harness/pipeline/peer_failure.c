/* See peer_failure.h. The other ranks' status files are read as any file
 * read back (util/input_file.h: regular files only, capped), since another
 * rank may have died while writing one. */
#include "pipeline/peer_failure.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/input_file.h"

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
    char *text = NULL;
    size_t len = 0;
    harness_error ignored = {0};
    if (harness_read_input_file(harness_experiment_path(exp, name, path, sizeof path), "status file",
                                STATUS_FILE_CAP, 2, &text, &len, &ignored) != 0)
        return 0;
    cJSON *st = cJSON_ParseWithLength(text, len);
    free(text);
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(st, "status");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(st, "error");
    int failed = cJSON_IsString(status) && is_failure(status->valuestring);
    if (failed)
        snprintf(buf, cap, "; rank %d of %d %s first%s%.300s", r, world_size, status->valuestring,
                 cJSON_IsString(error) ? ": " : "", cJSON_IsString(error) ? error->valuestring : "");
    cJSON_Delete(st);
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
