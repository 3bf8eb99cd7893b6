/* suite_configs.c - the configs of a suite (suite_configs.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* asprintf */
#endif
#include "cli/suite_configs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/bench_filter.h"
#include "util/input_file.h"

static int oom(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
}

static int add_config(harness_suite_configs *s, const char *path, harness_error *err)
{
    if (s->n_configs == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        harness_suite_config *grown = realloc(s->configs, cap * sizeof *grown);
        if (!grown)
            return oom(err);
        s->configs = grown;
        s->cap = cap;
    }
    harness_suite_config *c = &s->configs[s->n_configs];
    memset(c, 0, sizeof *c);
    if (!(c->path = strdup(path)))
        return oom(err);
    s->n_configs++;
    return 0;
}

static int is_yaml(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) || (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.yaml and *.yml directly in dir, in name order. */
static int add_folder(harness_suite_configs *s, const char *dir, harness_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: cannot open folder: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || !is_yaml(e->d_name))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = realloc(names, cap * sizeof *grown);
            if (!grown) {
                rc = oom(err);
                break;
            }
            names = grown;
        }
        if (asprintf(&names[n], "%s/%s", dir, e->d_name) < 0)
            rc = oom(err);
        else
            n++;
    }
    closedir(d);
    if (rc == 0 && n == 0)
        rc = harness_error_set(err, HARNESS_EXIT_USAGE, "%s: a folder with no config in it (*.yaml, *.yml)", dir);
    if (n > 1)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0)
            rc = add_config(s, names[i], err);
        free(names[i]);
    }
    free(names);
    return rc;
}

#define SUITE_MAX_LINES 100000

/* A suite file: one config per line, relative to the file's folder; blank
 * lines and lines starting with # are skipped. A config that is not there
 * is named with the suite file's line. */
static int add_suite_file(harness_suite_configs *s, const char *file, harness_error *err)
{
    /* A regular file only: a FIFO named x.suite must not block the run. */
    FILE *f = harness_open_regular(file);
    if (!f)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: %s", file,
                                 errno == EINVAL ? "not a regular file (a suite file lists configs, one a line)"
                                                 : strerror(errno));
    const char *slash = strrchr(file, '/');
    int dir_len = slash ? (int)(slash - file) : 1;
    const char *dir = slash ? file : ".";
    char line[4096];
    int rc = 0, lineno = 0;
    size_t before = s->n_configs;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        /* A sparse or huge file is not a list of configs: stop early. */
        if (++lineno > SUITE_MAX_LINES) {
            rc = harness_error_set(err, HARNESS_EXIT_USAGE, "%s: more than %d lines; a suite file lists configs, "
                                   "one a line", file, SUITE_MAX_LINES);
            break;
        }
        char *p = line + strspn(line, " \t");
        p[strcspn(p, "\r\n")] = '\0';
        for (size_t n = strlen(p); n && (p[n - 1] == ' ' || p[n - 1] == '\t'); n--)
            p[n - 1] = '\0';
        if (!*p || *p == '#')
            continue;
        char *path = NULL;
        if ((*p == '/' ? asprintf(&path, "%s", p) : asprintf(&path, "%.*s/%s", dir_len, dir, p)) < 0)
            return fclose(f), oom(err);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            rc = harness_error_set(err, HARNESS_EXIT_USAGE, "%s:%d: %s: %s", file, lineno, path,
                                   errno == ENOENT ? "no such config file" : "not a config file");
        else
            rc = add_config(s, path, err);
        free(path);
    }
    fclose(f);
    if (rc == 0 && s->n_configs == before)
        rc = harness_error_set(err, HARNESS_EXIT_USAGE, "%s: a suite file that lists no config (one path per line; "
                               "# starts a comment)", file);
    return rc;
}

int harness_is_suite_file(const char *path)
{
    size_t n = strlen(path);
    return n > 6 && strcmp(path + n - 6, ".suite") == 0;
}

/* CONFIG arguments: a folder holds configs, NAME.suite lists them, any
 * other file is a config (whatever its name). */
