/* test_sample_array.c - report/sample_array.c writes samples exactly as
 * cJSON would (the summary's format must not change), only faster. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "folder/sample_array.h"

static void same_as_cjson(const double *v, size_t n)
{
    cJSON *mine = harness_sample_array_json(v, n), *theirs = cJSON_CreateDoubleArray(v, (int)n);
    assert_non_null(mine);
    char *a = cJSON_PrintUnformatted(mine), *b = cJSON_PrintUnformatted(theirs);
    /* cJSON separates array items with "," unformatted; ours always ", "
     * (as cJSON_Print, which writes the summary, does). */
    char *w = a;
    for (const char *r = a; *r; r++)
        if (!(r[0] == ' ' && r > a && r[-1] == ','))
            *w++ = *r;
    *w = '\0';
    assert_string_equal(a, b);
    free(a);
    free(b);
    cJSON_Delete(mine);
    cJSON_Delete(theirs);
}

static void test_like_cjson(void **state)
{
    (void)state;
    static const double fixed[] = {0, 1, -1, 120, 61.333333333333336, 1e-300, 1.7976931348623157e308, 0.1, 1e15,
                                   123456789.123456789, 2.5e-7, NAN, INFINITY};
    same_as_cjson(fixed, sizeof fixed / sizeof fixed[0]);
    double *r = malloc(100000 * sizeof *r);
    srand(7);
    for (size_t i = 0; i < 100000; i++)
        r[i] = (double)rand() / RAND_MAX * pow(10, rand() % 12);
    same_as_cjson(r, 100000);
    free(r);
}

static void test_empty(void **state)
{
    (void)state;
    cJSON *a = harness_sample_array_json(NULL, 0);
    char *t = cJSON_PrintUnformatted(a);
    assert_string_equal(t, "[]");
    free(t);
    cJSON_Delete(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_like_cjson),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
