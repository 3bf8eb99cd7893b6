/* The HTML memory report: self-contained, exact peak figures, escaped
 * strings, sorted allocations, bounded size, edge cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/memory_report.h"
#include "util/format.h"

#define MIB (1024ull * 1024ull)

/* ---- helpers ----------------------------------------------------------- */

static size_t count_of(const char *hay, const char *needle)
{
    size_t k = 0, n = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + n, needle))
        k++;
    return k;
}

/* The unsigned number in attr="..." right after the first occurrence of
 * anchor (e.g. anchor id="peak-allocated", attr data-bytes). */
static uint64_t attr_after(const char *html, const char *anchor, const char *attr)
{
    const char *p = strstr(html, anchor);
    assert_non_null(p);
    const char *end = strchr(p, '>');
    assert_non_null(end);
    char key[64];
    snprintf(key, sizeof key, "%s=\"", attr);
    const char *q = strstr(p, key);
    assert_non_null(q);
    assert_true(q < end); /* in the same tag */
    return strtoull(q + strlen(key), NULL, 10);
}

static int is_void_element(const char *name, size_t len)
{
    static const char *const v[] = {"meta", "br", "hr", "img", "input", "link", "col", "wbr", "area", "base"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (strlen(v[i]) == len && strncmp(v[i], name, len) == 0)
            return 1;
    return 0;
}

/* Every start tag is closed in order (void elements and <x/> excepted),
 * <style> is raw text, no stray '<'. */
static void assert_balanced(const char *html)
{
    const char *stack[256];
    size_t depth = 0;
    const char *p = html;
    while ((p = strchr(p, '<')) != NULL) {
        if (strncmp(p, "<!DOCTYPE", 9) == 0) {
            p = strchr(p, '>');
            assert_non_null(p);
            continue;
        }
        int closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t len = 0;
        while ((name[len] >= 'a' && name[len] <= 'z') || (name[len] >= '0' && name[len] <= '9'))
            len++;
        assert_true(len > 0); /* a '<' that starts no tag would have been escaped */
        const char *gt = strchr(name, '>');
        assert_non_null(gt);
        if (closing) {
            assert_true(depth > 0);
            depth--;
            if (strncmp(stack[depth], name, len) != 0 || !(stack[depth][len] == ' ' || stack[depth][len] == '>')) {
                fprintf(stderr, "mismatched </%.*s> for <%.20s\n", (int)len, name, stack[depth]);
                fail();
            }
        } else if (gt[-1] != '/' && !is_void_element(name, len)) {
            assert_true(depth < 256);
            stack[depth++] = name;
            if (len == 5 && strncmp(name, "style", 5) == 0) {
                gt = strstr(gt, "</style>");
                assert_non_null(gt);
                p = gt;
                continue;
            }
        }
        p = gt + 1;
    }
    assert_int_equal(depth, 0);
}

static void assert_valid_utf8_no_controls(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        if (*u < 0x80) {
            assert_true(*u >= 0x20 || *u == '\n');
            assert_true(*u != 0x7F);
            u++;
            continue;
        }
        int len = *u >= 0xF0 ? 4 : *u >= 0xE0 ? 3 : *u >= 0xC2 ? 2 : 0;
        assert_true(len > 0);
        for (int i = 1; i < len; i++)
            assert_int_equal(u[i] & 0xC0, 0x80);
        u += len;
    }
}

/* What any report must satisfy. */
static void assert_self_contained(const char *html)
{
    assert_non_null(html);
    assert_true(strncmp(html, "<!DOCTYPE html>", 15) == 0);
    assert_int_equal(count_of(html, "<svg"), 1);
    assert_int_equal(count_of(html, "</svg>"), 1);
    assert_null(strstr(html, "http://"));
    assert_null(strstr(html, "https://"));
    assert_null(strstr(html, "src="));
    assert_null(strstr(html, "href="));
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "<link"));
    assert_null(strstr(html, "url("));
    assert_null(strstr(html, "@import"));
    assert_null(strstr(html, "xmlns"));
    assert_null(strstr(html, "nan"));
    assert_null(strstr(html, "inf\""));
    assert_null(strstr(html, "inf,"));
    assert_balanced(html);
    assert_valid_utf8_no_controls(html);
}

