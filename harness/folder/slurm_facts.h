/* slurm_facts.h - the Slurm job and step a run belonged to, as a rank's
 * summary (env.distributed.slurm) and the job's summary.json ("slurm") both
 * carry them, and the network addresses beside them: one writer and one
 * reader for both files (docs/ARCHITECTURE.md section 12). */
#ifndef HARNESS_FOLDER_SLURM_FACTS_H
#define HARNESS_FOLDER_SLURM_FACTS_H

#include <cjson/cJSON.h>

#include "util/error.h"

/* Each NULL where Slurm did not set it (procid and nodeid: a rank's only);
 * job_id NULL: not a Slurm job, the member is null. */
typedef struct harness_slurm_out {
    const char *job_id, *step_id, *job_nodelist, *procid, *nodeid, *cluster_name;
} harness_slurm_out;

/* One address of a network interface that is up. */
typedef struct harness_iface_addr_out {
    const char *name, *family, *address;   /* "eth0", "ipv4" | "ipv6", "10.1.2.3" */
    const char *pci_path;                  /* NULL: null (a virtual interface) */
} harness_iface_addr_out;

/* The "slurm" member's value: an object of the members set, or null. */
cJSON *harness_slurm_json(const harness_slurm_out *s);

/* parent's "slurm" (prefix: its dotted path, "" or "env.distributed.")
 * into out, strings malloc'ed (harness_slurm_free), all NULL when absent or
 * null: 0, or 2 naming path and key (folder/json_fields.h's rules). */
int harness_slurm_read(const cJSON *parent, const char *prefix, const char *path, harness_slurm_out *out,
                       harness_error *err);
void harness_slurm_free(harness_slurm_out *s);

#endif
