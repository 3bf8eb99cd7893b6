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
    harness_cli_opts opts;
    harness_prepared p;
    int code;
    if (harness_cli_prepare(argc, argv, "validate", usage, &opts, &p, &code) != 0)
        return code;
    if (!opts.quiet)
        fputs(p.resolved_yaml, stdout);
    fprintf(stderr, "harness: %s: valid (%s on %s, config hash %s)\n", opts.config_path, p.entry->variant.key,
            p.device, p.hash8);
    harness_prepared_free(&p);
    return 0;
}
