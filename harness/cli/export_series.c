/* export_series.c - the machine formats' shared reading of an export table
 * (export_series.h). */
#include "cli/export_series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/print_json.h"
#include "util/json_utf8.h"
#include "util/stats.h"

double harness_export_num(const cJSON *row, const char *column)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, column);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *harness_export_str(const cJSON *row, const char *column)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, column);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int measured_ok(const cJSON *row)
{
    const char *status = harness_export_str(row, "status");
    return status && strcmp(status, "ok") == 0 && harness_export_num(row, "median_ns") > 0;
}

cJSON *harness_export_series(const harness_export_table *t, int measured, size_t *left_out)
{
    cJSON *series = cJSON_CreateObject();
    const cJSON *row;
    *left_out = 0;
    cJSON_ArrayForEach(row, t->rows) {
        const char *name = harness_export_str(row, "benchmark");
        if (!series)
            break;
        if (!name || (measured && !measured_ok(row))) {
            ++*left_out;
            continue;
        }
        cJSON *rows = cJSON_GetObjectItemCaseSensitive(series, name);
        if (!rows && !(rows = cJSON_AddArrayToObject(series, name)))
            goto oom;
        if (!cJSON_AddItemReferenceToArray(rows, (cJSON *)row))
            goto oom;
    }
    return series;
oom:
    cJSON_Delete(series);
    return NULL;
}

int harness_export_spread(const cJSON *rows, const char *col, const char *lo_col, const char *hi_col, double out[3])
{
    double *v = malloc(((size_t)cJSON_GetArraySize(rows) + 1) * sizeof *v);
    const cJSON *r, *last = NULL;
    int k = 0;
    out[0] = out[1] = out[2] = NAN;
    if (!v)
        return -1;
    cJSON_ArrayForEach(r, rows) {
        double x = harness_export_num(r, col);
        if (isfinite(x)) {
            v[k++] = x;
            last = r;
        }
    }
    if (k == 1) {
        out[0] = v[0];
        out[1] = lo_col ? harness_export_num(last, lo_col) : NAN;
        out[2] = hi_col ? harness_export_num(last, hi_col) : NAN;
    } else if (k > 1) {
        out[0] = harness_median(v, (size_t)k);   /* sorts v */
        out[1] = v[0];
        out[2] = v[k - 1];
    }
    free(v);
    return k;
}

int harness_export_print(FILE *f, cJSON *root)
{
    if (!root)
        return -1;
    harness_json_scrub_utf8(root);   /* names from configs and folders: any bytes */
    return harness_print_json(f, root);
}

void harness_export_note_left_out(const char *format, size_t n)
{
    if (n > 0)
        fprintf(stderr, "harness: export --format %s: %zu row%s left out (a run not ok, or without a "
                "measurement: the format has no place for one)\n", format, n, n == 1 ? "" : "s");
}
