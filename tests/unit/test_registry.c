/* The loader against fixture plugins: each one is wrong in one way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/registry.h"
#include "run/services.h"

#define FIXTURE(name) HARNESS_BUILD_DIR "/tests/fixtures/" name

static harness_registry reg;

static int setup(void **state)
{
    (void)state;
    harness_error err = {0};
    return harness_registry_init(&reg, harness_host_services(), &err);
}

static int teardown(void **state)
{
    (void)state;
    harness_registry_free(&reg);
    return 0;
}

static void assert_contains(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        fail_msg("expected \"%s\" in \"%s\"", needle, haystack);
}

static void test_good_plugin_registers_its_variant(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("good.la"), &err), 0);
    assert_int_equal(reg.n_plugins, 1);
    assert_int_equal(reg.n_variants, 1);
    assert_string_equal(reg.variants[0].variant.key, "fixture/cpu");
    assert_string_equal(reg.plugins[0].name, "good");
}

static void test_family_resolves_by_device(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("good.la"), &err), 0);
    const harness_variant_entry *e = harness_registry_resolve(&reg, "fixture", "cpu", &err);
    assert_non_null(e);
    assert_string_equal(e->variant.key, "fixture/cpu");
    assert_non_null(harness_registry_resolve(&reg, "fixture/cpu", "cuda", &err)); /* exact keys win */
    assert_null(harness_registry_resolve(&reg, "fixture", "cuda", &err));
    assert_int_equal(err.code, HARNESS_EXIT_USAGE);
    assert_contains(err.msg, "fixture has no variant for device cuda (available: fixture/cpu)");
}

static void test_unknown_key_suggests_and_lists_search_path(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_dir(&reg, HARNESS_BUILD_DIR "/tests/fixtures/nowhere", 0, &err), 0);
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("good.la"), &err), 0);
    assert_null(harness_registry_resolve(&reg, "fixtrue", "cpu", &err));
    assert_int_equal(err.code, HARNESS_EXIT_USAGE);
    assert_contains(err.msg, "unknown variant 'fixtrue'");
    assert_contains(err.msg, "did you mean fixture?");
    assert_contains(err.msg, "tests/fixtures/nowhere");
    /* Case is no edit: FIXTURE/CPU is fixture/cpu mistyped. */
    assert_null(harness_registry_resolve(&reg, "FIXTURE/CPU", "cpu", &err));
    assert_contains(err.msg, "unknown variant 'FIXTURE/CPU'; did you mean fixture/cpu? (searched for plugins in: ");
    /* With nothing to suggest, the search path follows the name directly. */
    assert_null(harness_registry_resolve(&reg, "zzzzzz", "cpu", &err));
    assert_int_equal(err.code, HARNESS_EXIT_USAGE);
    assert_contains(err.msg, "unknown variant 'zzzzzz' (searched for plugins in: ");
    assert_null(strstr(err.msg, "did you mean"));
    assert_null(strstr(err.msg, "; ("));
}

static void test_wrong_abi_names_both_versions(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("bad_abi.la"), &err), HARNESS_EXIT_RUNTIME);
    assert_contains(err.msg, "bad_abi");
    assert_contains(err.msg, "built for plugin ABI 3.0");
    assert_contains(err.msg, "this harness provides ABI 2.5");
    assert_int_equal(reg.n_plugins, 0);
}

/* An ABI 1 declaration has no size; it must still be read as 1.x. */
static void test_abi1_plugin_is_refused_naming_both_versions(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("abi1.la"), &err), HARNESS_EXIT_RUNTIME);
    assert_contains(err.msg, "abi1");
    assert_contains(err.msg, "built for plugin ABI 1.1");
    assert_contains(err.msg, "this harness provides ABI 2.5");
    assert_int_equal(reg.n_plugins, 0);
}

static void test_newer_minor_with_zero_tail_loads(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("new_minor.la"), &err), 0);
    const harness_variant_entry *e = harness_registry_resolve(&reg, "new_minor/cpu", "cpu", &err);
    assert_non_null(e);
    assert_int_equal(e->variant.size, sizeof(harness_variant));
    assert_int_equal(e->variant.n_params, 2);
    /* read through the plugin's larger stride, into host-sized copies */
    assert_string_equal(e->variant.params[1].name, "second");
    assert_string_equal(e->variant.params[1].default_value, "2");
    assert_int_equal(e->variant.params[1].size, sizeof(harness_param));
}

static void test_newer_minor_setting_unknown_field_is_refused(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("new_field.la"), &err), HARNESS_EXIT_RUNTIME);
    char want[128];
    snprintf(want, sizeof want, "built for ABI 2.%d sets fields this host (ABI 2.%d) does not know",
             HARNESS_ABI_MINOR + 3, HARNESS_ABI_MINOR);
    assert_contains(err.msg, want);
    assert_contains(err.msg, "new_field");
    assert_int_equal(reg.n_variants, 0);
}

