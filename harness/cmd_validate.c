/* harness validate CONFIG: every check `run` makes before it starts, and nothing else. */
#include <stdio.h>

#include "commands.h"

static void usage(FILE *f)
{
    fputs("usage: harness validate CONFIG [--set KEY=VALUE]... [--device auto|cpu|cuda] [--plugin-path DIR]...\n"
          "\n"
          "Check CONFIG against the schema and its variant's parameters without running\n"
          "anything; print the resolved config (defaults filled, overrides applied).\n"
          "exit: 0 valid, 2 usage or config error, 3 plugin failure\n",
          f);
}

int harness_cmd_validate(int argc, char **argv)
{
    harness_error err = {0};
    harness_cli_opts opts;
    int rc = harness_parse_opts(argc, argv, "validate", usage, &opts, &err);
    if (rc < 0)
        return 0;
    if (rc > 0)
        return harness_error_report(&err);
    harness_prepared p;
    if (harness_prepare(&opts, &p, &err) != 0) {
        harness_prepared_free(&p);
        return harness_error_report(&err);
    }
    if (!opts.quiet)
        fputs(p.resolved_yaml, stdout);
    fprintf(stderr, "harness: %s: valid (%s on %s, config hash %s)\n", opts.config_path, p.entry->variant.key,
            p.device, p.hash8);
    harness_prepared_free(&p);
    return 0;
}
