/* output_root.h - whether experiment folders can be made under an output
 * directory, checked before one is: a path too long for the folder's files
 * or a directory the run cannot write would otherwise be found after the
 * measurements, or leave an empty folder behind. */
#ifndef HARNESS_OUTPUT_ROOT_H
#define HARNESS_OUTPUT_ROOT_H

#include "util/error.h"

/* 0 when `output_dir` (made later if missing) can hold an experiment
 * folder and its longest file name; else an error naming it. */
int harness_output_root_check(const char *output_dir, harness_error *err);

#endif