static void link_fixture(const char *dir, const char *name)
{
    char from[4096], to[4096];
    snprintf(from, sizeof from, HARNESS_BUILD_DIR "/tests/fixtures/.libs/%s.so", name);
    snprintf(to, sizeof to, "%s/%s.so", dir, name);
    assert_int_equal(symlink(from, to), 0);
}

/* One bad file in a directory is skipped and remembered, not fatal. */
static void test_dir_skips_broken_plugins(void **state)
{
    (void)state;
    char dir[] = "/tmp/harness-registry.XXXXXX";
    assert_non_null(mkdtemp(dir));
    link_fixture(dir, "good");
    link_fixture(dir, "bad_abi");
    link_fixture(dir, "no_entry");
    harness_error err = {0};
    assert_int_equal(harness_registry_load_dir(&reg, dir, 1, &err), 0);
    assert_non_null(harness_registry_resolve(&reg, "fixture/cpu", "cpu", &err));
    assert_int_equal(reg.n_broken, 2);
    assert_null(harness_registry_resolve(&reg, "bad_abi", "cpu", &err));
    assert_int_equal(err.code, HARNESS_EXIT_RUNTIME); /* the module named like the family: its error */
    assert_contains(err.msg, "bad_abi.so");
    assert_contains(err.msg, "built for plugin ABI 3.0");
    assert_null(harness_registry_resolve(&reg, "nothing_like_it", "cpu", &err));
    assert_int_equal(err.code, HARNESS_EXIT_USAGE);
    assert_contains(err.msg, "plugins that could not be loaded: ");
    assert_contains(err.msg, "no_entry.so");
    for (const char *const *n = (const char *const[]){"good", "bad_abi", "no_entry", NULL}; *n; n++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.so", dir, *n);
        unlink(path);
    }
    rmdir(dir);
}

/* A key two plugins register: the directory loads, the later plugin is
 * skipped, and the key itself is refused (which plugin should win is not
 * ours to guess); broken_plugins.sh asks for its family too. */
static void test_dir_with_duplicate_key_refuses_the_key(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_dir(&reg, HARNESS_BUILD_DIR "/tests/fixtures", 0, &err), 0);
    assert_non_null(harness_registry_resolve(&reg, "collectives/cpu", "cpu", &err)); /* the others stay usable */
    assert_null(harness_registry_resolve(&reg, "fixture/cpu", "cpu", &err));
    assert_int_equal(err.code, HARNESS_EXIT_RUNTIME);
    assert_contains(err.msg, "variant 'fixture/cpu' is not available: variant key fixture/cpu is registered twice");
}

static void test_missing_entry_point(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("no_entry.la"), &err), HARNESS_EXIT_RUNTIME);
    assert_contains(err.msg, "has no entry point no_entry_LTX_harness_plugin_init");
    assert_contains(err.msg, "HARNESS_PLUGIN_INIT(no_entry, svc, ctx)");
}

static void test_duplicate_key_names_both_plugins(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("good.la"), &err), 0);
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("dup_key.la"), &err), HARNESS_EXIT_RUNTIME);
    assert_contains(err.msg, "variant key fixture/cpu is registered twice");
    assert_contains(err.msg, "good.");
    assert_contains(err.msg, "dup_key.");
    assert_int_equal(reg.n_variants, 1);
}

static void test_failing_init_reports_plugin_message(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("fail_init.la"), &err), HARNESS_EXIT_RUNTIME);
    assert_contains(err.msg, "failed to initialize: fail_init: the license file /nonexistent is missing");
    assert_int_equal(reg.n_variants, 0); /* what it registered before failing is forgotten */
}

static void test_missing_file(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("nope.la"), &err), HARNESS_EXIT_RUNTIME);
    assert_contains(err.msg, "cannot load plugin");
    assert_contains(err.msg, "nope.la");
}

static void test_missing_dir_is_an_error_only_when_asked_for(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_dir(&reg, "/nonexistent/plugins", 0, &err), 0);
    assert_int_equal(harness_registry_load_dir(&reg, "/nonexistent/plugins", 1, &err), HARNESS_EXIT_USAGE);
    assert_contains(err.msg, "plugin directory /nonexistent/plugins");
}

static void test_older_minor_is_accepted_and_zero_extended(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("old_minor.la"), &err), 0);
    const harness_variant_entry *e = harness_registry_resolve(&reg, "old/cpu", "cpu", &err);
    assert_non_null(e);
    assert_null(e->variant.validate); /* past the plugin's struct: zero, not its garbage */
    assert_int_equal(e->variant.size, sizeof(harness_variant));
}