/* warmup, then `windows` x (wait, measure); one sample per step plus one at
 * each phase edge, memory rising in warmup and flat-ish after. */
static harness_memory_log make_run(int warmup, int windows, int wait, int measure, uint64_t base)
{
    harness_memory_log log = {0};
    log.cap = (size_t)(warmup + windows * (wait + measure)) + (size_t)(1 + 2 * windows) + 1;
    log.samples = calloc(log.cap, sizeof *log.samples);
    assert_non_null(log.samples);
    int64_t step = 0;
    uint64_t peak = 0;
    for (int ph = 0; ph < 1 + 2 * windows; ph++) {
        int phase = ph == 0 ? 0 : ph % 2 ? 1 : 2;
        int window = ph == 0 ? -1 : (ph - 1) / 2;
        int len = ph == 0 ? warmup : phase == 1 ? wait : measure;
        for (int k = 0; k <= len; k++) { /* k == 0: the edge sample */
            harness_memory_sample *s = &log.samples[log.n++];
            s->t_us = (double)step * 120.0;
            s->step = step;
            s->phase = phase;
            s->window = window;
            s->allocated = base + (phase == 0 ? base * (uint64_t)k / (uint64_t)(warmup + 1) : base / 2 + (uint64_t)(k % 3) * 4096);
            if (s->allocated > peak)
                peak = s->allocated;
            s->peak_allocated = peak;
            s->reserved = s->allocated + 40 * MIB;
            if (s->reserved > log.peak_reserved)
                log.peak_reserved = s->reserved;
            if (k < len)
                step++;
        }
        step++;
    }
    return log;
}

static uint64_t log_peak_allocated(const harness_memory_log *log)
{
    return log->n ? log->samples[log->n - 1].peak_allocated : 0;
}

static harness_allocation alloc_of(size_t bytes, const char *tag, const char *owner)
{
    harness_allocation a;
    memset(&a, 0, sizeof a);
    a.bytes = bytes;
    snprintf(a.tag, sizeof a.tag, "%s", tag);
    snprintf(a.owner, sizeof a.owner, "%s", owner);
    return a;
}

/* ---- tests ------------------------------------------------------------- */

static void test_figures_are_exact(void **state)
{
    (void)state;
    harness_memory_log log = make_run(10, 3, 5, 20, 128 * MIB);
    harness_allocation at[2] = {alloc_of(128 * MIB, "weight", "rms_norm/cpu"), alloc_of(64 * MIB, "x", "rms_norm/cpu")};
    harness_memory_report_input in = {
        .title = "rms_norm/cpu - rank 0 of 1",
        .device = "cpu",
        .subtitle = "rms_norm.yaml, 2024-05-01 12:00:00, host1",
        .log = &log,
        .peak_allocated = 256 * MIB,
        .peak_reserved = log.peak_reserved,
        .at_peak = at,
        .n_at_peak = 2,
    };
    char *html = harness_memory_report_html(&in);
    assert_self_contained(html);
    assert_true(attr_after(html, "id=\"peak-allocated\"", "data-bytes") == 256 * MIB);
    assert_true(attr_after(html, "id=\"peak-reserved\"", "data-bytes") == log.peak_reserved);
    assert_true(attr_after(html, "id=\"samples\"", "data-count") == log.n);
    assert_true(attr_after(html, "id=\"peak-marker\"", "data-bytes") == 256 * MIB);
    assert_non_null(strstr(html, ">256.0 MiB<"));
    assert_non_null(strstr(html, "resident set"));
    assert_non_null(strstr(html, "id=\"series-allocated\""));
    assert_non_null(strstr(html, "id=\"series-reserved\""));
    assert_non_null(strstr(html, "id=\"series-peak\""));
    /* every phase has a band: 1 warmup + 3 wait + 3 measure */
    assert_int_equal(count_of(html, "<rect class=\"ph0\""), 1);
    assert_int_equal(count_of(html, "<rect class=\"ph1\""), 3);
    assert_int_equal(count_of(html, "<rect class=\"ph2\""), 3);
    assert_non_null(strstr(html, "measure, window 3"));   /* the third: windows count from 1 */
    assert_null(strstr(html, "window 0"));
    free(html);
    free(log.samples);
}

