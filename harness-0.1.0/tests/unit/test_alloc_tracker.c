/* Tracked allocations: totals, peak, the live set at the peak, bad frees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/alloc_tracker.h"

static void test_current_and_peak(void **state)
{
    (void)state;
    harness_alloc_tracker t;
    harness_alloc_tracker_init(&t, harness_host_allocator());
    void *a = harness_tracked_alloc(&t, 1000, "x", "test");
    void *b = harness_tracked_alloc(&t, 3000, "weight", "test");
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal((uintptr_t)a % 64, 0);
    assert_int_equal((uintptr_t)b % 64, 0);
    assert_int_equal(t.current_bytes, 4000);
    assert_int_equal(t.peak_bytes, 4000);
    assert_int_equal(harness_tracked_free(&t, a), 0);
    assert_int_equal(t.current_bytes, 3000);
    void *c = harness_tracked_alloc(&t, 500, "y", "test");
    assert_int_equal(t.peak_bytes, 4000); /* 3500 < 4000 */
    assert_int_equal(t.n_at_peak, 2);     /* the snapshot is of x and weight */
    size_t total = 0;
    for (size_t i = 0; i < t.n_at_peak; i++)
        total += t.at_peak[i].bytes;
    assert_int_equal(total, 4000);
    assert_int_equal(harness_tracked_free(&t, c), 0);
    assert_int_equal(harness_tracked_free(&t, b), 0);
    assert_int_equal(t.current_bytes, 0);
    assert_int_equal(t.n_allocs, 3);
    assert_int_equal(t.n_frees, 3);
    harness_alloc_tracker_destroy(&t);
}

static void test_foreign_free_is_refused(void **state)
{
    (void)state;
    harness_alloc_tracker t;
    harness_alloc_tracker_init(&t, harness_host_allocator());
    int local;
    assert_int_equal(harness_tracked_free(&t, &local), -1);
    assert_int_equal(harness_tracked_free(&t, NULL), 0);
    harness_alloc_tracker_destroy(&t);
}

static void test_release_all_frees_leftovers(void **state)
{
    (void)state;
    harness_alloc_tracker t;
    harness_alloc_tracker_init(&t, harness_host_allocator());
    for (int i = 0; i < 40; i++) /* past the initial capacity */
        assert_non_null(harness_tracked_alloc(&t, (size_t)i + 1, "leftover", "test"));
    assert_int_equal(harness_alloc_tracker_release_all(&t), 40);
    assert_int_equal(t.current_bytes, 0);
    assert_int_equal(t.peak_bytes, 40 * 41 / 2);
    harness_alloc_tracker_destroy(&t);
}

static void test_zero_bytes_is_a_valid_block(void **state)
{
    (void)state;
    harness_alloc_tracker t;
    harness_alloc_tracker_init(&t, harness_host_allocator());
    void *p = harness_tracked_alloc(&t, 0, NULL, NULL);
    assert_non_null(p);
    assert_string_equal(t.live[0].tag, "untagged");
    assert_int_equal(harness_tracked_free(&t, p), 0);
    harness_alloc_tracker_destroy(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_current_and_peak),
        cmocka_unit_test(test_foreign_free_is_refused),
        cmocka_unit_test(test_release_all_frees_leftovers),
        cmocka_unit_test(test_zero_bytes_is_a_valid_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