/* ABI 2.1 and 2.2 only appended services: a plugin built for 2.0 loads,
 * and an older host's table (smaller size) reports the newer services as
 * absent. */
static void test_abi_2_0_plugin_loads_on_2_2(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("abi2_0.la"), &err), 0);
    assert_non_null(harness_registry_resolve(&reg, "abi2_0/cpu", "cpu", &err));
    harness_services svc = *harness_host_services();
    assert_int_equal(svc.abi_minor, HARNESS_ABI_MINOR);
    assert_true(HARNESS_HAS_SERVICE(&svc, output));
    assert_true(HARNESS_HAS_SERVICE(&svc, device_alloc));
    assert_true(HARNESS_HAS_SERVICE(&svc, device_synchronize));
    assert_true(HARNESS_HAS_SERVICE(&svc, all_reduce));
    assert_true(HARNESS_HAS_SERVICE(&svc, barrier));
    svc.size = offsetof(harness_services, all_reduce); /* a 2.1 host */
    assert_false(HARNESS_HAS_SERVICE(&svc, all_reduce));
    assert_true(HARNESS_HAS_SERVICE(&svc, device_synchronize));
    svc.size = offsetof(harness_services, device_alloc); /* a 2.0 host */
    assert_false(HARNESS_HAS_SERVICE(&svc, device_alloc));
    assert_false(HARNESS_HAS_SERVICE(&svc, stream));
    assert_true(HARNESS_HAS_SERVICE(&svc, num_threads));
}

static void test_has_service_checks_size_and_pointer(void **state)
{
    (void)state;
    harness_services svc = *harness_host_services();
    assert_true(HARNESS_HAS_SERVICE(&svc, num_threads));
    svc.size = offsetof(harness_services, num_threads); /* a host from before num_threads */
    assert_false(HARNESS_HAS_SERVICE(&svc, num_threads));
    assert_true(HARNESS_HAS_SERVICE(&svc, world_size));
    svc.world_size = NULL;
    assert_false(HARNESS_HAS_SERVICE(&svc, world_size));
}

static int dummy_create(harness_ctx *c, void **s) { (void)c; *s = NULL; return 0; }
static int dummy_step(harness_ctx *c, void *s) { (void)c; (void)s; return 0; }
static void dummy_cost(void *s, harness_cost *o) { (void)s; (void)o; }
static void dummy_destroy(harness_ctx *c, void *s) { (void)c; (void)s; }

static void test_add_rejects_malformed_variants(void **state)
{
    (void)state;
    harness_error err = {0};
    assert_int_equal(harness_registry_load_file(&reg, FIXTURE("good.la"), &err), 0);
    harness_variant v = {.size = sizeof v, .key = "x/cpu", .family = "x", .device = "tpu", .create = dummy_create,
                         .step = dummy_step, .cost = dummy_cost, .destroy = dummy_destroy};
    assert_int_not_equal(harness_registry_add(&reg, 0, &v, &err), 0);
    assert_contains(err.msg, "device must be");
    v.device = "cpu";
    v.step = NULL;
    assert_int_not_equal(harness_registry_add(&reg, 0, &v, &err), 0);
    assert_contains(err.msg, "create, step, destroy and one of cost and step_cost are required");
    v.step = dummy_step;
    harness_param enum_without_choices = {.size = sizeof enum_without_choices, .name = "dtype",
                                          .type = HARNESS_PARAM_ENUM};
    v.params = &enum_without_choices;
    v.n_params = 1;
    assert_int_not_equal(harness_registry_add(&reg, 0, &v, &err), 0);
    assert_contains(err.msg, "enum parameter has no choices");
    v.n_params = 0;
    assert_int_equal(harness_registry_add(&reg, 0, &v, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_abi_2_0_plugin_loads_on_2_2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_good_plugin_registers_its_variant, setup, teardown),
        cmocka_unit_test_setup_teardown(test_family_resolves_by_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_key_suggests_and_lists_search_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_abi_names_both_versions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abi1_plugin_is_refused_naming_both_versions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_newer_minor_with_zero_tail_loads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_newer_minor_setting_unknown_field_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dir_skips_broken_plugins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dir_with_duplicate_key_refuses_the_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_entry_point, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duplicate_key_names_both_plugins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failing_init_reports_plugin_message, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_dir_is_an_error_only_when_asked_for, setup, teardown),
        cmocka_unit_test_setup_teardown(test_add_rejects_malformed_variants, setup, teardown),
        cmocka_unit_test(test_has_service_checks_size_and_pointer),
        cmocka_unit_test_setup_teardown(test_older_minor_is_accepted_and_zero_extended, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
