/* harness validate CONFIG: every check `run` makes before it starts, and nothing else. */
#include <stdio.h>

#include "cli/commands.h"

static const char *const synopsis[] = {"CONFIG [options]", NULL};

static const harness_cli_option options[] = {
    {"set", 's', 0, "KEY=VALUE", "override a config key, as for run (repeatable)"},
    {"device", 'd', 0, "D", "auto, cpu or cuda (device)"},
    {"plugin-path", 'P', 0, "DIR", "look for plugins in DIR first (repeatable)"},
    {"output-dir", 'o', 0, "DIR", "experiment.output_dir, as for run (it is part of the resolved config)"},
    {"quiet", 'q', 0, NULL, "do not print the resolved config; only the verdict on stderr"},
    HARNESS_CLI_HELP_OPTION,
};

static const harness_cli_command validate_command = {
    .name = "validate",
    .synopsis = synopsis,
    .about = "Check CONFIG against the schema and its variant's parameters without running\n"
             "anything; print the resolved config (defaults filled, overrides applied).\n"
             "With a sweep: check every point; print each point's resolved config\n"
             "(separated by ---) and, on stderr, each point's values and config hash.\n"
             "On a machine without the config's GPU it checks everything but the device\n"
             "and says so (exit 0): CPU-only CI can lint the CUDA configs.\n",
    .options = options,
    .n_options = HARNESS_CLI_N(options),
    .exit_codes = "0 valid, 2 usage or config error, 3 plugin failure\n",
};

/* Every point planned in turn: its resolved config on stdout, its hash on stderr. */
static int validate_sweep(const harness_cli_opts *opts, harness_plan *first)
{
    harness_plan_request req = harness_cli_plan_request(opts);
    size_t n = first->cfg->n_sweep_points;
    harness_error err = {0};
    int code = 0;
    for (size_t i = 0; i < n && !code; i++) {
        harness_plan q, *cur = first;
        if (i > 0) {
            code = harness_plan_point(&req, i, &q, &err);
            if (code) {
                harness_plan_free(&q);
                code = harness_error_report(&err);
                break;
            }
            cur = &q;
        }
        if (!opts->quiet)
            printf("%s%s", i ? "---\n" : "", cur->out.resolved_yaml);
        fputs("harness: ", stderr);
        harness_sweep_point_label(cur->cfg, stderr);
        fprintf(stderr, " (%s on %s, config hash %s)\n", cur->entry->variant.key, cur->device, cur->out.hash8);
        if (i > 0)
            harness_plan_free(&q);
    }
    if (!code)
        fprintf(stderr, "harness: %s: valid, %zu points\n", opts->config_path, n);
    harness_plan_free(first);
    return code;
}

int harness_cmd_validate(int argc, char **argv)
{
    harness_cli_opts opts;
    harness_plan p;
    int code;
    if (harness_cli_plan(argc, argv, &validate_command, &opts, &p, &code) != 0)
        return code;
    if (p.device_unchecked[0])
        fprintf(stderr, "harness: warning: everything but the device itself was checked here: %s\n",
                p.device_unchecked);
    if (p.cfg->n_sweep_keys > 0)
        return validate_sweep(&opts, &p);
    if (!opts.quiet)
        fputs(p.out.resolved_yaml, stdout);
    fprintf(stderr, "harness: %s: valid (%s on %s, config hash %s)\n", opts.config_path, p.entry->variant.key,
            p.device, p.out.hash8);
    harness_plan_free(&p);
    return 0;
}
