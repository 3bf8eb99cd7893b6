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

#include "backend/backend.h"
#include "cli/bench_filter.h"
#include "pipeline/config_source.h"
#include "util/fsutil.h"
#include "util/input_file.h"
#include "util/near_file.h"

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
        if (!(names[n] = harness_path_join(dir, e->d_name)))
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
        if (stat(arg, &st) != 0) {
            rc = harness_error_set(err, HARNESS_EXIT_USAGE, "%s: %s; expected a config, a folder of configs or a "
                                   "suite file", arg, strerror(errno));
            harness_near_yaml_hint(arg, err);
        }
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

/* Record point i's name (the first one as c->name, the first the filter
 * keeps as c->first_name) and whether the filter keeps it. 0, or the exit
 * code (out of memory, printed). */
static int note_point(harness_suite_config *c, const harness_bench_filter *filter, size_t i, const char *name)
{
    if ((i == 0 && !(c->name = strdup(name))) ||
        (harness_bench_filter_match(filter, name) && c->kept_points++ == 0 && !(c->first_name = strdup(name))))
        return harness_error_report(&(harness_error){.code = HARNESS_EXIT_RUNTIME, .msg = "out of memory"});
    return 0;
}

static void forget_points(harness_suite_config *c)
{
    free(c->first_name);
    free(c->name);
    c->first_name = c->name = NULL;
    c->kept_points = 0;
}

/* c's points as the config stage reads them, with neither its device nor
 * its plugins: each named with its variant key as written (the name the
 * filter sees when that key is exact, harness_plan_bench_name's form) and
 * matched. *exact: the key names a variant rather than a family (it has a
 * slash), so those names are the run's own; *wants_cuda: the config (or
 * --device) asks for device cuda. 0, or the exit code (its error printed:
 * a config that cannot be read is an error whatever the filter). */
static int written_points(const harness_cli_opts *opts, const harness_bench_filter *filter, harness_suite_config *c,
                          int *exact, int *wants_cuda)
{
    harness_error err = {0};
    const char *text;
    size_t len, points = 1;
    if (harness_config_source(c->path, &text, &len, &err) != 0)
        return harness_error_report(&err);
    for (size_t i = 0; i < points; i++) {
        harness_config *cfg = NULL;
        if (harness_config_load_text(c->path, text, len, opts->sets, opts->n_sets, i, &cfg, &err) != 0) {
            harness_config_free(cfg);
            return harness_error_report(&err);
        }
        points = cfg->n_sweep_points;
        *exact = strchr(cfg->variant_key, '/') != NULL;
        *wants_cuda = strcmp(opts->device ? opts->device : cfg->device, "cuda") == 0;
        harness_variant_entry as_written = {.variant = {.key = cfg->variant_key}};
        harness_plan p = {.cfg = cfg, .entry = &as_written};
        char name[1024];
        harness_plan_bench_name(&p, name, sizeof name);
        int code = note_point(c, filter, i, name);
        harness_config_free(cfg);
        if (code != 0)
            return code;
    }
    return 0;
}

/* Plan every point of c (refusing a bad one, as `run` would) and count
 * those the filter keeps, by their names as run gives them. Checked as
 * `validate` checks (everything but a device that is absent here): a
 * variant whose device is absent then skips c, the reason in *absent.
 * Returns 0 or the exit code (its error printed). */
static int prepare_config(const harness_cli_opts *opts, const harness_bench_filter *filter, harness_suite_config *c,
                          int *absent)
{
    harness_cli_opts o = *opts;
    o.config_path = c->path;
    harness_plan p;
    int code = 0;
    if (harness_cli_plan_parsed(&o, "validate", &p, &code) != 0)
        return code;
    *absent = p.device_unchecked[0] != '\0';
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
        code = note_point(c, filter, i, name);
        if (i > 0)
            harness_plan_free(&q);
    }
    harness_plan_free(&p);
    return code;
}

