/* run_suite.c - `harness run` over a suite: several configs, a folder of
 * them or a suite file, each run --runs N times. Every config (and every
 * point a --filter keeps) is prepared here first, so a bad one is refused
 * before anything runs; then each run is a fresh `harness run` process, one
 * config after another within a run ("run 1 of every config, then run 2"),
 * so slow drift spreads over all of them rather than landing on one. The
 * experiment folders go into one parent folder with an index.json, which
 * compare, export and record take as a folder of experiments: the runs of
 * a config are its replicates. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* asprintf */
#endif
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/bench_filter.h"
#include "cli/child_process.h"
#include "cli/commands.h"
#include "report/experiment.h"
#include "run/runner.h"
#include "util/fsutil.h"

typedef struct suite_config {
    char *path;
    char *first_name;              /* the first benchmark name the filter kept, for the listing */
    char *name;                    /* the name of its first point, for a filter that keeps nothing */
    size_t kept_points;
} suite_config;

typedef struct suite_run {
    size_t config;
    int run, exit_code;
    char *folders;                 /* the child's stdout: one experiment folder per line */
} suite_run;

typedef struct suite {
    suite_config *configs;
    size_t n_configs, cap;
    suite_run *runs;
    size_t n_runs;
} suite;

static int oom(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
}

static int add_config(suite *s, const char *path, harness_error *err)
{
    if (s->n_configs == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        suite_config *grown = realloc(s->configs, cap * sizeof *grown);
        if (!grown)
            return oom(err);
        s->configs = grown;
        s->cap = cap;
    }
    suite_config *c = &s->configs[s->n_configs];
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
static int add_folder(suite *s, const char *dir, harness_error *err)
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
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0)
            rc = add_config(s, names[i], err);
        free(names[i]);
    }
    free(names);
    return rc;
}

/* A suite file: one config per line, relative to the file's folder; blank
 * lines and lines starting with # are skipped. A config that is not there
 * is named with the suite file's line. */
static int add_suite_file(suite *s, const char *file, harness_error *err)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: %s", file, strerror(errno));
    const char *slash = strrchr(file, '/');
    int dir_len = slash ? (int)(slash - file) : 1;
    const char *dir = slash ? file : ".";
    char line[4096];
    int rc = 0, lineno = 0;
    size_t before = s->n_configs;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
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
static int expand(const harness_cli_opts *opts, suite *s, harness_error *err)
{
    for (size_t i = 0; i < opts->n_configs; i++) {
        const char *arg = opts->configs[i];
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

/* Prepare every point of c (refusing a bad one, as `run` would) and count
 * those the filter keeps. Returns 0 or the exit code (its error printed). */
static int check_config(const harness_cli_opts *opts, const harness_bench_filter *filter, suite_config *c)
{
    harness_cli_opts o = *opts;
    o.config_path = c->path;
    harness_prepared p;
    int code = 0;
    if (harness_cli_prepare_parsed(&o, "run", &p, &code) != 0)
        return code;
    size_t points = p.cfg->n_sweep_points;
    for (size_t i = 0; i < points && code == 0; i++) {
        harness_prepared q, *cur = &p;
        harness_error err = {0};
        if (i > 0 && harness_prepare_point(&o, i, &q, &err) != 0) {
            harness_prepared_free(&q);
            code = harness_error_report(&err);
            break;
        }
        if (i > 0)
            cur = &q;
        char name[1024];
        harness_bench_name(cur->cfg, cur->entry->variant.key, name, sizeof name);
        if ((i == 0 && !(c->name = strdup(name))) ||
            (harness_bench_filter_match(filter, name) && c->kept_points++ == 0 && !(c->first_name = strdup(name))))
            code = harness_error_report(&(harness_error){.code = HARNESS_EXIT_RUNTIME, .msg = "out of memory"});
        if (i > 0)
            harness_prepared_free(&q);
    }
    harness_prepared_free(&p);
    return code;
}

/* One run of config c: `harness run c --quiet --output-dir DIR` with the
 * suite's own options; its stderr passes through. */
static int run_one(const harness_cli_opts *opts, const char *dir, suite *s, size_t c, int run, harness_error *err)
{
    const char *argv[2 * HARNESS_MAX_OPTS + 16];
    size_t n = 0;
    argv[n++] = "harness";
    argv[n++] = "run";
    argv[n++] = s->configs[c].path;
    argv[n++] = "--quiet";
    argv[n++] = "--output-dir";
    argv[n++] = dir;
    if (opts->filter) {
        argv[n++] = "--filter";
        argv[n++] = opts->filter;
    }
    if (opts->device) {
        argv[n++] = "--device";
        argv[n++] = opts->device;
    }
    for (size_t i = 0; i < opts->n_sets; i++) {
        argv[n++] = "--set";
        argv[n++] = opts->sets[i];
    }
    for (size_t i = 0; i < opts->n_plugin_paths; i++) {
        argv[n++] = "--plugin-path";
        argv[n++] = opts->plugin_paths[i];
    }
    argv[n] = NULL;
    char out[65536];
    suite_run *r = &s->runs[s->n_runs];
    memset(r, 0, sizeof *r);
    r->config = c;
    r->run = run;
    if (harness_run_child(argv, STDOUT_FILENO, STDERR_FILENO, out, sizeof out, &r->exit_code) != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "run: cannot start harness for %s: %s",
                                 s->configs[c].path, strerror(errno));
    if (!(r->folders = strdup(out)))
        return oom(err);
    s->n_runs++;
    return 0;
}

/* index.json: what was asked, and every run's folders and exit code, so a
 * reader knows which folder is which config and run without parsing names. */
static char *index_json(const harness_cli_opts *opts, const suite *s, const char *dir, const char *status)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "harness.suite/1");
    cJSON_AddStringToObject(root, "status", status);
    cJSON_AddNumberToObject(root, "runs", opts->runs);
    if (opts->filter)
        cJSON_AddStringToObject(root, "filter", opts->filter);
    else
        cJSON_AddNullToObject(root, "filter");
    cJSON *configs = cJSON_AddArrayToObject(root, "configs");
    for (size_t i = 0; i < s->n_configs; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "path", s->configs[i].path);
        cJSON_AddNumberToObject(c, "points_kept", (double)s->configs[i].kept_points);
        cJSON_AddItemToArray(configs, c);
    }
    cJSON *runs = cJSON_AddArrayToObject(root, "experiments");
    size_t skip = strlen(dir) + 1;
    for (size_t i = 0; i < s->n_runs; i++) {
        const suite_run *r = &s->runs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "config", s->configs[r->config].path);
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
        cJSON_AddItemToArray(runs, o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}

