/* Peak tables and their arithmetic (backend/cuda_peaks.h), against the
 * datasheet figures the table's comment names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "backend/cuda_peaks.h"
#include "report/roofline.h"

static void h100_sxm_matches_its_datasheet(void **state)
{
    (void)state;
    /* 132 SMs; tensor figures are quoted at 1.83 GHz, FP32 at 1.98 GHz. */
    harness_cuda_device_numbers d = {9, 0, 132, 1830000, 2619000, 5120};
    harness_cuda_peaks p;
    harness_cuda_peaks_compute(&d, &p);
    assert_string_equal(p.arch, "Hopper");
    assert_float_equal(p.bytes_per_s / 1e12, 3.352, 0.01);
    assert_float_equal(p.bf16_flops_per_s / 1e12, 989.4, 1.0);
    assert_float_equal(p.fp16_flops_per_s / 1e12, 989.4, 1.0);
    d.sm_clock_khz = 1980000;
    harness_cuda_peaks_compute(&d, &p);
    assert_float_equal(p.fp32_flops_per_s / 1e12, 66.9, 0.1);
}

static void a100_matches_its_datasheet(void **state)
{
    (void)state;
    harness_cuda_device_numbers d = {8, 0, 108, 1410000, 1215000, 5120};
    harness_cuda_peaks p;
    harness_cuda_peaks_compute(&d, &p);
    assert_float_equal(p.fp32_flops_per_s / 1e12, 19.5, 0.1);
    assert_float_equal(p.bf16_flops_per_s / 1e12, 312.0, 0.5);
    assert_float_equal(p.bytes_per_s / 1e12, 1.555, 0.01);
}

static void volta_has_no_bf16(void **state)
{
    (void)state;
    harness_cuda_device_numbers d = {7, 0, 80, 1530000, 877000, 4096};
    harness_cuda_peaks p;
    harness_cuda_peaks_compute(&d, &p);
    assert_float_equal(p.fp16_flops_per_s / 1e12, 125.3, 0.5);
    assert_true(p.bf16_flops_per_s == 0);
    assert_float_equal(p.bytes_per_s / 1e9, 898.0, 1.0);
}

static void every_blackwell_minor_is_known(void **state)
{
    (void)state;
    assert_non_null(harness_cuda_arch_rates_for(10, 0));
    assert_non_null(harness_cuda_arch_rates_for(10, 3));
    assert_non_null(harness_cuda_arch_rates_for(12, 0));
    assert_null(harness_cuda_arch_rates_for(8, 1));
}

static void unknown_parts_give_zero_not_a_guess(void **state)
{
    (void)state;
    harness_cuda_device_numbers d = {99, 0, 100, 2000000, 0, 0};
    harness_cuda_peaks p;
    harness_cuda_peaks_compute(&d, &p);
    assert_null(p.arch);
    assert_true(p.fp32_flops_per_s == 0 && p.bf16_flops_per_s == 0 && p.bytes_per_s == 0);
    d = (harness_cuda_device_numbers){9, 0, 0, 0, 2619000, 5120};   /* clock unknown */
    harness_cuda_peaks_compute(&d, &p);
    assert_true(p.fp32_flops_per_s == 0);
    assert_true(p.bytes_per_s > 0);        /* what is known is still given */
}

/* The roofline's arithmetic: 1 GB per step in 1 ms is 1 TB/s; of a 2 TB/s
 * peak, 50%; unknowns give NaN, never a number. */
static void roofline_percent_arithmetic(void **state)
{
    (void)state;
    assert_float_equal(harness_roofline_percent(1e9, 1e6, 2e12), 50.0, 1e-9);
    assert_float_equal(harness_roofline_percent(4.0 * 8 * 1024 * 4096, 10000.0, 989.4e12), 1.356, 0.001);
    assert_true(isnan(harness_roofline_percent(1e9, 0, 2e12)));
    assert_true(isnan(harness_roofline_percent(0, 1e6, 2e12)));
    assert_true(isnan(harness_roofline_percent(1e9, 1e6, NAN)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(h100_sxm_matches_its_datasheet),
        cmocka_unit_test(a100_matches_its_datasheet),
        cmocka_unit_test(volta_has_no_bf16),
        cmocka_unit_test(every_blackwell_minor_is_known),
        cmocka_unit_test(unknown_parts_give_zero_not_a_guess),
        cmocka_unit_test(roofline_percent_arithmetic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
