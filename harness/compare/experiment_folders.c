/* experiment_folders.c - finding experiment folders (experiment_folders.h). */
#include "compare/experiment_folders.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare/compare_internal.h"
#include "compare/folder_ranks.h"

static int oom(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
}

static int natural_cmp_qsort(const void *pa, const void *pb)
{
    return harness_cmp_natural_cmp(*(char *const *)pa, *(char *const *)pb);
}

static char *join(const char *dir, const char *name)
{
    size_t ld = strlen(dir);
    int slash = ld > 0 && dir[ld - 1] == '/';
    char *p = malloc(ld + strlen(name) + 2);
    if (p)
        sprintf(p, "%s%s%s", dir, slash ? "" : "/", name);
    return p;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static int append(char ***list, size_t *n, size_t *cap, char *item, harness_error *err)
{
    if (!item)
        return oom(err);
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        char **grown = realloc(*list, ncap * sizeof *grown);
        if (!grown) {
            free(item);
            return oom(err);
        }
        *list = grown;
        *cap = ncap;
    }
    (*list)[(*n)++] = item;
    return 0;
}

/* The subfolders of dir (no hidden ones), joined to it, in natural order. */
static int subfolders(const char *dir, char ***paths, size_t *n, harness_error *err)
{
    *paths = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: cannot open folder: %s", dir, strerror(errno));
    size_t cap = 0;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *path = join(dir, e->d_name);
        struct stat st;
        if (path && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))) {
            free(path);
            continue;
        }
        rc = append(paths, n, &cap, path, err);
    }
    closedir(d);
    if (*n > 1)
        qsort(*paths, *n, sizeof **paths, natural_cmp_qsort);
    return rc;
}

static int scan(const char *dir, int depth, harness_experiment_folders *out, size_t *cap, int *found,
                harness_error *err)
{
    harness_folder_ranks fr;
    int rc = harness_folder_ranks_read(dir, &fr, err);
    *found = rc == 0 && fr.n > 0;
    harness_folder_ranks_free(&fr);
    if (rc != 0 || *found)
        return rc ? rc : append(&out->paths, &out->n, cap, strdup(dir), err);
    if (depth >= HARNESS_EXPERIMENT_SEARCH_DEPTH)
        return 0;
    char **subs;
    size_t n;
    rc = subfolders(dir, &subs, &n, err);
    for (size_t i = 0; i < n && rc == 0; i++) {
        int sub;
        rc = scan(subs[i], depth + 1, out, cap, &sub, err);
    }
    free_names(subs, n);
    return rc;
}

int harness_experiment_folders_find(const char *root, harness_experiment_folders *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    if (stat(root, &st) != 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: %s; expected an experiment folder written by "
                                 "`harness run` or a folder of them", root,
                                 errno == ENOENT ? "no such folder" : strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: not a folder; expected an experiment folder "
                                 "written by `harness run` or a folder of them", root);
    size_t cap = 0;
    int rc = scan(root, 0, out, &cap, &out->root_is_experiment, err);
    if (rc != 0)
        harness_experiment_folders_free(out);
    return rc;
}

void harness_experiment_folders_free(harness_experiment_folders *f)
{
    free_names(f->paths, f->n);
    memset(f, 0, sizeof *f);
}
