/* commands.h - the subcommands of the CLI, and what they share: options,
 * and (run, validate) argv -> plan (pipeline/plan.h). */
#ifndef HARNESS_COMMANDS_H
#define HARNESS_COMMANDS_H

#include <stdio.h>

#include "cli/cli_help.h"
#include "config/config.h"
#include "pipeline/plan.h"
#include "plugin/registry.h"
#include "util/error.h"
#include "util/term.h"

#define HARNESS_MAX_OPTS 64

typedef struct harness_cli_opts {
    const char *config_path;       /* the first CONFIG */
    const char *configs[HARNESS_MAX_OPTS]; /* run: every CONFIG, folder or suite file given */
    size_t n_configs;
    int runs;                      /* run --runs N: fresh processes per config (default 1) */
    double time_budget_s;          /* run --time-budget: seconds per run of each benchmark; 0 none */
    const char *time_budget;       /* as given, for a suite's runs */
    const char *filter;            /* run, list --filter: an extended regex over benchmark names */
    const char *sets[HARNESS_MAX_OPTS];
    size_t n_sets;
    const char *plugin_paths[HARNESS_MAX_OPTS];
    size_t n_plugin_paths;
    const char *output_dir;        /* --output-dir, overrides experiment.output_dir */
    const char *device;            /* --device, overrides device */
    int quiet;
    int allow_above_peak;          /* run --allow-above-peak: keep a run with an impossible figure */
    harness_color_mode color;      /* run --color */
    int json;                      /* list --json */
    int wide;                      /* run, list --wide: every column, lines unwrapped, whatever $COLUMNS says */
    int device_may_be_absent;      /* validate: check a cuda config on a machine without a GPU */
} harness_cli_opts;

/* What getopt_long returns for the options run, validate and list share
 * (harness_parse_opts); each of them lists in its own table
 * (cli/cli_help.h) those it takes. */
enum { HARNESS_OPT_SET = 's', HARNESS_OPT_PLUGIN_PATH = 'P', HARNESS_OPT_OUTPUT_DIR = 'o', HARNESS_OPT_DEVICE = 'd',
       HARNESS_OPT_QUIET = 'q', HARNESS_OPT_HELP = 'h', HARNESS_OPT_JSON = 1000, HARNESS_OPT_RUNS,
       HARNESS_OPT_FILTER, HARNESS_OPT_COLOR, HARNESS_OPT_TIME_BUDGET, HARNESS_OPT_ALLOW_ABOVE_PEAK,
       HARNESS_OPT_WIDE };

/* Parse argv for `harness <command>` (run, validate or list) with that
 * command's table, which gives its options and its --help. Returns -1 when
 * the command should exit 0 (--help printed), else 0 or an exit code. */
int harness_parse_opts(int argc, char **argv, const harness_cli_command *command, harness_cli_opts *opts,
                       harness_error *err);

/* The plan request of parsed options: what they ask of pipeline/plan.h. */
harness_plan_request harness_cli_plan_request(const harness_cli_opts *opts);

/* "point 2/4: a.b=4096 c.d=fp32" (no newline). */
void harness_sweep_point_label(const harness_config *cfg, FILE *f);

/* argv -> plan, for `run` and `validate` (point 0 of a sweep), errors
 * reported on stderr. Returns 0 when *p is ready, else -1 with *exit_code
 * set (0 after --help) and nothing left to free. */
int harness_cli_plan(int argc, char **argv, const harness_cli_command *command, harness_cli_opts *opts,
                     harness_plan *p, int *exit_code);
/* The second half of that, for options already parsed. */
int harness_cli_plan_parsed(harness_cli_opts *opts, const char *command, harness_plan *p, int *exit_code);
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
