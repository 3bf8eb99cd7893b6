/* json_number.h - a number into a cJSON object the one way every writer of
 * the harness does it: JSON has no NaN or infinity, and such a value means
 * "unknown", so it is written null. */
#ifndef HARNESS_UTIL_JSON_NUMBER_H
#define HARNESS_UTIL_JSON_NUMBER_H

#include <cjson/cJSON.h>
#include <math.h>

static inline void harness_json_add_num(cJSON *o, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

#endif