static void suite_free(suite *s)
{
    for (size_t i = 0; i < s->n_configs; i++) {
        free(s->configs[i].path);
        free(s->configs[i].first_name);
        free(s->configs[i].name);
    }
    for (size_t i = 0; i < s->n_runs; i++)
        free(s->runs[i].folders);
    free(s->configs);
    free(s->runs);
}

/* The configs to run: expanded, each prepared, the filter applied. 0 or
 * the exit code (printed). */
static int select_configs(const harness_cli_opts *opts, const harness_bench_filter *filter, suite *s)
{
    harness_error err = {0};
    if (expand(opts, s, &err) != 0)
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
        else {
            free(s->configs[i].path);
            free(s->configs[i].first_name);
            free(s->configs[i].name);
        }
    }
    s->n_configs = k;
    return 0;
}

/* Run 1 of every config, then run 2, ...; stops at an interrupt. Returns
 * the worst exit code; *status says how the suite ended. */
static int run_all(const harness_cli_opts *opts, const char *dir, suite *s, const char **status)
{
    harness_error err = {0};
    int worst = 0;
    *status = "ok";
    if (!(s->runs = calloc((size_t)opts->runs * s->n_configs, sizeof *s->runs)))
        return harness_error_report(&(harness_error){.code = HARNESS_EXIT_RUNTIME, .msg = "out of memory"});
    for (int run = 1; run <= opts->runs; run++) {
        for (size_t c = 0; c < s->n_configs; c++) {
            if (run_one(opts, dir, s, c, run, &err) != 0) {
                *status = "failed";
                return harness_error_report(&err);
            }
            int code = s->runs[s->n_runs - 1].exit_code;
            worst = code > worst ? code : worst;
            if (code >= 128 || harness_interrupt_requested) {
                *status = "interrupted";
                return code >= 128 ? code : 128 + harness_interrupt_requested;
            }
            if (code != 0)
                *status = "failed";
            if (!opts->quiet)
                printf("run %d/%d  %-48s exit %d  %s\n", run, opts->runs, s->configs[c].first_name, code,
                       s->runs[s->n_runs - 1].folders[0] ? s->runs[s->n_runs - 1].folders : "-");
            fflush(stdout);
        }
    }
    return worst;
}

int harness_run_suite(const harness_cli_opts *opts)
{
    harness_bench_filter filter;
    harness_error err = {0};
    if (harness_bench_filter_init(&filter, opts->filter, &err) != 0)
        return harness_error_report(&err);
    suite s = {0};
    int code = select_configs(opts, &filter, &s);
    harness_bench_filter_free(&filter);
    harness_experiment exp;
    const char *root = opts->output_dir ? opts->output_dir : "experiments";
    if (code == 0 && harness_experiment_create(&exp, root, time(NULL), "suite", &err) != 0)
        code = harness_error_report(&err);
    if (code != 0) {
        suite_free(&s);
        return code;
    }
    harness_runner_catch_sigint();
    const char *status;
    code = run_all(opts, exp.dir, &s, &status);
    char *index = index_json(opts, &s, exp.dir, status);
    char path[sizeof exp.dir + 16];
    snprintf(path, sizeof path, "%s/index.json", exp.dir);
    if (!index || harness_write_atomic(path, index, strlen(index), &err) != 0) {
        if (!index)
            harness_error_set(&err, HARNESS_EXIT_RUNTIME, "out of memory writing %s", path);
        int failed = harness_error_report(&err);
        code = code > failed ? code : failed;
    }
    free(index);
    if (!opts->quiet)
        printf("suite: %zu config%s x %d run%s, %s\n", s.n_configs, s.n_configs == 1 ? "" : "s", opts->runs,
               opts->runs == 1 ? "" : "s", status);
    printf("%s\n", exp.dir);
    suite_free(&s);
    return code;
}
