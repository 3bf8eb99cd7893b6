/* compare_common.c - the two helpers every side of compare/ shares (declared
 * in compare_internal.h): kept out of compare.c and compare_load.c, which
 * each need the other's, so that no two files of compare/ call each other
 * (scripts/arch_figures, "use circles"). */
#include "compare/compare_internal.h"

#include <ctype.h>
#include <string.h>

/* For every allocation failure of compare/: err says so, exit code 3. */
int harness_cmp_oom(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
}

/* strcmp, except that runs of digits compare as numbers: "x-10" > "x-2". */
int harness_cmp_natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            size_t la = 0, lb = 0;
            while (isdigit((unsigned char)a[la]))
                la++;
            while (isdigit((unsigned char)b[lb]))
                lb++;
            if (la != lb)
                return la < lb ? -1 : 1;
            int c = strncmp(a, b, la);
            if (c)
                return c;
            a += la;
            b += lb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return (*a != 0) - (*b != 0);
}
