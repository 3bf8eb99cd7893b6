/* commands.h - the subcommands of the CLI, and what run and validate share:
 * options, then config -> device -> plugins -> variant -> parameters. */
#ifndef HARNESS_COMMANDS_H
#define HARNESS_COMMANDS_H

#include <stdio.h>

#include "config/config.h"
#include "util/error.h"
#include "plugin/registry.h"
#include "util/term.h"

#define HARNESS_MAX_OPTS 64

typedef struct harness_cli_opts {
    const char *config_path;       /* the first CONFIG */
    const char *configs[HARNESS_MAX_OPTS]; /* run: every CONFIG, folder or suite file given */
    size_t n_configs;
    int runs;                      /* run --runs N: fresh processes per config (default 1) */
    const char *filter;            /* run, list --filter: an extended regex over benchmark names */
    const char *sets[HARNESS_MAX_OPTS];
    size_t n_sets;
    const char *plugin_paths[HARNESS_MAX_OPTS];
    size_t n_plugin_paths;
    const char *output_dir;        /* --output-dir, overrides experiment.output_dir */
    const char *device;            /* --device, overrides device */
    int quiet;
    harness_color_mode color;      /* run --color */
    int json;                      /* list --json */
    int device_may_be_absent;      /* validate: check a cuda config on a machine without a GPU */
} harness_cli_opts;

/* A config ready to run: validated, its variant found and parameters bound. */
typedef struct harness_prepared {
    harness_config *cfg;
    harness_registry registry;
    int registry_ready;
    const harness_variant_entry *entry;
    const char *device;            /* resolved: "cpu" | "cuda" */
    char *resolved_yaml;           /* canonical dump */
    char hash8[9];
    char device_unchecked[512];    /* why the device could not be checked (validate without it), or "" */
} harness_prepared;

/* Parse argv for `harness <command>`; `usage` prints that command's help.
 * Returns -1 when the command should exit 0 (--help printed), else 0 or an
 * exit code. */
int harness_parse_opts(int argc, char **argv, const char *command, void (*usage)(FILE *),
                       harness_cli_opts *opts, harness_error *err);

/* The bytes of the config file at `path`, read on first use and the same
 * for the rest of the process (what was parsed is what the folder copies). */
int harness_config_source(const char *path, const char **text, size_t *len, harness_error *err);

int harness_prepare(const harness_cli_opts *opts, harness_prepared *p, harness_error *err);
/* The same for one point of the config's sweep (0 when it has none). On
 * failure *p may hold parts: free it with harness_prepared_free. */
int harness_prepare_point(const harness_cli_opts *opts, size_t point, harness_prepared *p, harness_error *err);
/* Prepare (and free) every point after `first` (point 0, prepared): so that
 * a sweep with one bad point is refused before anything runs. */
int harness_prepare_sweep(const harness_cli_opts *opts, harness_prepared *first, harness_error *err);
/* "point 2/4: a.b=4096 c.d=fp32" (no newline). */
void harness_sweep_point_label(const harness_config *cfg, FILE *f);

/* Both of the above for `run` and `validate`, errors reported on stderr.
 * Returns 0 when *p is ready, else the exit code (0 after --help), with
 * nothing left to free. */
int harness_cli_prepare(int argc, char **argv, const char *command, void (*usage)(FILE *),
                        harness_cli_opts *opts, harness_prepared *p, int *exit_code);
/* The second half of that, for options already parsed. */
int harness_cli_prepare_parsed(harness_cli_opts *opts, const char *command, harness_prepared *p, int *exit_code);
void harness_prepared_free(harness_prepared *p);

/* Plugins from --plugin-path and the config's plugin_path, then the rest of the search path. */
int harness_load_plugins(harness_registry *reg, const harness_cli_opts *opts, const harness_config *cfg,
                         harness_error *err);

/* One warning on stderr for each file in a plugin directory that could not
 * be loaded; printed once per command, not per sweep point. */
void harness_warn_broken_plugins(const harness_registry *reg);

int harness_cmd_run(int argc, char **argv);
/* run over several configs or runs (cli/run_suite.c); opts parsed. */
int harness_run_suite(const harness_cli_opts *opts);
/* Whether path names a suite file (its name ends in .suite). */
int harness_is_suite_file(const char *path);
int harness_cmd_validate(int argc, char **argv);
int harness_cmd_list(int argc, char **argv);
int harness_cmd_compare(int argc, char **argv);
int harness_cmd_calibrate(int argc, char **argv);
int harness_cmd_record(int argc, char **argv);
int harness_cmd_history(int argc, char **argv);
int harness_cmd_ab(int argc, char **argv);
int harness_cmd_export(int argc, char **argv);
int harness_cmd_new_plugin(int argc, char **argv);

#endif
