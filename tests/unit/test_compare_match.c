#define _GNU_SOURCE                /* asprintf, before any system header */
/* test_compare_match.c - compare's run matching (compare.c with
 * run_groups.c, sort-based) gives the pairs that the former pairwise
 * matching gave, kept here as the reference: over many random runs with
 * keys repeated on a side (the newest shown, the rest replicates), keys on
 * one side only, config members in either order, several ranks, failed
 * runs, and in both modes (folders of experiments: by variant, config, rank
 * and world size; two experiment folders: by rank and world size alone). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "compare/compare.h"
#include "compare/compare_internal.h"   /* which run is newer, the report's order */

static const harness_compare_options options = {HARNESS_COMPARE_DEFAULT_THRESHOLD, HARNESS_COMPARE_DEFAULT_ALPHA,
                                                 HARNESS_ON_AMBIGUOUS_PASS, HARNESS_METRIC_MEDIAN};

static uint64_t rng;

static unsigned pick(unsigned n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng >> 33) % n;
}

/* One random run on `side`: keys drawn from a small space, so that many
 * repeat on a side and many appear on one side only. */
static void add_random_run(harness_compare_side *side, const char *label, size_t i, unsigned keys)
{
    static const char *const variants[] = {"a/cpu", "b/cpu", "c/cuda"};
    unsigned k = pick(keys), world = 1 + pick(2);
    int rank = (int)pick(world);
    const char *variant = variants[pick(3)];
    const char *dtype = pick(2) ? "fp32" : "bf16";
    char config[128], path[256], text[1024];
    if (pick(2))
        snprintf(config, sizeof config, "{\"n\": %u, \"dtype\": \"%s\", \"eps\": 1e-06}", k, dtype);
    else
        snprintf(config, sizeof config, "{\"eps\": 1e-06, \"dtype\": \"%s\", \"n\": %u}", dtype, k);
    /* Folder names that natural order must sort: "-2" and "-10" suffixes. */
    static const char *const suffixes[] = {"", "-2", "-10"};
    snprintf(path, sizeof path, "%s/2026-01-%02u__00-00-%02u_%08x%s/summary_ranks_%u_rank_%d.json", label,
             1 + pick(28), pick(60), (unsigned)i, suffixes[pick(3)], world, rank);
    const char *status = pick(20) ? "ok" : "failed";
    double center = 100.0 + pick(50);
    snprintf(text, sizeof text,
             "{\"schema\": \"harness.summary/1\", \"status\": \"%s\", \"rank\": %d, \"world_size\": %u, "
             "\"component\": {\"variant_key\": \"%s\", \"config\": %s}, \"timing\": {\"samples\": [%g, %g, %g], "
             "\"windows\": [{\"n\": 1, \"median\": %g}, {\"n\": 1, \"median\": %g}]}}",
             status, rank, world, variant, config, center, center + 1, center + 2, center, center + 1);
    harness_run_summary r;
    harness_error err = {0};
    if (harness_run_summary_parse(path, text, strlen(text), &r, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(harness_compare_side_add(side, &r, &err), 0);
}

/* ---- the reference: the pairwise matching compare had before ----------------- */

static int same_key(const harness_run_summary *a, const harness_run_summary *b, int by_rank)
{
    if (a->rank != b->rank || a->world_size != b->world_size)
        return 0;
    return by_rank || (strcmp(a->variant_key, b->variant_key) == 0 && cJSON_Compare(a->config, b->config, 1));
}

static size_t ref_newest(const harness_compare_side *s, const harness_run_summary **out, size_t *notes)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_runs; i++) {
        size_t same = 0, newer_ones = 0;
        for (size_t j = 0; j < s->n_runs; j++) {
            if (!same_key(&s->runs[i], &s->runs[j], 0))
                continue;
            same++;
            newer_ones += j != i && harness_cmp_newer(&s->runs[j], &s->runs[i]);
        }
        if (!newer_ones) {
            out[n++] = &s->runs[i];
            *notes += same > 1;
        }
    }
    qsort(out, n, sizeof *out, harness_cmp_run_order);
    return n;
}

