/* suggest.h - "did you mean" for unknown keys, parameters and enum values. */
#ifndef HARNESS_SUGGEST_H
#define HARNESS_SUGGEST_H

#include <stddef.h>

/* The candidate closest to `word` by Levenshtein distance, ignoring case
 * (the first one on a tie), or NULL when even that one is more than
 * max(2, strlen(word) / 3) edits away: past that the guess is more
 * confusing than helpful. */
const char *harness_suggest(const char *word, const char *const *candidates, size_t n);

#endif
