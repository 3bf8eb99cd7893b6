#include "util/suggest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Edit distance with insert, delete and substitute all costing 1, keeping
 * only two rows of the DP table. Returns SIZE_MAX when out of memory. Case
 * is ignored: CPU or RMS_norm is meant as cpu or rms_norm, yet is 3 edits
 * away, past the limit. */
static size_t levenshtein(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *prev = malloc((lb + 1) * sizeof *prev);
    size_t *cur = malloc((lb + 1) * sizeof *cur);
    size_t d = (size_t)-1;

    if (prev && cur) {
        for (size_t j = 0; j <= lb; j++)
            prev[j] = j;
        for (size_t i = 1; i <= la; i++) {
            cur[0] = i;
            for (size_t j = 1; j <= lb; j++) {
                size_t sub = prev[j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
                size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
                size_t best = sub < del ? sub : del;
                cur[j] = best < ins ? best : ins;
            }
            size_t *t = prev;
            prev = cur;
            cur = t;
        }
        d = prev[lb];
    }
    free(prev);
    free(cur);
    return d;
}

const char *harness_suggest(const char *word, const char *const *candidates, size_t n)
{
    size_t limit = strlen(word) / 3;
    const char *best = NULL;
    size_t best_d = (size_t)-1;

    if (limit < 2)
        limit = 2;
    for (size_t i = 0; i < n; i++) {
        size_t d = levenshtein(word, candidates[i]);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best_d <= limit ? best : NULL;
}
