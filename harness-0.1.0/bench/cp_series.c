/* cp_series.c - read series of numbers, one series per line, from stdin;
 * print the change points harness history would report for each (indices,
 * space-separated). For bench/changepoint_vs_otava.py: built there with
 *   cc -O2 -I. -Iharness bench/cp_series.c harness/compare/changepoint.c -lm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/changepoint.h"

int main(void)
{
    static char line[1 << 20];
    harness_cp_options o = HARNESS_CP_DEFAULTS;
    while (fgets(line, sizeof line, stdin)) {
        double *x = NULL;
        size_t n = 0, cap = 0;
        for (char *tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n")) {
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                x = realloc(x, cap * sizeof *x);
                if (!x)
                    return 3;
            }
            x[n++] = strtod(tok, NULL);
        }
        harness_change_point *cp;
        size_t ncp;
        if (harness_changepoints(x, n, &o, &cp, &ncp) != 0)
            return 3;
        for (size_t i = 0; i < ncp; i++)
            printf("%s%zu", i ? " " : "", cp[i].index);
        putchar('\n');
        free(cp);
        free(x);
    }
    return 0;
}
