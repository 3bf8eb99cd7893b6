/* history_site_write.c - the dashboard's files (history_site_write.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* renameat2, RENAME_EXCHANGE */
#endif
#include "cli/history_site_write.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare/history_site.h"
#include "util/fsutil.h"

enum { MARK_SCAN = 4096 };         /* the mark is in the head, within the page's first bytes */

/* Whether dir/index.html is a page of a site written by --out. */
static int is_site(const char *dir)
{
    char *path = harness_path_join(dir, "index.html");
    FILE *f = path ? fopen(path, "rb") : NULL;
    free(path);
    if (!f)
        return 0;
    char head[MARK_SCAN + 1];
    size_t n = fread(head, 1, MARK_SCAN, f);
    fclose(f);
    head[n] = '\0';
    return strstr(head, HARNESS_SITE_MARK) != NULL;
}

static int is_empty_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)) != NULL)
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    return empty;
}

/* What is at dir now: 0 nothing or an empty folder (a rename takes its
 * place), 1 a site of before (swapped out, then removed); else 2. */
static int check_target(const char *dir, int *old_site, harness_error *err)
{
    struct stat st;
    *old_site = 0;
    if (lstat(dir, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "history: --out %s: %s", dir, strerror(errno));
    }
    if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "history: --out %s: exists and is not a folder%s; name a "
                                 "new folder (or one a `history --out` wrote, which is replaced)", dir,
                                 S_ISLNK(st.st_mode) ? " (a symbolic link)" : "");
    if (is_empty_dir(dir))
        return 0;
    if (!is_site(dir))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "history: --out %s: a folder that is not empty and not a "
                                 "dashboard `history --out` wrote (no index.html of one): not replaced; name a new "
                                 "or empty folder", dir);
    *old_site = 1;
    return 0;
}

/* One page into dir/name by `print` (index: SIZE_MAX; else that suite). */
static int write_page(const char *dir, const char *name, const harness_history *h, const harness_site *site,
                      size_t suite, const char *out, harness_error *err)
{
    char *path = harness_path_join(dir, name);
    if (!path)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "history: --out %s: out of memory", out);
    FILE *f = fopen(path, "w");
    int rc = !f ? -1 : suite == SIZE_MAX ? harness_print_history_site_index(f, h, site)
                                         : harness_print_history_site_suite(f, h, site, suite);
    int saved = errno;
    if (f && (ferror(f) | fclose(f)) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0)
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "history: --out %s: cannot write %s: %s", out, path,
                          saved ? strerror(saved) : "out of memory");
    free(path);
    return rc == 0 ? 0 : err->code;
}

/* Every page into the fresh folder tmp. */
static int write_pages(const char *tmp, const harness_history *h, const char *out, harness_error *err)
{
    harness_site site;
    if (harness_site_plan(h, &site) != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "history: --out %s: out of memory", out);
    int rc = write_page(tmp, "index.html", h, &site, SIZE_MAX, out, err);
    for (size_t i = 0; rc == 0 && i < site.n_suites; i++)
        rc = write_page(tmp, site.suites[i].file, h, &site, i, out, err);
    harness_site_free(&site);
    return rc;
}

/* tmp takes dir's place: a rename over nothing or an empty folder; over a
 * site of before, an exchange (readers never see no site), whose old half
 * is then removed. Where the file system cannot exchange, the old site is
 * moved aside first. */
static int put_in_place(const char *tmp, const char *dir, int old_site, harness_error *err)
{
    if (!old_site) {
        if (rename(tmp, dir) == 0)
            return 0;
        return harness_error_set(err, errno == ENOTEMPTY || errno == EEXIST ? HARNESS_EXIT_USAGE : HARNESS_EXIT_RUNTIME,
                                 "history: --out %s: cannot put the site in place: %s", dir, strerror(errno));
    }
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
        harness_remove_flat_dir(tmp);  /* the old site, now */
        return 0;
    }
    if (errno != EINVAL && errno != ENOSYS)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "history: --out %s: cannot replace the site: %s", dir,
                                 strerror(errno));
    char aside[4096];
    if (snprintf(aside, sizeof aside, "%s.old", tmp) >= (int)sizeof aside || rename(dir, aside) != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "history: --out %s: cannot move the old site aside: %s",
                                 dir, strerror(errno));
    if (rename(tmp, dir) != 0) {
        int saved = errno;
        rename(aside, dir);            /* the old site back */
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "history: --out %s: cannot put the site in place: %s",
                                 dir, strerror(saved));
    }
    harness_remove_flat_dir(aside);
    return 0;
}

int harness_history_site_write(const char *out, const harness_history *h, harness_error *err)
{
    /* "site/" is the folder "site": its temporary is beside it, not in it */
    char dir[4096], parent[4096], tmp[4096];
    size_t n = (size_t)snprintf(dir, sizeof dir, "%s", out);
    if (n >= sizeof dir || !n)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "history: --out '%s': %s", out,
                                 n ? "the path is too long" : "an empty path");
    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = '\0';
    if (snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", dir) >= (int)sizeof tmp)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "history: --out %s: the path is too long", out);
    int old_site;
    if (check_target(dir, &old_site, err) != 0)
        return err->code;
    snprintf(parent, sizeof parent, "%s", dir);
    harness_error inner = {0};
    if (harness_mkdirs(dirname(parent), &inner) != 0)
        return harness_error_set(err, inner.code, "history: --out %s: %s", dir, inner.msg);
    if (!mkdtemp(tmp))
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "history: --out %s: cannot create a folder beside it: %s",
                                 dir, strerror(errno));
    int rc = write_pages(tmp, h, dir, err);
    /* mkdtemp makes 0700; a site is served and shared as an ordinary folder */
    mode_t mask = umask(0);
    umask(mask);
    if (rc == 0 && chmod(tmp, 0777 & ~mask) != 0)
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "history: --out %s: %s: %s", dir, tmp, strerror(errno));
    if (rc == 0)
        rc = put_in_place(tmp, dir, old_site, err);
    if (rc != 0)
        harness_remove_flat_dir(tmp);
    return rc;
}
