/* The host side of what ABI 2.3 adds (harness/include/harness/plugin.h),
 * against the fixture plugins of tests/fixtures/abi2_3;
 * tests/integration/plugin_abi_2_3.sh runs them through the binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/notes.h"
#include "plugin/registry.h"
#include "plugin/variant_cost.h"
#include "run/instance.h"
#include "run/services.h"

#define FIXTURE(name) HARNESS_BUILD_DIR "/tests/fixtures/abi2_3/" name

static void assert_contains(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        fail_msg("expected \"%s\" in \"%s\"", needle, haystack);
}

static void test_host_is_2_3_with_note(void **state)
{
    (void)state;
    harness_services svc = *harness_host_services();
    assert_int_equal(svc.abi_minor, HARNESS_ABI_MINOR);
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

/* The lines the unload fixture wrote into `log`, which is then removed. */
static int unload_calls(const char *log)
{
    FILE *f = fopen(log, "r");
    int lines = 0;
    for (int c; f && (c = fgetc(f)) != EOF;)
        lines += c == '\n';
    if (f)
        fclose(f);
    unlink(log);
    return lines;
}

static void test_unload_is_called_once_when_the_registry_is_freed(void **state)
{
    (void)state;
    char log[] = "/tmp/harness-unload-XXXXXX";
    int fd = mkstemp(log);
    assert_true(fd >= 0);
    close(fd);
    setenv("HARNESS_TEST_UNLOAD_LOG", log, 1);
    harness_registry reg;
    harness_error err = {0};
    assert_int_equal(harness_registry_init(&reg, harness_host_services(), &err), 0);
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("unload.la"), &err), 0);
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("notes.la"), &err), 0); /* asked for none */
    assert_non_null(reg.plugins[0].unload);
    assert_null(reg.plugins[1].unload);
    assert_int_equal(unload_calls(log), 0);  /* not while loaded */
    harness_registry_free(&reg);
    assert_int_equal(unload_calls(log), 1);

    /* An init that fails after asking is still unloaded through the callback. */
    setenv("HARNESS_TEST_UNLOAD_FAIL_INIT", "1", 1);
    assert_int_equal(harness_registry_init(&reg, harness_host_services(), &err), 0);
    assert_int_not_equal(harness_registry_load_file(&reg, FIXTURE("unload.la"), &err), 0);
    assert_contains(err.msg, "unload: failing init as asked");
    harness_registry_free(&reg);
    assert_int_equal(unload_calls(log), 1);
    unsetenv("HARNESS_TEST_UNLOAD_FAIL_INIT");
    unsetenv("HARNESS_TEST_UNLOAD_LOG");
}

static void test_set_unload_only_in_init(void **state)
{
    (void)state;
    harness_instance in;
    harness_instance_init(&in, NULL, NULL, NULL, NULL);
    harness_host_services()->set_unload(&in.ctx, NULL);
    assert_true(in.ctx.failed);
    assert_string_equal(in.ctx.message, "set_unload called outside plugin init");
}

static int no_create(harness_ctx *c, void **s) { (void)c; *s = NULL; return 0; }
static int no_step(harness_ctx *c, void *s) { (void)c; (void)s; return 0; }
static void no_destroy(harness_ctx *c, void *s) { (void)c; (void)s; }
static void old_cost(void *s, harness_cost *o) { (void)s; o->bytes = 22; }
static int new_cost(harness_ctx *c, void *s, harness_cost *o) { (void)c; (void)s; o->bytes = 23; return 0; }
static int silent_failing_cost(harness_ctx *c, void *s, harness_cost *o) { (void)c; (void)s; (void)o; return 1; }

static void test_a_variant_sets_one_form_of_cost(void **state)
{
    (void)state;
    harness_registry reg;
    harness_error err = {0};
    assert_int_equal(harness_registry_init(&reg, harness_host_services(), &err), 0);
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("notes.la"), &err), 0);
    harness_variant v = {.size = sizeof v, .key = "c/cpu", .family = "c", .device = "cpu", .create = no_create,
                         .step = no_step, .destroy = no_destroy};
    assert_int_not_equal(harness_registry_add(&reg, 0, &v, &err), 0);
    assert_contains(err.msg, "one of cost and step_cost are required");
    v.cost = old_cost;
    v.step_cost = new_cost;
    assert_int_not_equal(harness_registry_add(&reg, 0, &v, &err), 0);
    assert_contains(err.msg, "it sets both cost and step_cost");
    v.cost = NULL;
    assert_int_equal(harness_registry_add(&reg, 0, &v, &err), 0);
    harness_registry_free(&reg);
}

/* A 2.2 plugin's struct ends before step_cost: the host calls its cost. */
static void test_a_2_2_plugin_keeps_its_cost(void **state)
{
    (void)state;
    harness_registry reg;
    harness_error err = {0};
    assert_int_equal(harness_registry_init(&reg, harness_host_services(), &err), 0);
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("abi2_2.la"), &err), 0);
    const harness_variant_entry *e = harness_registry_resolve(&reg, "abi2_2/cpu", "cpu", &err);
    assert_non_null(e);
    assert_int_equal(reg.plugins[0].abi_minor, 2);
    assert_null(e->variant.step_cost);  /* past its struct: zero, not its garbage */
    harness_instance in;
    harness_instance_init(&in, &e->variant, NULL, NULL, NULL);
    harness_cost cost = {.size = sizeof cost};
    assert_int_equal(harness_variant_cost(&e->variant, &in.ctx, NULL, &cost), 0);
    assert_true(cost.bytes == 2022);
    harness_registry_free(&reg);
}