/* The filter first, then the device, then the rest: a config whose exact
 * variant key the filter drops is never prepared; one that needs a CUDA
 * device where none is visible (cuda_absent: why, or NULL when one is) is
 * skipped unprepared (`harness validate` lints it here); any other is
 * prepared as `run` would prepare it, and one whose variant turns out to
 * need the absent device is skipped too. Returns 0 or the exit code. */
static int check_config(const harness_cli_opts *opts, const harness_bench_filter *filter, harness_suite_config *c,
                        const char *cuda_absent)
{
    int exact = 0, wants_cuda = 0, absent = 0;
    int code = written_points(opts, filter, c, &exact, &wants_cuda);
    if (code != 0)
        return code;
    if (wants_cuda && cuda_absent) {
        c->skipped = cuda_absent;
        return 0;
    }
    if (exact && c->kept_points == 0)
        return 0;
    forget_points(c);
    code = prepare_config(opts, filter, c, &absent);
    if (code == 0 && absent)
        c->skipped = "needs a CUDA device, none visible";
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

/* Why a config that asks for device cuda cannot run here, or NULL when
 * a CUDA device is visible; *why_long: the device's own words. */
static const char *cuda_absent(harness_error *why_long)
{
    const char *device;
    if (harness_device_resolve("cuda", &device, why_long) == 0)
        return NULL;
    return strstr(why_long->msg, "built without CUDA") ? "needs a CUDA device, and this harness was built without CUDA"
                                                      : "needs a CUDA device, none visible";
}

/* Every config kept was skipped: nothing would run. Exit 3, as `harness
 * run` of one of them alone (the device is absent), never a pass. */
static int nothing_runs(const harness_cli_opts *opts, size_t skipped, const harness_error *why_long)
{
    harness_error err = {0};
    int one = skipped == 1;
    char which[320];
    if (opts->filter)
        snprintf(which, sizeof which, "the %zu config%s that --filter '%.200s' keeps need%s", skipped,
                 one ? "" : "s", opts->filter, one ? "s" : "");
    else
        snprintf(which, sizeof which, "%s need%s", one ? "the suite's config" : "all the suite's configs",
                 one ? "s" : "");
    /* the device's words but its own advice (--device cpu would not run these variants) */
    const char *advice = strstr(why_long->msg, "; use --device");
    int len = advice ? (int)(advice - why_long->msg) : (int)strlen(why_long->msg);
    return harness_error_set(&err, HARNESS_EXIT_RUNTIME, "nothing to run: %s a CUDA device: %.*s; run %s on a "
                             "machine with one (harness validate checks %s here)", which, len, why_long->msg,
                             one ? "it" : "them", one ? "it" : "them"),
           harness_error_report(&err);
}

/* Expanded, the filter applied, each kept one prepared or skipped. */
static int select_configs(const harness_cli_opts *opts, const char *const *paths, size_t n,
                          const harness_bench_filter *filter, harness_suite_configs *s)
{
    harness_error err = {0}, why_long = {0};
    if (expand(paths, n, s, &err) != 0)
        return harness_error_report(&err);
    const char *absent = cuda_absent(&why_long);
    size_t kept = 0;
    for (size_t i = 0; i < s->n_configs; i++) {
        int code = check_config(opts, filter, &s->configs[i], absent);
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
    /* only the configs the filter keeps and this machine can run */
    size_t k = 0;
    for (size_t i = 0; i < s->n_configs; i++) {
        harness_suite_config *c = &s->configs[i];
        if (c->kept_points && c->skipped) {
            fprintf(stderr, "harness: skipped %s: %s\n", c->path, c->skipped);
            s->n_skipped++;
        }
        if (c->kept_points && !c->skipped)
            s->configs[k++] = *c;
        else
            config_free(c);
    }
    s->n_configs = k;
    return k == 0 ? nothing_runs(opts, s->n_skipped, &why_long) : 0;
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

