/* export_write.h - an export table as CSV (RFC 4180) or JSON (an array of
 * objects with every column, pandas.read_json's "records"). */
#ifndef HARNESS_EXPORT_WRITE_H
#define HARNESS_EXPORT_WRITE_H

#include <stdio.h>

#include "cli/export_table.h"

void harness_export_write_csv(const harness_export_table *t, FILE *f);
/* 0, or -1 when out of memory. */
int harness_export_write_json(const harness_export_table *t, FILE *f);

#endif
