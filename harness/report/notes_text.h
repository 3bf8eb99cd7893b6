/* notes_text.h - a component's notes (the kernel path it took: `gemm=fp32
 * attention=avx2 rms_norm=avx2`) as people read them, in the text
 * summaries and on stdout after a run, not only in the JSON's
 * component_notes. */
#ifndef HARNESS_NOTES_TEXT_H
#define HARNESS_NOTES_TEXT_H

#include <stdio.h>

#include "plugin/notes.h"

/* "<prefix>component notes: isa: gemm=fp32 attention=avx2; key: value\n";
 * nothing without notes. */
void harness_notes_print(FILE *f, const char *prefix, const harness_notes *notes);

/* text (malloc'ed) with that line inserted after its first line: the
 * header of a job's summary.txt; text itself when there are no notes or no
 * memory, NULL when text is NULL. Frees text when it returns another. */
char *harness_notes_after_first_line(char *text, const harness_notes *notes);

#endif
