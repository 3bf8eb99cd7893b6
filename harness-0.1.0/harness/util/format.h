/* format.h - numbers for people. */
#ifndef HARNESS_FORMAT_H
#define HARNESS_FORMAT_H

#include <stddef.h>

/* "1.234 ms": ns with a unit chosen for 4 significant digits. */
const char *harness_format_ns(double ns, char *buf, size_t cap);

/* "1.5 MiB": bytes with a binary unit (B, KiB, MiB, GiB, TiB), 4 significant digits. */
const char *harness_format_bytes(double bytes, char *buf, size_t cap);

#endif
