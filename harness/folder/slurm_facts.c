/* See slurm_facts.h. */
#include "folder/slurm_facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folder/json_fields.h"

/* The members in the order they are written. */
#define N_MEMBERS 6
static const char *const keys[N_MEMBERS] = {"job_id", "step_id", "job_nodelist", "procid", "nodeid", "cluster_name"};

static void values(const harness_slurm_out *s, const char *v[N_MEMBERS])
{
    const char *in_order[N_MEMBERS] = {s->job_id, s->step_id, s->job_nodelist, s->procid, s->nodeid, s->cluster_name};
    memcpy(v, in_order, sizeof in_order);
}

cJSON *harness_slurm_json(const harness_slurm_out *s)
{
    if (!s->job_id)
        return cJSON_CreateNull();
    const char *v[N_MEMBERS];
    values(s, v);
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < N_MEMBERS; i++)
        if (v[i])
            cJSON_AddStringToObject(o, keys[i], v[i]);
    return o;
}

int harness_slurm_read(const cJSON *parent, const char *prefix, const char *path, harness_slurm_out *out,
                       harness_error *err)
{
    memset(out, 0, sizeof *out);
    const cJSON *o;
    if (harness_field_object(parent, prefix, "slurm", path, &o, err) != 0)
        return err->code;
    if (!o)
        return 0;
    char p[96];
    snprintf(p, sizeof p, "%sslurm.", prefix);
    char *v[N_MEMBERS] = {0};
    for (int i = 0; i < N_MEMBERS; i++)
        if (harness_field_string(o, p, keys[i], path, &v[i], err) != 0) {
            for (int j = 0; j < i; j++)
                free(v[j]);
            return err->code;
        }
    *out = (harness_slurm_out){v[0], v[1], v[2], v[3], v[4], v[5]};
    return 0;
}

void harness_slurm_free(harness_slurm_out *s)
{
    const char *v[N_MEMBERS];
    values(s, v);
    for (int i = 0; i < N_MEMBERS; i++)
        free((char *)v[i]);
    memset(s, 0, sizeof *s);
}
