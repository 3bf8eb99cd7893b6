/* dist_env.h - the environment of a distributed run, for each rank's
 * summary (env.distributed): what decides how the ranks talk, so that two
 * jobs' figures can be told apart when their transports differ. The MPI
 * library, NCCL, the Slurm job and step, the variables that steer the
 * transports, the network interfaces and what is known of the GPUs' way to
 * them. Fixed-size: it lives in the summary, nothing to free. */
#ifndef HARNESS_REPORT_DIST_ENV_H
#define HARNESS_REPORT_DIST_ENV_H

#include <stddef.h>

#include "backend/backend.h"
#include "dist/dist.h"
#include "folder/rank_summary_out.h"

#define HARNESS_DIST_ENV_MAX_VARS 128
#define HARNESS_DIST_ENV_MAX_ADDRS 32

/* The Slurm facts, from the variables srun sets; "" where unset. */
typedef struct harness_slurm_env {
    char job_id[32], step_id[32], procid[16], nodeid[16], cluster_name[64];
    char job_nodelist[256];
} harness_slurm_env;

/* One address of an interface that is up. */
typedef struct harness_dist_addr {
    char name[32], family[8], address[64];
    char pci_path[160];            /* the interface's device in sysfs ("" virtual): where it sits on PCIe */
} harness_dist_addr;

typedef struct harness_dist_env {
    char mpi_library[256];         /* MPI_Get_library_version's first line, or why there is none */
    char nccl[64];                 /* "2.21.5", or "not loaded" */
    harness_slurm_env slurm;
    /* The variables of the transports (harness_dist_env_steers), sorted by
     * name; a value whose name says secret is replaced. Names and values
     * point into pool. */
    const char *var_name[HARNESS_DIST_ENV_MAX_VARS], *var_value[HARNESS_DIST_ENV_MAX_VARS];
    int n_vars;
    int vars_left_out;             /* that did not fit */
    char pool[16384];
    /* Every address of every interface that is up (getifaddrs), in its order. */
    harness_dist_addr addr[HARNESS_DIST_ENV_MAX_ADDRS];
    int n_addrs;
    char tcp_if_include[256];      /* OMPI_MCA_btl_tcp_if_include, "" unset */
    char gpu_nic_topology[160];
} harness_dist_env;

/* Whether the variable NAME steers a transport and so is recorded:
 * NCCL_*, UCX_*, OMPI_MCA_*, FI_*, PMIX_MCA_*. */
int harness_dist_env_steers(const char *name);

/* Whether NAME looks like it holds a secret (TOKEN, KEY, SECRET, PASSWORD,
 * CREDENTIAL in it): its value is not written. */
int harness_dist_env_secret(const char *name);

/* Everything above, now, for this process of d's job on backend b. */
void harness_dist_env_capture(harness_dist_env *e, const harness_dist *d, const harness_backend *b);

/* The Slurm facts as the folder writes them (NULL where unset), pointing into s. */
harness_slurm_out harness_slurm_out_of(const harness_slurm_env *s);

/* env.distributed's record, pointing into e; addrs holds its n_addrs. */
void harness_dist_env_out_of(const harness_dist_env *e, harness_dist_env_out *o,
                             harness_iface_addr_out addrs[HARNESS_DIST_ENV_MAX_ADDRS]);

#endif
