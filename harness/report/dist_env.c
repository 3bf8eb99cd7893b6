/* See dist_env.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* environ, NI_MAXHOST */
#endif
#include "report/dist_env.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "backend/gpu_probe.h"

extern char **environ;

int harness_dist_env_steers(const char *name)
{
    static const char *const prefixes[] = {"NCCL_", "UCX_", "OMPI_MCA_", "FI_", "PMIX_MCA_"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

int harness_dist_env_secret(const char *name)
{
    static const char *const words[] = {"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strcasestr(name, words[i]))
            return 1;
    return 0;
}

static void copy_env(char *out, size_t cap, const char *name)
{
    const char *v = getenv(name);
    snprintf(out, cap, "%s", v ? v : "");
}

static void slurm_facts(harness_slurm_env *s)
{
    copy_env(s->job_id, sizeof s->job_id, "SLURM_JOB_ID");
    copy_env(s->step_id, sizeof s->step_id, "SLURM_STEP_ID");
    copy_env(s->procid, sizeof s->procid, "SLURM_PROCID");
    copy_env(s->nodeid, sizeof s->nodeid, "SLURM_NODEID");
    copy_env(s->cluster_name, sizeof s->cluster_name, "SLURM_CLUSTER_NAME");
    copy_env(s->job_nodelist, sizeof s->job_nodelist, "SLURM_JOB_NODELIST");
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The steering variables, "NAME=value" copied into the pool, then sorted
 * and split (the same job's ranks list them in one order). */
static void variables(harness_dist_env *e)
{
    const char *pairs[HARNESS_DIST_ENV_MAX_VARS];
    size_t used = 0;
    for (char **v = environ; v && *v; v++) {
        const char *eq = strchr(*v, '=');
        size_t len = strlen(*v) + 1;
        if (!eq || !harness_dist_env_steers(*v))
            continue;
        if (e->n_vars == HARNESS_DIST_ENV_MAX_VARS || used + len > sizeof e->pool) {
            e->vars_left_out++;
            continue;
        }
        memcpy(e->pool + used, *v, len);
        pairs[e->n_vars++] = e->pool + used;
        used += len;
    }
    qsort(pairs, (size_t)e->n_vars, sizeof *pairs, by_name);
    for (int i = 0; i < e->n_vars; i++) {
        char *eq = strchr(pairs[i], '=');
        *eq = 0;
        e->var_name[i] = pairs[i];
        e->var_value[i] = harness_dist_env_secret(pairs[i]) ? "(not recorded: the name says secret)" : eq + 1;
    }
}

/* Every address of the interfaces that are up, loopback included (a job of
 * one node talks over it). */
static void interfaces(harness_dist_env *e)
{
    struct ifaddrs *all = NULL;
    if (getifaddrs(&all) != 0)
        return;
    for (struct ifaddrs *a = all; a && e->n_addrs < HARNESS_DIST_ENV_MAX_ADDRS; a = a->ifa_next) {
        if (!a->ifa_addr || !(a->ifa_flags & IFF_UP))
            continue;
        int fam = a->ifa_addr->sa_family;
        const void *raw = fam == AF_INET    ? (const void *)&((struct sockaddr_in *)a->ifa_addr)->sin_addr
                          : fam == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)a->ifa_addr)->sin6_addr
                                            : NULL;
        if (!raw)
            continue;
        harness_dist_addr *x = &e->addr[e->n_addrs];
        if (!inet_ntop(fam, raw, x->address, sizeof x->address))
            continue;
        snprintf(x->name, sizeof x->name, "%s", a->ifa_name);
        snprintf(x->family, sizeof x->family, "%s", fam == AF_INET ? "ipv4" : "ipv6");
        char link[PATH_MAX], real[PATH_MAX];
        snprintf(link, sizeof link, "/sys/class/net/%s/device", a->ifa_name);
        if (realpath(link, real) && strlen(real) < sizeof x->pci_path)   /* a longer one is no use cut */
            memcpy(x->pci_path, real, strlen(real) + 1);
        e->n_addrs++;
    }
    freeifaddrs(all);
}

void harness_dist_env_capture(harness_dist_env *e, const harness_dist *d, const harness_backend *b)
{
    memset(e, 0, sizeof *e);
    snprintf(e->mpi_library, sizeof e->mpi_library, "%s",
             d->library ? d->library : "none (one process: MPI not started)");
    snprintf(e->nccl, sizeof e->nccl, "%s", b && b->info.nccl[0] ? b->info.nccl : "not loaded");
    slurm_facts(&e->slurm);
    variables(e);
    interfaces(e);
    copy_env(e->tcp_if_include, sizeof e->tcp_if_include, "OMPI_MCA_btl_tcp_if_include");
    /* nvidia-smi topo -m is not run from inside a rank (a fork under MPI);
     * the interfaces' PCI paths and the GPU's bus id let a reader see it. */
    snprintf(e->gpu_nic_topology, sizeof e->gpu_nic_topology, "%s",
             harness_gpu_probe()->count > 0 ? "unknown (not read; interfaces[].pci_path say where each NIC sits)"
                                            : "unknown (no GPU visible)");
}

static const char *or_null(const char *s)
{
    return s[0] ? s : NULL;
}

harness_slurm_out harness_slurm_out_of(const harness_slurm_env *s)
{
    return (harness_slurm_out){or_null(s->job_id), or_null(s->step_id), or_null(s->job_nodelist),
                               or_null(s->procid), or_null(s->nodeid), or_null(s->cluster_name)};
}

void harness_dist_env_out_of(const harness_dist_env *e, harness_dist_env_out *o,
                             harness_iface_addr_out addrs[HARNESS_DIST_ENV_MAX_ADDRS])
{
    for (int i = 0; i < e->n_addrs; i++)
        addrs[i] = (harness_iface_addr_out){e->addr[i].name, e->addr[i].family, e->addr[i].address,
                                            or_null(e->addr[i].pci_path)};
    *o = (harness_dist_env_out){
        .mpi_library = e->mpi_library, .nccl = e->nccl, .slurm = harness_slurm_out_of(&e->slurm),
        .var_names = e->var_name, .var_values = e->var_value, .n_vars = (size_t)e->n_vars,
        .vars_left_out = e->vars_left_out, .addrs = addrs, .n_addrs = (size_t)e->n_addrs,
        .tcp_if_include = or_null(e->tcp_if_include), .gpu_nic_topology = e->gpu_nic_topology,
    };
}
