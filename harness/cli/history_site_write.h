/* history_site_write.h - `harness history --out DIR`: the dashboard's pages
 * (compare/history_site.h) written as
 * files, all or nothing. */
#ifndef HARNESS_CLI_HISTORY_SITE_WRITE_H
#define HARNESS_CLI_HISTORY_SITE_WRITE_H

#include "compare/history.h"
#include "util/error.h"

/* Write the site of h into dir: every page into a fresh folder beside it
 * (DIR.tmp-XXXXXX), which then takes dir's place, so a reader sees the old
 * site or the whole new one and a failure leaves dir as it was. dir may be
 * missing, empty, or a site written so before (replaced whole); anything
 * else is refused. 0; else 2 (dir
 * is a file, a link, or a folder of something else), 3 (I/O), each
 * message naming dir. */
int harness_history_site_write(const char *dir, const harness_history *h, harness_error *err);

#endif
