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

/* The folders a walk has entered, by device and inode: a folder reached
 * twice (a link to itself or to a parent, forty of them) is not walked
 * again, and the count bounds a walk of a huge or hostile tree. */
typedef struct walk {
    const char *root;
    struct { dev_t dev; ino_t ino; } *seen;
    size_t n, cap;
} walk;

/* 1: first visit (remembered), 0: seen before, or an error (err set). */
static int first_visit(walk *w, const char *dir, harness_error *err)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return 0;                  /* gone since it was listed: nothing to find */
    for (size_t i = 0; i < w->n; i++)
        if (w->seen[i].dev == st.st_dev && w->seen[i].ino == st.st_ino)
            return 0;
    if (w->n >= HARNESS_EXPERIMENT_SEARCH_MAX_FOLDERS)
        return -harness_error_set(err, HARNESS_EXIT_USAGE, "%s: more than %d folders under it; give the "
                                  "experiment folders, or a folder of them, directly", w->root,
                                  HARNESS_EXPERIMENT_SEARCH_MAX_FOLDERS);
    if (w->n == w->cap) {
        size_t ncap = w->cap ? w->cap * 2 : 64;
        void *grown = realloc(w->seen, ncap * sizeof *w->seen);
        if (!grown)
            return -oom(err);
        w->seen = grown;
        w->cap = ncap;
    }
    w->seen[w->n].dev = st.st_dev;
    w->seen[w->n].ino = st.st_ino;
    w->n++;
    return 1;
}

static int scan(walk *w, const char *dir, int depth, harness_experiment_folders *out, size_t *cap, int *found,
                harness_error *err)
{
    *found = 0;
    int first = first_visit(w, dir, err);
    if (first <= 0)
        return first < 0 ? err->code : 0;
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
        rc = scan(w, subs[i], depth + 1, out, cap, &sub, err);
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
    walk w = {.root = root};
    int rc = scan(&w, root, 0, out, &cap, &out->root_is_experiment, err);
    free(w.seen);
    if (rc != 0)
        harness_experiment_folders_free(out);
    return rc;
}

void harness_experiment_folders_free(harness_experiment_folders *f)
{
    free_names(f->paths, f->n);
    memset(f, 0, sizeof *f);
}