/* A GPU run: the device's size is a row of its own, the wording is the
 * device's; a CPU run has no such row. */
static void test_device_memory(void **state)
{
    (void)state;
    harness_memory_log log = make_run(4, 1, 2, 5, 64 * MIB);
    harness_allocation at[1] = {alloc_of(64 * MIB, "x", "rms_norm/cuda")};
    harness_memory_report_input in = {.title = "rms_norm/cuda - rank 0 of 1", .device = "cuda", .log = &log,
                                      .peak_allocated = 64 * MIB, .peak_reserved = log.peak_reserved,
                                      .at_peak = at, .n_at_peak = 1, .device_total = 80ull << 30};
    char *html = harness_memory_report_html(&in);
    assert_self_contained(html);
    assert_true(attr_after(html, "id=\"device-total\"", "data-bytes") == 80ull << 30);
    assert_non_null(strstr(html, "tracked device allocations"));
    assert_non_null(strstr(html, "device memory in use"));
    free(html);
    in.device = "cpu";
    in.device_total = 0;
    html = harness_memory_report_html(&in);
    assert_null(strstr(html, "device-total"));
    free(html);
    free(log.samples);
}

static void test_units(void **state)
{
    (void)state;
    static const struct {
        uint64_t bytes;
        const char *text;
    } cases[] = {
        {0, ">0 B<"},
        {1023, ">1023 B<"},
        {1024, ">1.0 KiB<"},
        {1536, ">1.5 KiB<"},
        {MIB - 1, ">1.0 MiB<"}, /* not "1024.0 KiB" */
        {3 * MIB * 1024 / 2, ">1.5 GiB<"},
        {UINT64_MAX, ">16.0 EiB<"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        harness_memory_report_input in = {.peak_allocated = cases[i].bytes, .peak_reserved = 7};
        char *html = harness_memory_report_html(&in);
        assert_self_contained(html);
        assert_non_null(strstr(html, cases[i].text));
        assert_true(attr_after(html, "id=\"peak-allocated\"", "data-bytes") == cases[i].bytes);
        free(html);
    }
}

static void test_strings_are_escaped(void **state)
{
    (void)state;
    harness_memory_log log = make_run(2, 1, 1, 3, MIB);
    harness_allocation at[3] = {
        alloc_of(3000, "<b>&\"x\"", "o'wner"),
        alloc_of(2000, "ctl\x01\x1b[31m\x7f" "end\ttab", "\xC2\x85" "c1"),
        alloc_of(1000, "caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x98\x80", "bad\xFF\xC0\xAFutf8\xE2\x82"),
    };
    /* a tag that fills its array with no NUL */
    harness_allocation full;
    memset(&full, 'A', sizeof full);
    full.bytes = 10;
    harness_allocation all[4] = {at[0], at[1], at[2], full};
    harness_memory_report_input in = {
        .title = "</title><script>alert(1)</script>",
        .device = "cpu",
        .subtitle = "a & b < c \"d\" 'e'\nnext line",
        .log = &log,
        .peak_allocated = log_peak_allocated(&log),
        .peak_reserved = log.peak_reserved,
        .at_peak = all,
        .n_at_peak = 4,
    };
    char *html = harness_memory_report_html(&in);
    assert_self_contained(html);
    assert_null(strstr(html, "<b>"));
    assert_non_null(strstr(html, "<td>&lt;b&gt;&amp;&quot;x&quot;</td><td>o&#39;wner</td>"));
    assert_non_null(strstr(html, "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(html, "a &amp; b &lt; c &quot;d&quot; &#39;e&#39; next line"));
    assert_non_null(strstr(html, "<td>ctl[31mend tab</td><td>c1</td>")); /* C0, DEL and C1 dropped */
    assert_non_null(strstr(html, "caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x98\x80")); /* UTF-8 kept */
    assert_non_null(strstr(html, "bad\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBDutf8\xEF\xBF\xBD")); /* invalid: U+FFFD */
    char sixty_four_a[65];
    memset(sixty_four_a, 'A', 64);
    sixty_four_a[64] = '\0';
    assert_non_null(strstr(html, sixty_four_a));
    assert_null(strstr(html, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")); /* 65: bounded */
    free(html);
    free(log.samples);
}

static void test_allocations_sorted(void **state)
{
    (void)state;
    harness_allocation at[5] = {
        alloc_of(100, "small", "harness"),  alloc_of(5000, "big", "variant"), alloc_of(700, "mid", "variant"),
        alloc_of(5000, "also big", "harness"), alloc_of(0, "empty", "harness"),
    };
    harness_memory_report_input in = {.device = "cuda", .peak_allocated = 10000, .at_peak = at, .n_at_peak = 5};
    char *html = harness_memory_report_html(&in);
    assert_self_contained(html);
    assert_non_null(strstr(html, "device memory in use"));
    const char *key = "<tr class=\"alloc\" data-bytes=\"";
    assert_int_equal(count_of(html, key), 5);
    uint64_t prev = UINT64_MAX;
    for (const char *p = strstr(html, key); p; p = strstr(p + 1, key)) {
        uint64_t v = strtoull(p + strlen(key), NULL, 10);
        assert_true(v <= prev);
        prev = v;
    }
    /* equal sizes: by tag */
    const char *a = strstr(html, ">also big<"), *b = strstr(html, ">big<");
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a < b);
    assert_non_null(strstr(html, ">50.0%<"));
    assert_non_null(strstr(html, "total (5 allocations)"));
    assert_true(attr_after(html, "id=\"allocations-total\"", "data-bytes") == 10800);
    /* no samples: still one chart saying so */
    assert_non_null(strstr(html, "no samples"));
    assert_null(strstr(html, "id=\"peak-marker\""));
    free(html);
}

static void test_allocation_rows_capped(void **state)
{
    (void)state;
    size_t n = HARNESS_MEMORY_REPORT_MAX_ROWS + 100;
    harness_allocation *at = calloc(n, sizeof *at);
    assert_non_null(at);
    for (size_t i = 0; i < n; i++)
        at[i] = alloc_of(i + 1, "t", "o");
    harness_memory_report_input in = {.peak_allocated = n * (n + 1) / 2, .at_peak = at, .n_at_peak = n};
    char *html = harness_memory_report_html(&in);
    assert_self_contained(html);
    assert_int_equal(count_of(html, "<tr class=\"alloc\""), HARNESS_MEMORY_REPORT_MAX_ROWS);
    assert_non_null(strstr(html, ">100 smaller allocations<"));
    assert_true(attr_after(html, "<tr class=\"more\"", "data-bytes") == 100 * 101 / 2);
    assert_true(attr_after(html, "id=\"allocations-total\"", "data-bytes") == n * (n + 1) / 2);
    assert_non_null(strstr(html, ">100.0%<"));
    free(html);
    free(at);
}

static void test_hundred_thousand_samples(void **state)
{
    (void)state;
    const size_t n = 100000;
    harness_memory_log log = {0};
    log.samples = calloc(n, sizeof *log.samples);
    assert_non_null(log.samples);
    log.n = log.cap = n;
    uint64_t peak = 0;
    const uint64_t spike = 700 * MIB + 12345, res_spike = 900 * MIB + 777;
    for (size_t i = 0; i < n; i++) {
        harness_memory_sample *s = &log.samples[i];
        s->step = (int64_t)i;
        s->t_us = (double)i * 3.5;
        s->phase = i < 1000 ? 0 : (i / 1000) % 10 == 1 ? 1 : 2;
        s->window = i < 1000 ? -1 : (int)(i / 10000);
        s->allocated = 300 * MIB + (i % 97) * 4096;
        if (i == 54321)
            s->allocated = spike; /* one sample, in the middle of a bucket */
        if (s->allocated > peak)
            peak = s->allocated;
        s->peak_allocated = peak;
        s->reserved = 500 * MIB + (i % 13) * 65536;
        if (i == 77777)
            s->reserved = res_spike;
        if (s->reserved > log.peak_reserved)
            log.peak_reserved = s->reserved;
    }
    harness_memory_report_input in = {
        .title = "big", .device = "cpu", .log = &log, .peak_allocated = spike, .peak_reserved = log.peak_reserved};
    char *html = harness_memory_report_html(&in);
    assert_self_contained(html);
    size_t len = strlen(html);
    printf("100k samples: %zu bytes\n", len);
    assert_true(len < 300 * 1024);
    assert_true(attr_after(html, "id=\"peak-allocated\"", "data-bytes") == spike);
    assert_true(attr_after(html, "id=\"peak-marker\"", "data-bytes") == spike);
    assert_true(attr_after(html, "id=\"peak-marker\"", "data-step") == 54321);
    assert_true(attr_after(html, "id=\"reserved-marker\"", "data-bytes") == res_spike);
    /* the min/max buckets kept both spikes */
    assert_true(attr_after(html, "id=\"series-allocated\"", "data-max-bytes") == spike);
    assert_true(attr_after(html, "id=\"series-reserved\"", "data-max-bytes") == res_spike);
    assert_true(attr_after(html, "id=\"series-allocated\"", "data-points") <= 2 * HARNESS_MEMORY_REPORT_BUCKETS);
    assert_true(attr_after(html, "id=\"series-allocated\"", "data-points") > HARNESS_MEMORY_REPORT_BUCKETS);
    assert_non_null(strstr(html, "100000 samples"));
    free(html);

    /* worst case for the bands: the phase changes at every sample */
    for (size_t i = 0; i < n; i++) {
        log.samples[i].phase = (int)(i % 3);
        log.samples[i].window = (int)(i / 3);
    }
    html = harness_memory_report_html(&in);
    assert_self_contained(html);
    len = strlen(html);
    printf("100k samples, a phase change at each: %zu bytes\n", len);
    assert_true(len < 300 * 1024);
    free(html);
    free(log.samples);
}

static void test_zero_samples(void **state)
{
    (void)state;
    harness_memory_log log = {0};
    harness_memory_report_input in = {.title = "t", .device = "cpu", .log = &log, .peak_allocated = 4096, .peak_reserved = 8192};
    for (int pass = 0; pass < 2; pass++) {
        if (pass)
            in.log = NULL;
        char *html = harness_memory_report_html(&in);
        assert_self_contained(html);
        assert_non_null(strstr(html, ">no samples<"));
        assert_true(attr_after(html, "id=\"samples\"", "data-count") == 0);
        assert_true(attr_after(html, "id=\"peak-allocated\"", "data-bytes") == 4096);
        assert_true(attr_after(html, "id=\"peak-reserved\"", "data-bytes") == 8192);
        assert_non_null(strstr(html, "allocations-empty"));
        free(html);
    }
}

static void test_one_sample(void **state)
{
    (void)state;
    harness_memory_sample s = {
        .t_us = 5, .step = 7, .phase = 2, .window = 0, .allocated = 1000, .peak_allocated = 1500, .reserved = 3000};
    harness_memory_log log = {.samples = &s, .n = 1, .cap = 1, .peak_reserved = 3000};
    harness_allocation at = alloc_of(1500, "only", "harness");
    harness_memory_report_input in = {
        .device = "cpu", .log = &log, .peak_allocated = 1500, .peak_reserved = 3000, .at_peak = &at, .n_at_peak = 1};
    char *html = harness_memory_report_html(&in);
    assert_self_contained(html);
    assert_non_null(strstr(html, "<circle id=\"series-allocated\""));
    assert_non_null(strstr(html, "<circle id=\"series-reserved\""));
    assert_true(attr_after(html, "id=\"peak-marker\"", "data-bytes") == 1500);
    assert_true(attr_after(html, "id=\"peak-marker\"", "data-step") == 7);
    assert_true(attr_after(html, "id=\"steps\"", "data-first") == 7);
    /* a range of step numbers that reads as one, not as a count */
    assert_non_null(strstr(html, ">from step 8 to step 8 (steps count from 1)<"));
    /* people count steps from 1 (docs/guide/failures.md): the marker, the axis */
    assert_non_null(strstr(html, "(1500 bytes), step 8</title>"));
    assert_non_null(strstr(html, ">step (from 1, all phases)<"));
    assert_null(strstr(html, "steps covered"));
    assert_non_null(strstr(html, ">100.0%<"));
    assert_non_null(strstr(html, "total (1 allocation)"));
    free(html);
}

/* The number in attr="..." after anchor, as a double (SVG coordinates). */
static double coord_after(const char *html, const char *anchor, const char *attr)
{
    const char *p = strstr(html, anchor);
    assert_non_null(p);
    char key[64];
    snprintf(key, sizeof key, " %s=\"", attr);
    const char *q = strstr(p, key);
    assert_non_null(q);
    assert_true(q < strchr(p, '>'));
    return strtod(q + strlen(key), NULL);
}

/* The resident set a little above the allocated peak, both flat: the
 * allocated label's usual place (above its dot) is where the resident
 * line runs, so it goes where no line is. */
static void test_labels_clear_of_lines(void **state)
{
    (void)state;
    harness_memory_sample s[5];
    for (int i = 0; i < 5; i++)
        s[i] = (harness_memory_sample){.t_us = i, .step = i * 10, .phase = 2, .window = 0,
                                       .allocated = 54 * MIB, .peak_allocated = 54 * MIB, .reserved = 57 * MIB};
    harness_memory_log log = {.samples = s, .n = 5, .cap = 5, .peak_reserved = 57 * MIB};
    harness_memory_report_input in = {.device = "cpu", .log = &log, .peak_allocated = 54 * MIB,
                                      .peak_reserved = 57 * MIB};
    char *html = harness_memory_report_html(&in);
    assert_self_contained(html);
    double dot = coord_after(html, "id=\"peak-marker\"", "cy");
    double res_line = coord_after(html, "id=\"reserved-marker\"", "cy");
    double label = coord_after(html, "id=\"peak-marker-label\"", "y");
    double res_label = coord_after(html, "id=\"reserved-marker-label\"", "y");
    assert_true(res_line < dot && dot - res_line < 20);        /* the case: the lines 3 MiB apart */
    /* the text spans [y - 10, y + 3]: neither line inside it, with 2 px to spare */
    assert_false(label - 12 <= res_line && res_line <= label + 5);
    assert_false(label - 12 <= dot && dot <= label + 5);
    assert_false(res_label - 12 <= dot && dot <= res_label + 5);
    assert_false(res_label - 12 <= res_line && res_line <= res_label + 5);
    /* and the two labels apart */
    assert_true(label - res_label > 13 || res_label - label > 13);
    free(html);
}

static void test_all_zero(void **state)
{
    (void)state;
    harness_memory_sample s[4];
    for (int i = 0; i < 4; i++)
        s[i] = (harness_memory_sample){.t_us = i, .step = i * 10, .phase = i / 2, .window = i < 2 ? -1 : 0};
    harness_memory_log log = {.samples = s, .n = 4, .cap = 4};
    harness_memory_report_input in = {.device = "cpu", .log = &log};
    char *html = harness_memory_report_html(&in);
    assert_self_contained(html);
    assert_non_null(strstr(html, "all memory figures are zero"));
    assert_null(strstr(html, "id=\"peak-marker\""));
    assert_true(attr_after(html, "id=\"peak-allocated\"", "data-bytes") == 0);
    free(html);
}

static void test_same_step_and_unknown_phase(void **state)
{
    (void)state;
    /* all samples at one step (edge samples), a phase the report does not know */
    harness_memory_sample s[3] = {
        {.step = 0, .phase = 0, .window = -1, .allocated = 10, .peak_allocated = 10, .reserved = 20},
        {.step = 0, .phase = 7, .window = 0, .allocated = 30, .peak_allocated = 30, .reserved = 20},
        {.step = 0, .phase = 2, .window = 0, .allocated = 5, .peak_allocated = 30, .reserved = 25},
    };
    harness_memory_log log = {.samples = s, .n = 3, .cap = 3, .peak_reserved = 25};
    harness_memory_report_input in = {.log = &log, .peak_allocated = 40, .peak_reserved = 25};
    char *html = harness_memory_report_html(&in);
    assert_self_contained(html);
    /* the peak was never sampled: marked at the last sample */
    assert_true(attr_after(html, "id=\"peak-marker\"", "data-bytes") == 40);
    free(html);
}

static void test_null_input(void **state)
{
    (void)state;
    assert_null(harness_memory_report_html(NULL));
}

static void write_sample(void)
{
    const char *path = getenv("MEMORY_REPORT_SAMPLE");
    if (!path || !*path)
        return;
    harness_memory_log log = make_run(40, 4, 10, 60, 96 * MIB);
    for (size_t i = 0; i < log.n; i++) /* a transient spike in window 1 */
        if (log.samples[i].step == 150) {
            log.samples[i].allocated += 64 * MIB;
            for (size_t j = i; j < log.n; j++)
                log.samples[j].peak_allocated = log.samples[i].allocated;
        }
    harness_allocation at[4] = {
        alloc_of(96 * MIB, "weight", "rms_norm/cpu"),
        alloc_of(64 * MIB, "scratch <tmp>", "rms_norm/cpu"),
        alloc_of(24 * MIB, "x", "harness"),
        alloc_of(24 * MIB - 1536, "y", "harness"),
    };
    harness_memory_report_input in = {
        .title = "rms_norm/cpu - rank 0 of 1",
        .device = "cpu",
        .subtitle = "rms_norm.yaml \xE2\x80\x94 2024-05-01 12:00:00 \xE2\x80\x94 host1",
        .log = &log,
        .peak_allocated = log_peak_allocated(&log),
        .peak_reserved = log.peak_reserved,
        .at_peak = at,
        .n_at_peak = 4,
    };
    char *html = harness_memory_report_html(&in);
    FILE *f = html ? fopen(path, "w") : NULL;
    if (f) {
        fputs(html, f);
        fclose(f);
    }
    free(html);
    free(log.samples);
}

/* The report's sizes (util/format.c): whole bytes, then one decimal, and
 * a value that would round to "1024.0" of a unit goes up one. */
static void test_byte_labels(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(harness_format_bytes_1dp(512, b, sizeof b), "512 B");
    assert_string_equal(harness_format_bytes_1dp(1024, b, sizeof b), "1.0 KiB");
    assert_string_equal(harness_format_bytes_1dp(256 * MIB, b, sizeof b), "256.0 MiB");
    assert_string_equal(harness_format_bytes_1dp(MIB - 1, b, sizeof b), "1.0 MiB");
    assert_string_equal(harness_format_bytes_1dp(UINT64_MAX, b, sizeof b), "16.0 EiB");
    assert_string_equal(harness_byte_unit(0), "B");
    assert_string_equal(harness_byte_unit(6), "EiB");
    assert_string_equal(harness_byte_unit(7), "?");
}

int main(void)
{
    write_sample();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures_are_exact),
        cmocka_unit_test(test_device_memory),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_byte_labels),
        cmocka_unit_test(test_strings_are_escaped),
        cmocka_unit_test(test_allocations_sorted),
        cmocka_unit_test(test_allocation_rows_capped),
        cmocka_unit_test(test_hundred_thousand_samples),
        cmocka_unit_test(test_zero_samples),
        cmocka_unit_test(test_one_sample),
        cmocka_unit_test(test_labels_clear_of_lines),
        cmocka_unit_test(test_all_zero),
        cmocka_unit_test(test_same_step_and_unknown_phase),
        cmocka_unit_test(test_null_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
