/* cp_series.c - read series of numbers, one series per line, from stdin;
 * print the change points harness history would report for each (indices,
 * space-separated). A number may carry its run's noise bound as VALUE/BOUND
 * (a share, as the results database keeps it; history's rule for runs with
 * interference then applies); a bare VALUE has none. For
 * bench/changepoint_vs_otava.py: built there with
 *   cc -O2 -I. -Iharness bench/cp_series.c harness/compare/changepoint.c harness/util/stats.c -lm
 * Options (history's defaults otherwise): --alpha A, --permutations N,
 * --min-change PCT. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/changepoint.h"

/* The options history takes, from argv; -1 on an unknown one. */
static int parse_options(int argc, char **argv, harness_cp_options *o)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--alpha") == 0)
            o->alpha = strtod(argv[i + 1], NULL);
        else if (strcmp(argv[i], "--permutations") == 0)
            o->permutations = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--min-change") == 0)
            o->min_change = strtod(argv[i + 1], NULL) / 100.0;
        else
            return -1;
    }
    return argc % 2 == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
    static char line[1 << 20];
    harness_cp_options o = HARNESS_CP_DEFAULTS;
    if (parse_options(argc, argv, &o) != 0) {
        fputs("usage: cp_series [--alpha A] [--permutations N] [--min-change PCT] <series\n", stderr);
        return 2;
    }
    while (fgets(line, sizeof line, stdin)) {
        double *x = NULL, *bound = NULL;
        size_t n = 0, cap = 0;
        for (char *tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n")) {
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                double *grown = realloc(x, cap * sizeof *x), *grown_b = grown ? realloc(bound, cap * sizeof *bound)
                                                                              : NULL;
                if (!grown || !grown_b)
                    return 3;
                x = grown;
                bound = grown_b;
            }
            char *end;
            x[n] = strtod(tok, &end);
            bound[n++] = *end == '/' ? strtod(end + 1, NULL) : NAN;
        }
        harness_change_point *cp;
        size_t ncp;
        if (harness_changepoints_noisy(x, bound, n, &o, &cp, &ncp, NULL) != 0)
            return 3;
        for (size_t i = 0; i < ncp; i++)
            printf("%s%zu", i ? " " : "", cp[i].index);
        putchar('\n');
        free(cp);
        free(x);
        free(bound);
    }
    return 0;
}
