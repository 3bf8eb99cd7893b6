/* rank_summary_write.c - summary_ranks_N_rank_r.json from its record
 * (rank_summary_out.h): the schema id, the head of the summary and the
 * members in the file's order, each section by its writer, which sits
 * beside its reader (rank_summary_timing.c, rank_summary_extra.c,
 * rank_summary_sections.c) so that a key is added to both at once. */
#include "folder/rank_summary.h"

#include <cjson/cJSON.h>
#include <math.h>

#include "folder/folder_format.h"
#include "folder/rank_summary_extra.h"
#include "folder/rank_summary_sections.h"
#include "folder/rank_summary_timing.h"
#include "util/json_number.h"
#include "util/json_utf8.h"

/* A subtree the record carries, or null when it has none (or ran out of memory). */
static void subtree(cJSON *root, const char *key, cJSON **part)
{
    cJSON_AddItemToObject(root, key, *part ? *part : cJSON_CreateNull());
    *part = NULL;                  /* root holds it now */
}

char *harness_rank_summary_write(harness_rank_summary_out *o)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", HARNESS_SCHEMA_SUMMARY);
    cJSON_AddStringToObject(root, "status", o->status);
    if (o->error && o->error[0])
        cJSON_AddStringToObject(root, "error", o->error);
    else
        cJSON_AddNullToObject(root, "error");
    cJSON_AddBoolToObject(root, "interrupted", o->interrupted);
    cJSON_AddNumberToObject(root, "rank", o->rank);
    cJSON_AddNumberToObject(root, "world_size", o->world_size);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(root, "experiment"), "name", o->experiment_name);
    cJSON *comp = cJSON_AddObjectToObject(root, "component");
    cJSON_AddStringToObject(comp, "variant_key", o->variant_key);
    cJSON_AddStringToObject(comp, "requested", o->requested);
    cJSON_AddStringToObject(comp, "plugin", o->plugin ? o->plugin : "");
    subtree(comp, "config", &o->config);
    subtree(root, "component_notes", &o->component_notes);
    cJSON *dev = cJSON_AddObjectToObject(root, "device");
    cJSON_AddStringToObject(dev, "type", o->device_type);
    cJSON_AddStringToObject(dev, "name", o->device_name);
    cJSON_AddItemToObject(root, "validation", harness_rs_write_validation(&o->validation));
    cJSON_AddItemToObject(root, "schedule", harness_rs_write_schedule(&o->schedule));
    cJSON_AddItemToObject(root, "timing", harness_rs_write_timing(&o->timing));
    cJSON_AddItemToObject(root, "throughput", harness_rs_write_throughput(&o->throughput));
    cJSON_AddItemToObject(root, "energy", harness_rs_write_energy(&o->energy));
    cJSON_AddItemToObject(root, "roofline", harness_rs_write_roofline(&o->roofline));
    cJSON_AddItemToObject(root, "regions", harness_rs_write_regions(o->regions, o->n_regions));
    cJSON_AddItemToObject(root, "memory", harness_rs_write_memory(&o->memory));
    cJSON_AddItemToObject(root, "trace", harness_rs_write_trace(&o->trace));
    cJSON_AddItemToObject(root, "communication", harness_rs_write_communication(o->communication,
                                                                                o->n_communication));
    cJSON_AddItemToObject(root, "gpu_kernels", harness_rs_write_gpu_kernels(o->has_gpu_kernels, o->gpu_kernels,
                                                                       o->n_gpu_kernels));
    harness_json_add_num(root, "gpu_activity_dropped", o->gpu_activity_dropped);
    harness_json_add_num(root, "gpu_activity_untimed", o->gpu_activity_untimed);
    cJSON_AddItemToObject(root, "env", harness_rs_write_env(&o->env));
    cJSON_AddItemToObject(root, "warnings", harness_rs_write_warnings(o->warnings, o->n_warnings));
    cJSON_AddItemToObject(root, "impossible_figure", harness_rs_write_impossible(&o->impossible_figure));
    cJSON_AddItemToObject(root, "noise", harness_rs_write_noise(&o->noise));
    harness_json_scrub_utf8(root);  /* names from file names: any bytes */
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}
