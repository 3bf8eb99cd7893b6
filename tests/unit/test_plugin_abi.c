/* The host side of what ABI 2.3 adds (harness/include/harness/plugin.h),
 * against the fixture plugins of tests/fixtures/abi2_3;
 * tests/integration/plugin_abi_2_3.sh runs them through the binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "plugin/notes.h"
#include "plugin/registry.h"
#include "run/instance.h"

static void test_host_is_2_3_with_note(void **state)
{
    (void)state;
    harness_services svc = *harness_host_services();
    assert_int_equal(svc.abi_minor, 3);
    assert_true(HARNESS_HAS_SERVICE(&svc, note));
    svc.size = offsetof(harness_services, note); /* a 2.2 host */
    assert_false(HARNESS_HAS_SERVICE(&svc, note));
    assert_true(HARNESS_HAS_SERVICE(&svc, barrier));
}

static void test_a_key_noted_again_keeps_its_place(void **state)
{
    (void)state;
    harness_notes notes = {0};
    char why[256];
    assert_int_equal(harness_notes_set(&notes, "isa", "portable", why, sizeof why), 0);
    assert_int_equal(harness_notes_set(&notes, "tile", "64x64", why, sizeof why), 0);
    assert_int_equal(harness_notes_set(&notes, "isa", "avx512_bf16", why, sizeof why), 0);
    assert_int_equal(notes.n, 2);
    assert_string_equal(notes.note[0].key, "isa");
    assert_string_equal(notes.note[0].value, "avx512_bf16");
    assert_string_equal(notes.note[1].value, "64x64");
}

static void test_bad_notes_are_refused_with_why(void **state)
{
    (void)state;
    harness_notes notes = {0};
    char why[256], long_value[HARNESS_NOTE_VALUE_MAX + 1];
    assert_int_equal(harness_notes_set(&notes, "", "x", why, sizeof why), -1);
    assert_string_equal(why, "note needs a non-empty key");
    assert_int_equal(harness_notes_set(&notes, "isa", NULL, why, sizeof why), -1);
    memset(long_value, 'v', sizeof long_value - 1);
    long_value[sizeof long_value - 1] = '\0';
    assert_int_equal(harness_notes_set(&notes, "isa", long_value, why, sizeof why), -1);
    assert_non_null(strstr(why, "too long"));
    /* The longest value that fits is kept whole. */
    long_value[HARNESS_NOTE_VALUE_MAX - 1] = '\0';
    assert_int_equal(harness_notes_set(&notes, "isa", long_value, why, sizeof why), 0);
    assert_int_equal(strlen(notes.note[0].value), HARNESS_NOTE_VALUE_MAX - 1);
    for (int i = 1; i < HARNESS_NOTES_MAX; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        assert_int_equal(harness_notes_set(&notes, key, "x", why, sizeof why), 0);
    }
    assert_int_equal(harness_notes_set(&notes, "one_more", "x", why, sizeof why), -1);
    assert_string_equal(why, "note 'one_more': more than 16 keys");
    assert_int_equal(harness_notes_set(&notes, "k3", "replaced", why, sizeof why), 0); /* a known key still fits */
}

static void test_note_in_an_instance_and_not_in_init(void **state)
{
    (void)state;
    const harness_services *svc = harness_host_services();
    harness_instance in;
    harness_instance_init(&in, NULL, NULL, NULL, NULL);
    svc->note(&in.ctx, "isa", "avx2");
    assert_false(in.ctx.failed);
    assert_int_equal(in.ctx.notes.n, 1);
    svc->note(&in.ctx, NULL, "x");
    assert_true(in.ctx.failed);
    assert_string_equal(in.ctx.message, "note needs a non-empty key");

    harness_ctx init = {.kind = HARNESS_CTX_REGISTRATION};
    svc->note(&init, "isa", "avx2");
    assert_true(init.failed);
    assert_string_equal(init.message, "note called outside a component instance");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_is_2_3_with_note),
        cmocka_unit_test(test_a_key_noted_again_keeps_its_place),
        cmocka_unit_test(test_bad_notes_are_refused_with_why),
        cmocka_unit_test(test_note_in_an_instance_and_not_in_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
