/* notes.h - the facts a component instance records about itself with the
 * `note` service (ABI 2.3), such as which ISA path its kernels took, for the
 * summary's `component_notes` object (ARCHITECTURE.md section 7).
 *
 * Fixed storage inside the context, so an instance needs no teardown for
 * them and a crash leaves them readable for the salvaged summary. */
#ifndef HARNESS_PLUGIN_NOTES_H
#define HARNESS_PLUGIN_NOTES_H

#include <stddef.h>

/* Enough for the few facts a kernel has to tell (ISA, algorithm, tile);
 * a plugin that wants more is told so rather than silently cut. */
#define HARNESS_NOTES_MAX 16
#define HARNESS_NOTE_KEY_MAX 64
#define HARNESS_NOTE_VALUE_MAX 256

typedef struct harness_notes {
    size_t n;
    struct {
        char key[HARNESS_NOTE_KEY_MAX];
        char value[HARNESS_NOTE_VALUE_MAX];
    } note[HARNESS_NOTES_MAX];
} harness_notes;

/* Record key = value; a key noted again keeps its place and takes the new
 * value, so a note made in every step does not fill the table. 0, or -1
 * with why in `why` (no key, too long, too many). */
int harness_notes_set(harness_notes *notes, const char *key, const char *value, char *why, size_t why_cap);

#endif
