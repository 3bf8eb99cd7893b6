/* json_utf8.c - valid UTF-8 in every string of a cJSON tree (json_utf8.h). */
#include "util/json_utf8.h"

#include "util/utf8.h"

/* Recursive: the trees scrubbed here are the harness's own, a few levels deep. */
void harness_json_scrub_utf8(cJSON *root)
{
    for (cJSON *n = root; n; n = n == root ? NULL : n->next) {
        if (n->string)
            harness_utf8_scrub(n->string);
        if (cJSON_IsString(n) && n->valuestring)
            harness_utf8_scrub(n->valuestring);
        for (cJSON *c = n->child; c; c = c->next)
            harness_json_scrub_utf8(c);
    }
}
