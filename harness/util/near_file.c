/* The nearest existing YAML file to a missing one (util/near_file.h). */
#include "util/near_file.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/suggest.h"

enum { MAX_NAMES = 512 };

static int is_yaml(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && ((n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
                              (n > 4 && strcmp(name + n - 4, ".yml") == 0));
}

/* The nearest YAML file name in dir to `name`, copied into best; 0 or -1. */
static int nearest_in(const char *dir, const char *name, char *best, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char *names[MAX_NAMES];
    size_t n = 0;
    struct dirent *e;
    while (n < MAX_NAMES && (e = readdir(d)) != NULL)
        if (is_yaml(e->d_name) && (names[n] = strdup(e->d_name)) != NULL)
            n++;
    closedir(d);
    const char *near = harness_suggest(name, (const char *const *)names, n);
    int rc = near ? 0 : -1;
    if (rc == 0)
        snprintf(best, cap, "%s", near);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    return rc;
}

int harness_near_yaml(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    char dir[4096], best[256];
    if (!*name)
        return -1;
    /* "configs/x.yaml" looks in "configs", "/a/x.yaml" in "/a", "x.yaml" in "." */
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash == path ? 1 : slash - path) : 1, slash ? path : ".");
    if (nearest_in(dir, name, best, sizeof best) == 0) {
        if (slash)
            snprintf(out, cap, "%.*s%s", (int)(slash - path + 1), path, best);
        else
            snprintf(out, cap, "%s", best);
        return 0;
    }
    if (strcmp(dir, "configs") != 0 && nearest_in("configs", name, best, sizeof best) == 0) {
        snprintf(out, cap, "configs/%s", best);
        return 0;
    }
    return -1;
}

void harness_near_yaml_hint(const char *path, harness_error *err)
{
    char near[4096];
    if (!err || access(path, F_OK) == 0 || harness_near_yaml(path, near, sizeof near) != 0)
        return;
    size_t n = strlen(err->msg);
    snprintf(err->msg + n, sizeof err->msg - n, "; did you mean %s?", near);
}