static int expand(const char *const *paths, size_t n, harness_suite_configs *s, harness_error *err)
{
    for (size_t i = 0; i < n; i++) {
        const char *arg = paths[i];
        struct stat st;
        int rc;
        if (stat(arg, &st) != 0)
            rc = harness_error_set(err, HARNESS_EXIT_USAGE, "%s: %s; expected a config, a folder of configs or a "
                                   "suite file", arg, strerror(errno));
        else if (S_ISDIR(st.st_mode))
            rc = add_folder(s, arg, err);
        else if (harness_is_suite_file(arg))
            rc = add_suite_file(s, arg, err);
        else
            rc = add_config(s, arg, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Plan every point of c (refusing a bad one, as `run` would) and count
 * those the filter keeps. Returns 0 or the exit code (its error printed). */
static int check_config(const harness_cli_opts *opts, const harness_bench_filter *filter, harness_suite_config *c)
{
    harness_cli_opts o = *opts;
    o.config_path = c->path;
    harness_plan p;
    int code = 0;
    if (harness_cli_plan_parsed(&o, "run", &p, &code) != 0)
        return code;
    harness_plan_request req = harness_cli_plan_request(&o);
    size_t points = p.cfg->n_sweep_points;
    for (size_t i = 0; i < points && code == 0; i++) {
        harness_plan q, *cur = &p;
        harness_error err = {0};
        if (i > 0 && harness_plan_point(&req, i, &q, &err) != 0) {
            harness_plan_free(&q);
            code = harness_error_report(&err);
            break;
        }
        if (i > 0)
            cur = &q;
        char name[1024];
        harness_plan_bench_name(cur, name, sizeof name);
        if ((i == 0 && !(c->name = strdup(name))) ||
            (harness_bench_filter_match(filter, name) && c->kept_points++ == 0 && !(c->first_name = strdup(name))))
            code = harness_error_report(&(harness_error){.code = HARNESS_EXIT_RUNTIME, .msg = "out of memory"});
        if (i > 0)
            harness_plan_free(&q);
    }
    harness_plan_free(&p);
    return code;
}

static void config_free(harness_suite_config *c)
{
    free(c->path);
    free(c->first_name);
    free(c->name);
}

void harness_suite_configs_free(harness_suite_configs *s)
{
    for (size_t i = 0; i < s->n_configs; i++)
        config_free(&s->configs[i]);
    free(s->configs);
    memset(s, 0, sizeof *s);
}

/* Expanded, each prepared, the filter applied. */
static int select_configs(const harness_cli_opts *opts, const char *const *paths, size_t n,
                          const harness_bench_filter *filter, harness_suite_configs *s)
{
    harness_error err = {0};
    if (expand(paths, n, s, &err) != 0)
        return harness_error_report(&err);
    size_t kept = 0;
    for (size_t i = 0; i < s->n_configs; i++) {
        int code = check_config(opts, filter, &s->configs[i]);
        if (code != 0)
            return code;
        kept += s->configs[i].kept_points > 0;
    }
    if (kept == 0) {
        char names[512] = "";
        for (size_t i = 0, len = 0; i < s->n_configs && i < 4 && len < sizeof names; i++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s'%s'", i ? ", " : "", s->configs[i].name);
        return harness_error_set(&err, HARNESS_EXIT_USAGE, "--filter '%s' matches none of the %zu configs' "
                                 "benchmarks; a name is \"EXPERIMENT_NAME VARIANT_KEY [KEY=VALUE]...\", such as "
                                 "%s%s", opts->filter, s->n_configs, names, s->n_configs > 4 ? ", ..." : ""),
               harness_error_report(&err);
    }
    /* only the configs the filter keeps */
    size_t k = 0;
    for (size_t i = 0; i < s->n_configs; i++) {
        if (s->configs[i].kept_points)
            s->configs[k++] = s->configs[i];
        else
            config_free(&s->configs[i]);
    }
    s->n_configs = k;
    return 0;
}

int harness_suite_select(const harness_cli_opts *opts, const char *const *paths, size_t n,
                         harness_suite_configs *out)
{
    memset(out, 0, sizeof *out);
    harness_bench_filter filter;
    harness_error err = {0};
    if (harness_bench_filter_init(&filter, opts->filter, &err) != 0)
        return harness_error_report(&err);
    int code = select_configs(opts, paths, n, &filter, out);
    harness_bench_filter_free(&filter);
    if (code != 0)
        harness_suite_configs_free(out);
    return code;
}

