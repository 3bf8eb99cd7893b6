/* folder_format.c - names and schema checks of the experiment folder
 * (folder_format.h). */
#include "folder/folder_format.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

const char *harness_rank_file(char *buf, size_t cap, const char *prefix, int world_size, int rank, const char *ext)
{
    snprintf(buf, cap, "%s_ranks_%d_rank_%d.%s", prefix, world_size, rank, ext);
    return buf;
}

const char *harness_job_file(char *buf, size_t cap, const char *prefix, int world_size, const char *ext)
{
    snprintf(buf, cap, "%s_ranks_%d.%s", prefix, world_size, ext);
    return buf;
}

const char *harness_status_file_name(char *buf, size_t cap, int world_size, int rank)
{
    if (rank == 0) {
        snprintf(buf, cap, "%s", HARNESS_FILE_STATUS);
        return buf;
    }
    return harness_rank_file(buf, cap, HARNESS_PREFIX_STATUS, world_size, rank, "json");
}

/* Digits at *p as a number, up to `limit`; -1 (p still moved past them)
 * for a number over it, -2 for no digits or a leading zero. sscanf's %d
 * would overflow, undefined, on "2147483648". */
static long long number(const char **p, long long limit)
{
    const char *s = *p;
    long long v = 0;
    int over = 0;
    while (*s >= '0' && *s <= '9') {
        if (!over && v > (limit - (*s - '0')) / 10)
            over = 1;
        else if (!over)
            v = v * 10 + (*s - '0');
        s++;
    }
    int digits = (int)(s - *p), zero_led = digits > 1 && **p == '0';
    *p = s;
    return digits == 0 || zero_led ? -2 : over ? -1 : v;
}

int harness_rank_file_parse(const char *name, const char *prefix, int *ws, int *rank)
{
    size_t lp = strlen(prefix);
    if (strncmp(name, prefix, lp) != 0 || strncmp(name + lp, "_ranks_", 7) != 0)
        return 0;
    const char *p = name + lp + 7;
    long long w = number(&p, HARNESS_FOLDER_MAX_RANKS);
    if (w == -2 || strncmp(p, "_rank_", 6) != 0)
        return 0;
    p += 6;
    long long r = number(&p, HARNESS_FOLDER_MAX_RANKS);
    if (r == -2 || strcmp(p, ".json") != 0)
        return 0;
    if (w < 0 || r < 0) {
        *ws = *rank = -1;
        return -1;
    }
    *ws = (int)w;
    *rank = (int)r;
    return 1;
}

static const char *type_name(const cJSON *j)
{
    if (cJSON_IsNull(j)) return "null";
    if (cJSON_IsBool(j)) return "a boolean";
    if (cJSON_IsNumber(j)) return "a number";
    if (cJSON_IsArray(j)) return "an array";
    if (cJSON_IsObject(j)) return "an object";
    return "a value of another type";
}

int harness_schema_check(const cJSON *root, const char *expected, char *why, size_t cap)
{
    const cJSON *schema = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "schema") : NULL;
    if (cJSON_IsString(schema) && strcmp(schema->valuestring, expected) == 0)
        return 0;
    if (!schema)
        snprintf(why, cap, "no \"schema\" key; not a harness file (expected \"%s\")", expected);
    else if (cJSON_IsString(schema))
        snprintf(why, cap, "schema \"%.200s\" is not \"%s\"; written by another version of harness?",
                 schema->valuestring, expected);
    else
        snprintf(why, cap, "schema: expected the string \"%s\", got %s", expected, type_name(schema));
    return 1;
}
