/* gather.h - runs without a shared file system (experiment.gather;
 * docs/guide/mpi.md, "Without a shared file system").
 *
 * Every rank writes its files into the experiment folder rank 0 created,
 * which needs a file system all ranks see. The probe finds out whether they
 * do: rank 0 writes a token with a random value into the folder, tells the
 * others the value, and each looks for it. A rank that does not find it
 * (auto), or every rank but 0 (always), writes into a staging folder of its
 * own instead, and at the end of the point (or of an interruption) sends
 * its files to rank 0, which writes each atomically into the folder. What a
 * rank sends is bounded (experiment.gather_max_bytes): a file that would
 * take it over is left in the staging folder, named in a warning and in the
 * job summary. */
#ifndef HARNESS_DIST_GATHER_H
#define HARNESS_DIST_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "dist/dist.h"
#include "util/error.h"

#define HARNESS_GATHER_CHUNK (4u << 20)   /* bytes of a file per message */
#define HARNESS_GATHER_WAIT_S 30          /* for each message: the other side's slowest file write, generously */

/* A file a rank sent (or left behind), as the sender and rank 0 know it. */
typedef struct harness_gather_file {
    int rank;
    char name[256];
    uint64_t bytes;
    char sha256[65];               /* of the bytes the rank read, checked by rank 0 before the rename */
    int skipped;                   /* over the bound: not sent */
    int64_t mtime_ns;              /* sender: the version sent, so a later round sends only what changed */
} harness_gather_file;

typedef struct harness_gather {
    int on;                        /* some rank stages: its files travel to rank 0 */
    int staging;                   /* this rank writes into `dir`, a staging folder of its own */
    char dir[4096];                /* where this rank writes: the experiment folder, or its staging folder */
    char staging_root[4096];       /* the temporary folder that holds `dir` ("": not staging) */
    char *stages;                  /* world_size flags, '1' for a rank that stages */
    int64_t max_bytes;             /* what one rank may send */
    harness_gather_file *files;    /* sender: what it sent or left; rank 0: what came, in order */
    size_t n_files, cap_files;
    int lost;                      /* a transfer failed: files are missing from the folder */
} harness_gather;

/* After rank 0 created `folder` (every rank has its path): decide, with
 * every rank, whether files travel (mode "auto" | "always" | "never") and
 * where this rank writes (g->dir). "never" with a rank that does not see
 * the folder is an error on every rank naming the ranks and the path
 * (exit 3). Collective. */
int harness_gather_probe(harness_dist *d, const char *mode, int64_t max_bytes, const char *folder,
                         harness_gather *g, harness_error *err);

/* One round: every staging rank sends what it has not sent yet (or what
 * changed since), rank 0 writes it into the folder. Collective among the
 * ranks that got here; a rank that sends nothing within
 * HARNESS_GATHER_WAIT_S is given up on. 0, or err (exit 3) when files
 * could not be sent or written (the ones that arrived are in the folder). */
int harness_gather_round(harness_dist *d, harness_gather *g, harness_error *err);

/* The staging folder is removed when everything in it reached rank 0, else
 * named on stderr; then the record is freed. */
void harness_gather_end(harness_gather *g);

#endif