/* The replicates the side holds for run r: its key's usable runs when two or more. */
static size_t ref_replicates(const harness_compare_side *s, const harness_run_summary *r, int by_rank)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_runs; i++)
        n += same_key(r, &s->runs[i], by_rank) && strcmp(s->runs[i].status, "ok") == 0;
    return n >= 2 ? n : r->n_windows;
}

/* ---- the check ------------------------------------------------------------------- */

static size_t count_prefixed(const harness_comparison *c, const char *prefix)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_notes; i++)
        n += strncmp(c->notes[i], prefix, strlen(prefix)) == 0 && strstr(c->notes[i], " runs of ");
    return n;
}

static void check(size_t n_base, size_t n_cand, unsigned keys, int is_parent, uint64_t seed)
{
    rng = seed;
    harness_compare_side base = {.is_parent = is_parent}, cand = {.is_parent = is_parent};
    for (size_t i = 0; i < n_base; i++)
        add_random_run(&base, "base", i, keys);
    for (size_t i = 0; i < n_cand; i++)
        add_random_run(&cand, "cand", i, keys);
    int by_rank = !is_parent;

    /* The reference reads the sides before compare_sides takes them. */
    const harness_run_summary **rb = malloc(n_base * sizeof *rb), **rc = malloc(n_cand * sizeof *rc);
    char *taken = calloc(n_cand, 1);
    assert_true(rb && rc && taken);
    size_t base_notes = 0, cand_notes = 0;
    size_t nb = ref_newest(&base, rb, &base_notes), nc = ref_newest(&cand, rc, &cand_notes);
    char **want_pairs = calloc(nb, sizeof *want_pairs);
    size_t *want_nb = calloc(nb, sizeof *want_nb), *want_nc = calloc(nb, sizeof *want_nc);
    size_t n_want = 0, unmatched_base = 0;
    for (size_t i = 0; i < nb; i++) {
        size_t j = 0;
        while (j < nc && (taken[j] || !same_key(rb[i], rc[j], by_rank)))
            j++;
        if (j == nc) {
            unmatched_base++;
            continue;
        }
        taken[j] = 1;
        assert_true(asprintf(&want_pairs[n_want], "%s %s", rb[i]->path, rc[j]->path) > 0);
        want_nb[n_want] = ref_replicates(&base, rb[i], by_rank);
        want_nc[n_want] = ref_replicates(&cand, rc[j], by_rank);
        n_want++;
    }

    harness_comparison c;
    harness_error err = {0};
    assert_int_equal(harness_compare_sides(&base, &cand, &options, &c, &err), 0);
    assert_int_equal(c.n_pairs, n_want);
    for (size_t i = 0; i < c.n_pairs; i++) {
        char *got;
        assert_true(asprintf(&got, "%s %s", c.pairs[i].base->path, c.pairs[i].cand->path) > 0);
        assert_string_equal(got, want_pairs[i]);
        if (c.pairs[i].s.verdict != HARNESS_VERDICT_FAILED) {
            assert_int_equal(c.pairs[i].s.n_base, want_nb[i]);
            assert_int_equal(c.pairs[i].s.n_cand, want_nc[i]);
        }
        free(got);
        free(want_pairs[i]);
    }
    assert_int_equal(c.n_unmatched_base, unmatched_base);
    assert_int_equal(c.n_unmatched_cand, nc - n_want);
    assert_int_equal(count_prefixed(&c, "base: "), base_notes);
    assert_int_equal(count_prefixed(&c, "cand: "), cand_notes);
    /* The cases were chosen to hold all three kinds. */
    assert_true(n_want > 0 && (c.n_unmatched_base > 0 || c.n_unmatched_cand > 0));
    assert_true(!is_parent || base_notes > 0);
    harness_comparison_free(&c);
    free(want_pairs);
    free(want_nb);
    free(want_nc);
    free(taken);
    free(rb);
    free(rc);
}

static void test_folders_of_experiments(void **state)
{
    (void)state;
    check(900, 800, 300, 1, 1);
    check(400, 600, 1000, 1, 2);
}

static void test_two_experiment_folders(void **state)
{
    (void)state;
    check(7, 3, 4, 0, 3);
    check(40, 25, 10, 0, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_folders_of_experiments),
        cmocka_unit_test(test_two_experiment_folders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
