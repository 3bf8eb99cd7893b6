#include "folder/sample_array.h"
#include "folder/samples.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cJSON *harness_sample_array_json(const double *v, size_t n)
{
    /* 26 bytes hold "%1.17g" of any double plus ", ". */
    size_t cap = n * 26 + 3, len = 0;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    text[len++] = '[';
    for (size_t i = 0; i < n; i++) {
        if (i) {
            text[len++] = ',';
            text[len++] = ' ';
        }
        if (!isfinite(v[i])) {     /* JSON has no NaN or infinity: cJSON writes null */
            memcpy(text + len, "null", 4);
            len += 4;
            continue;
        }
        /* cJSON's own rule, so a sample prints as timing.min or .max does:
         * 15 digits when they read back within one ulp-sized step. */
        int k = snprintf(text + len, 26, "%1.15g", v[i]);
        double back;
        if (sscanf(text + len, "%lg", &back) != 1 ||
            fabs(back - v[i]) > fmax(fabs(back), fabs(v[i])) * DBL_EPSILON)
            k = snprintf(text + len, 26, "%1.17g", v[i]);
        len += (size_t)k;
    }
    text[len++] = ']';
    text[len] = '\0';
    cJSON *raw = cJSON_CreateRaw(text);
    free(text);
    return raw;
}

cJSON *harness_sample_file_ref_json(const char *name, size_t n, const char *unit, const char *sha256_hex)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "format", HARNESS_SAMPLE_FILE_FORMAT);
    cJSON_AddNumberToObject(o, "count", (double)n);
    cJSON_AddStringToObject(o, "unit", unit);
    cJSON_AddStringToObject(o, "sha256", sha256_hex);
    return o;
}
