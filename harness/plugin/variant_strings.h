/* variant_strings.h - the strings of a registered variant, copied into
 * harness memory.
 *
 * A plugin's strings live in its module: a plugin that dlcloses itself, or a
 * module unloaded while something still reads them, would make every later
 * reader fault, and the crash handler (run/guard.c writes the variant key
 * into status.json) fault again inside the handler. So the registry copies
 * key, family, device, summary and every parameter's name, default, help
 * and choices at registration, and nothing the harness keeps points into a
 * plugin's data (its functions still do: they are called, never read). */
#ifndef HARNESS_PLUGIN_VARIANT_STRINGS_H
#define HARNESS_PLUGIN_VARIANT_STRINGS_H

#include <stddef.h>

#include "harness/plugin.h"

/* Longest key or family accepted: they name folders' contents, history
 * series and command-line arguments. */
#define HARNESS_VARIANT_KEY_MAX 255
/* Longest summary, help or default text: one line of `harness list`. */
#define HARNESS_VARIANT_TEXT_MAX 4096

/* Why the variant's strings cannot be kept (a control character in the key,
 * a key of 10 kB, an enum with 100,000 choices), or NULL when they can.
 * Reads the plugin's strings: call it during registration. */
const char *harness_variant_strings_refused(const harness_variant *v, const harness_param *params, uint32_t n_params);

/* Replace every string pointer of *v and of params[0..n_params) with a copy
 * the caller then owns (harness_variant_strings_free). 0, or -1 on out of
 * memory with nothing left allocated and *v and params unchanged. */
int harness_variant_strings_own(harness_variant *v, harness_param *params, uint32_t n_params);

/* Frees what harness_variant_strings_own copied (NULL-safe fields). */
void harness_variant_strings_free(harness_variant *v, harness_param *params, uint32_t n_params);

#endif
