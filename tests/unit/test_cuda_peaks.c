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
    harness_cuda_device_numbers d = {9, 0, 132, 1830000, 2619000, 5120, NULL};
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

/* What a device reports: its top boost clock, 1980 MHz on H100 SXM. Known
 * parts get the datasheet's dense figures and the clock those assume, not
 * clock x SMs (1070 TFLOP/s bf16, ~8% high). One case per SKU. */
typedef struct sku_case {
    const char *name;
    int major, sms;
    double reported_mhz;
    const char *sku;
    double fp32, bf16, tb_per_s, tensor_mhz;
} sku_case;

static void each_sku_gets_its_datasheet_not_the_reported_clock(void **state)
{
    (void)state;
    static const sku_case cases[] = {
        {"NVIDIA H100 80GB HBM3", 9, 132, 1980, "H100 SXM", 66.9, 989.4, 3.35, 1830},
        {"NVIDIA H100 PCIe", 9, 114, 1755, "H100 PCIe", 51.2, 756.5, 2.0, 1620},
        {"NVIDIA H100 NVL", 9, 132, 1785, "H100 NVL", 60.0, 835.5, 3.9, 1545},
        {"NVIDIA H200", 9, 132, 1980, "H200 SXM", 66.9, 989.4, 4.8, 1830},
        {"NVIDIA H200 NVL", 9, 132, 1785, "H200 NVL", 60.0, 835.5, 4.8, 1545},
        {"NVIDIA A100-SXM4-80GB", 8, 108, 1410, "A100 SXM4 80GB", 19.5, 312.0, 2.039, 1410},
        {"NVIDIA A100-SXM4-40GB", 8, 108, 1410, "A100 SXM4 40GB", 19.5, 312.0, 1.555, 1410},
        {"NVIDIA A100 80GB PCIe", 8, 108, 1410, "A100 PCIe 80GB", 19.5, 312.0, 1.935, 1410},
        {"NVIDIA A100-PCIE-40GB", 8, 108, 1410, "A100 PCIe 40GB", 19.5, 312.0, 1.555, 1410},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const sku_case *c = &cases[i];
        harness_cuda_device_numbers d = {c->major, 0, c->sms, c->reported_mhz * 1e3, 2619000, 5120, c->name};
        harness_cuda_peaks p;
        harness_cuda_peaks_compute(&d, &p);
        assert_non_null(p.sku);
        assert_string_equal(p.sku, c->sku);
        assert_float_equal(p.bf16_flops_per_s / 1e12, c->bf16, 0.05);
        assert_float_equal(p.fp16_flops_per_s / 1e12, c->bf16, 0.05);
        assert_float_equal(p.fp32_flops_per_s / 1e12, c->fp32, 0.05);
        assert_float_equal(p.bytes_per_s / 1e12, c->tb_per_s, 0.001);
        assert_float_equal(p.tensor_clock_mhz, c->tensor_mhz, 1.0);
    }
}

/* A name the table does not know, or an SM count that does not fit the
 * name (a cut-down part), falls back to the reported clock, and says so. */
static void unknown_skus_use_the_reported_clock(void **state)
{
    (void)state;
    harness_cuda_device_numbers d = {9, 0, 132, 1980000, 2619000, 5120, "NVIDIA GH200 480GB"};
    harness_cuda_peaks p;
    harness_cuda_peaks_compute(&d, &p);
    assert_null(p.sku);
    assert_float_equal(p.bf16_flops_per_s / 1e12, 1070.5, 0.5);
    assert_float_equal(p.tensor_clock_mhz, 1980, 0.001);
    d.name = "NVIDIA H100 80GB HBM3";
    d.sm_count = 114;
    harness_cuda_peaks_compute(&d, &p);
    assert_null(p.sku);
}

static void a100_matches_its_datasheet(void **state)
{
    (void)state;
    harness_cuda_device_numbers d = {8, 0, 108, 1410000, 1215000, 5120, NULL};
    harness_cuda_peaks p;
    harness_cuda_peaks_compute(&d, &p);
    assert_float_equal(p.fp32_flops_per_s / 1e12, 19.5, 0.1);
    assert_float_equal(p.bf16_flops_per_s / 1e12, 312.0, 0.5);
    assert_float_equal(p.bytes_per_s / 1e12, 1.555, 0.01);
}

static void volta_has_no_bf16(void **state)
{
    (void)state;
    harness_cuda_device_numbers d = {7, 0, 80, 1530000, 877000, 4096, NULL};
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
    harness_cuda_device_numbers d = {99, 0, 100, 2000000, 0, 0, NULL};
    harness_cuda_peaks p;
    harness_cuda_peaks_compute(&d, &p);
    assert_null(p.arch);
    assert_true(p.fp32_flops_per_s == 0 && p.bf16_flops_per_s == 0 && p.bytes_per_s == 0);
    d = (harness_cuda_device_numbers){9, 0, 0, 0, 2619000, 5120, NULL};   /* clock unknown */
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
        cmocka_unit_test(each_sku_gets_its_datasheet_not_the_reported_clock),
        cmocka_unit_test(unknown_skus_use_the_reported_clock),
        cmocka_unit_test(volta_has_no_bf16),
        cmocka_unit_test(every_blackwell_minor_is_known),
        cmocka_unit_test(unknown_parts_give_zero_not_a_guess),
        cmocka_unit_test(roofline_percent_arithmetic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
