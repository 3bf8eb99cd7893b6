/* format.h - numbers for people. */
#ifndef HARNESS_FORMAT_H
#define HARNESS_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* "1.234 ms": ns with a unit chosen for 4 significant digits. */
const char *harness_format_ns(double ns, char *buf, size_t cap);

/* "1.5 MiB": bytes with a binary unit (B, KiB, MiB, GiB, TiB), 4 significant digits. */
const char *harness_format_bytes(double bytes, char *buf, size_t cap);

/* "512 B", "256.0 MiB": whole bytes below 1 KiB, else one decimal in the
 * largest binary unit up to EiB, never "1024.0" of a unit; for the memory
 * report, whose tables and labels line up on the one decimal. */
const char *harness_format_bytes_1dp(uint64_t bytes, char *buf, size_t cap);

/* "12.3 mJ", "1.5 GFLOP/J": v with an SI prefix (p to P) chosen for 4
 * significant digits, then the unit; energy and efficiency figures. */
const char *harness_format_si(double v, const char *unit, char *buf, size_t cap);

/* The figures of the reports (compare, ab, history), each "-" when unknown
 * (NaN; harness_format_share: not finite), so a table never shows "nan". */
/* "1.234": a ratio to three decimals; "inf". */
const char *harness_format_ratio(double ratio, char *buf, size_t cap);
/* "+5.0%": a change already in percent, signed, one decimal. */
const char *harness_format_signed_pct(double pct, char *buf, size_t cap);
/* "+5.0%" for a ratio of 1.05; "+inf%". */
const char *harness_format_change(double ratio, char *buf, size_t cap);
/* "96.1%": a share (0.961) in percent, one decimal: a CI's coverage, a noise bound. */
const char *harness_format_share(double share, char *buf, size_t cap);
/* "0.0079": a p-value to three significant digits. */
const char *harness_format_p(double p, char *buf, size_t cap);

/* The name of 1024^k bytes, k from 0 ("B") to 6 ("EiB"); "?" past them. */
const char *harness_byte_unit(int k);

#endif