static void test_variant_cost_calls_the_form_given(void **state)
{
    (void)state;
    harness_instance in;
    harness_instance_init(&in, NULL, NULL, NULL, NULL);
    harness_cost cost = {.size = sizeof cost};
    harness_variant v = {.size = sizeof v, .cost = old_cost};
    assert_int_equal(harness_variant_cost(&v, &in.ctx, NULL, &cost), 0);
    assert_true(cost.bytes == 22);
    v = (harness_variant){.size = sizeof v, .step_cost = new_cost};
    assert_int_equal(harness_variant_cost(&v, &in.ctx, NULL, &cost), 0);
    assert_true(cost.bytes == 23);
    v.step_cost = silent_failing_cost;
    assert_int_equal(harness_variant_cost(&v, &in.ctx, NULL, &cost), -1);
    assert_string_equal(in.ctx.message, "step_cost returned an error without a message");
}

/* Each helper gives the struct its nine fields spelled out would. */
static void test_param_helpers_fill_the_fields_by_name(void **state)
{
    (void)state;
    static const char *const choices[] = {"a", "b", NULL};
    const harness_param got[] = {
        HARNESS_INT_PARAM("i", "1", "h0"),
        HARNESS_INT_PARAM_MIN("imin", "2", -3, "h1"),
        HARNESS_INT_PARAM_RANGE("irange", "3", 1, 9, "h2"),
        HARNESS_FLOAT_PARAM("f", "0.5", "h3"),
        HARNESS_FLOAT_PARAM_MIN("fmin", "1e-6", 1e-9, "h4"),
        HARNESS_FLOAT_PARAM_RANGE("frange", "1", 0.5, 2.5, "h5"),
        HARNESS_BOOL_PARAM("b", "true", "h6"),
        HARNESS_STRING_PARAM("s", NULL, "h7"),
        HARNESS_ENUM_PARAM("e", "b", choices, "h8"),
    };
    const harness_param want[] = {
        {sizeof(harness_param), "i", HARNESS_PARAM_INT, "1", 0, 0, 0, NULL, "h0"},
        {sizeof(harness_param), "imin", HARNESS_PARAM_INT, "2", HARNESS_PARAM_MIN, -3, 0, NULL, "h1"},
        {sizeof(harness_param), "irange", HARNESS_PARAM_INT, "3", HARNESS_PARAM_MIN | HARNESS_PARAM_MAX, 1, 9, NULL, "h2"},
        {sizeof(harness_param), "f", HARNESS_PARAM_FLOAT, "0.5", 0, 0, 0, NULL, "h3"},
        {sizeof(harness_param), "fmin", HARNESS_PARAM_FLOAT, "1e-6", HARNESS_PARAM_MIN, 1e-9, 0, NULL, "h4"},
        {sizeof(harness_param), "frange", HARNESS_PARAM_FLOAT, "1", HARNESS_PARAM_MIN | HARNESS_PARAM_MAX, 0.5, 2.5,
         NULL, "h5"},
        {sizeof(harness_param), "b", HARNESS_PARAM_BOOL, "true", 0, 0, 0, NULL, "h6"},
        {sizeof(harness_param), "s", HARNESS_PARAM_STRING, NULL, 0, 0, 0, NULL, "h7"},
        {sizeof(harness_param), "e", HARNESS_PARAM_ENUM, "b", 0, 0, 0, choices, "h8"},
    };
    assert_int_equal(sizeof got, sizeof want);
    for (size_t i = 0; i < sizeof got / sizeof got[0]; i++) {
        assert_int_equal(got[i].size, want[i].size);
        assert_string_equal(got[i].name, want[i].name);
        assert_int_equal(got[i].type, want[i].type);
        if (want[i].default_value)
            assert_string_equal(got[i].default_value, want[i].default_value);
        else
            assert_null(got[i].default_value);
        assert_int_equal(got[i].bounds, want[i].bounds);
        assert_true(got[i].min == want[i].min && got[i].max == want[i].max);
        assert_ptr_equal(got[i].choices, want[i].choices);
        assert_string_equal(got[i].help, want[i].help);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_is_2_3_with_note),
        cmocka_unit_test(test_a_key_noted_again_keeps_its_place),
        cmocka_unit_test(test_bad_notes_are_refused_with_why),
        cmocka_unit_test(test_note_in_an_instance_and_not_in_init),
        cmocka_unit_test(test_unload_is_called_once_when_the_registry_is_freed),
        cmocka_unit_test(test_set_unload_only_in_init),
        cmocka_unit_test(test_a_variant_sets_one_form_of_cost),
        cmocka_unit_test(test_a_2_2_plugin_keeps_its_cost),
        cmocka_unit_test(test_variant_cost_calls_the_form_given),
        cmocka_unit_test(test_param_helpers_fill_the_fields_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
