/* What the commands share: options, and argv -> plan for run and validate. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "util/term.h"

static int parse_runs(const char *arg, int *runs, harness_error *err)
{
    char *end;
    long n = strtol(arg, &end, 10);
    if (end == arg || *end || n < 1 || n > 1000)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--runs: expected an integer in [1, 1000], got '%s'",
                                 arg);
    *runs = (int)n;
    return 0;
}

/* --time-budget SECONDS: a finite number above 0, refused before anything
 * runs (inf would never stop sizing; nan compares false everywhere). */
static int parse_time_budget(const char *arg, harness_cli_opts *opts, harness_error *err)
{
    char *end;
    double s = strtod(arg, &end);
    if (end == arg || *end || !(s > 0) || !isfinite(s))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--time-budget: expected seconds > 0, got '%s'", arg);
    opts->time_budget_s = s;
    opts->time_budget = arg;
    return 0;
}

static int add_opt(const char **list, size_t *n, const char *value, const char *what, harness_error *err)
{
    if (*n == HARNESS_MAX_OPTS)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "too many %s options (at most %d)", what,
                                 HARNESS_MAX_OPTS);
    list[(*n)++] = value;
    return 0;
}

int harness_parse_opts(int argc, char **argv, const harness_cli_command *cmd, harness_cli_opts *opts,
                       harness_error *err)
{
    const char *command = cmd->name;
    harness_cli_getopt g;
    harness_cli_getopt_init(&g, cmd);
    memset(opts, 0, sizeof *opts);
    opts->runs = 1;
    int takes_config = strcmp(command, "list") != 0, is_run = strcmp(command, "run") == 0;
    opterr = 0;
    optind = 1;
    int c;
    /* The command's table holds only the options it takes: getopt_long
     * refuses the others. */
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case HARNESS_OPT_SET: rc = add_opt(opts->sets, &opts->n_sets, optarg, "--set", err); break;
        case HARNESS_OPT_PLUGIN_PATH:
            rc = add_opt(opts->plugin_paths, &opts->n_plugin_paths, optarg, "--plugin-path", err);
            break;
        case HARNESS_OPT_OUTPUT_DIR: opts->output_dir = optarg; break;
        case HARNESS_OPT_DEVICE: opts->device = optarg; break;
        case HARNESS_OPT_QUIET: opts->quiet = 1; break;
        case HARNESS_OPT_JSON: opts->json = 1; break;
        case HARNESS_OPT_WIDE: opts->wide = 1; break;
        case HARNESS_OPT_HELP: harness_cli_help(stdout, cmd); return -1;
        case HARNESS_OPT_RUNS: rc = parse_runs(optarg, &opts->runs, err); break;
        case HARNESS_OPT_TIME_BUDGET: rc = parse_time_budget(optarg, opts, err); break;
        case HARNESS_OPT_ALLOW_ABOVE_PEAK: opts->allow_above_peak = 1; break;
        case HARNESS_OPT_COLOR: rc = harness_color_option(optarg, &opts->color, err); break;
        case HARNESS_OPT_FILTER: opts->filter = optarg; break;
        default:
            return harness_cli_bad_option(cmd, argv[optind - 1], optopt, err);
        }
        if (rc)
            return rc;
    }
    int positional = argc - optind;
    if (is_run && positional >= 1) {
        for (int i = optind; i < argc; i++)
            if (add_opt(opts->configs, &opts->n_configs, argv[i], "CONFIG", err) != 0)
                return err->code;
        opts->config_path = opts->configs[0];
    } else if (is_run) {
        return harness_error_set(err, HARNESS_EXIT_USAGE, "run: expected a CONFIG file, a folder of configs or a "
                                 "suite file; see `harness run --help`");
    } else if (takes_config && positional != 1) {
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: expected one CONFIG file, got %d arguments; see "
                                 "`harness %s --help`", command, positional, command);
    }
    if (!takes_config && positional != 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: unexpected argument '%s'", command, argv[optind]);
    if (takes_config)
        opts->config_path = argv[optind];
    return 0;
}

harness_plan_request harness_cli_plan_request(const harness_cli_opts *opts)
{
    return (harness_plan_request){.config_path = opts->config_path, .sets = opts->sets, .n_sets = opts->n_sets,
                                  .plugin_paths = opts->plugin_paths, .n_plugin_paths = opts->n_plugin_paths,
                                  .output_dir = opts->output_dir, .device = opts->device,
                                  .device_may_be_absent = opts->device_may_be_absent,
                                  .time_budget_s = opts->time_budget_s};
}

void harness_warn_broken_plugins(const harness_registry *reg)
{
    for (size_t i = 0; i < reg->n_broken; i++)
        fprintf(stderr, "harness: %swarning: skipped %s: %s\n", harness_error_rank_label(), reg->broken[i].path,
                reg->broken[i].why);
}

int harness_cli_plan(int argc, char **argv, const harness_cli_command *command, harness_cli_opts *opts,
                     harness_plan *p, int *exit_code)
{
    harness_error err = {0};
    int rc = harness_parse_opts(argc, argv, command, opts, &err);
    if (rc != 0) {
        *exit_code = rc < 0 ? 0 : harness_error_report(&err);
        return -1;
    }
    return harness_cli_plan_parsed(opts, command->name, p, exit_code);
}

int harness_cli_plan_parsed(harness_cli_opts *opts, const char *command, harness_plan *p, int *exit_code)
{
    harness_error err = {0};
    /* validate lints configs for machines other than this one (a CPU CI job
     * checking the GPU configs); run needs the device. */
    opts->device_may_be_absent = strcmp(command, "validate") == 0;
    harness_plan_request req = harness_cli_plan_request(opts);
    int rc_plan = harness_plan_point(&req, 0, p, &err);
    if (p->registry_ready)
        harness_warn_broken_plugins(&p->registry);
    if (rc_plan != 0) {
        harness_plan_free(p);
        *exit_code = harness_error_report(&err);
        return -1;
    }
    return 0;
}

void harness_sweep_point_label(const harness_config *cfg, FILE *f)
{
    fprintf(f, "point %zu/%zu:", cfg->sweep_point + 1, cfg->n_sweep_points);
    for (size_t i = 0; i < cfg->n_sweep_keys; i++)
        fprintf(f, " %s=%s", cfg->sweep_keys[i], cfg->sweep_values[i]);
}

