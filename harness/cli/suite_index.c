/* suite_index.c - a suite folder's index.json (suite_index.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strndup */
#endif
#include "cli/suite_index.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "folder/folder_format.h"

char *harness_suite_index_json(const harness_suite *s, int runs, const char *filter, const char *dir,
                               const char *status)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", HARNESS_SCHEMA_SUITE);
    cJSON_AddStringToObject(root, "status", status);
    cJSON_AddNumberToObject(root, "runs", runs);
    if (filter)
        cJSON_AddStringToObject(root, "filter", filter);
    else
        cJSON_AddNullToObject(root, "filter");
    cJSON *configs = cJSON_AddArrayToObject(root, "configs");
    for (size_t i = 0; i < s->sel.n_configs; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "path", s->sel.configs[i].path);
        cJSON_AddNumberToObject(c, "points_kept", (double)s->sel.configs[i].kept_points);
        cJSON_AddItemToArray(configs, c);
    }
    cJSON *experiments = cJSON_AddArrayToObject(root, "experiments");
    size_t skip = strlen(dir) + 1;
    for (size_t i = 0; i < s->n_runs; i++) {
        const harness_suite_run *r = &s->runs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "config", s->sel.configs[r->config].path);
        cJSON_AddNumberToObject(o, "run", r->run);
        cJSON_AddNumberToObject(o, "exit_code", r->exit_code);
        cJSON *folders = cJSON_AddArrayToObject(o, "folders");
        for (char *line = r->folders, *end; line && *line; line = *end ? end + 1 : end) {
            end = line + strcspn(line, "\n");
            size_t len = (size_t)(end - line);
            /* folders inside the suite's, relative to it */
            const char *rel = len > skip && strncmp(line, dir, skip - 1) == 0 && line[skip - 1] == '/' ? line + skip
                                                                                                       : line;
            char *name = strndup(rel, len - (size_t)(rel - line));
            cJSON_AddItemToArray(folders, cJSON_CreateString(name ? name : ""));
            free(name);
        }
        cJSON_AddItemToArray(experiments, o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}
