/* rank_summary_write.c - summary_ranks_N_rank_r.json's frame: the schema
 * id, the head of the summary and the members in the file's order, beside
 * its reader (rank_summary.c) so that a key is added to both at once. The
 * sections' contents are report/summary_json.c's still (rank_summary.h). */
#include "folder/rank_summary.h"

#include <cjson/cJSON.h>
#include <math.h>

#include "folder/folder_format.h"
#include "util/json_number.h"
#include "util/json_utf8.h"

/* A section, or null when report/ had none (or ran out of memory). */
static void section(cJSON *root, const char *key, cJSON **part)
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
    section(comp, "config", &o->config);
    section(root, "component_notes", &o->component_notes);
    cJSON *dev = cJSON_AddObjectToObject(root, "device");
    cJSON_AddStringToObject(dev, "type", o->device_type);
    cJSON_AddStringToObject(dev, "name", o->device_name);
    section(root, "validation", &o->validation);
    section(root, "schedule", &o->schedule);
    section(root, "timing", &o->timing);
    section(root, "throughput", &o->throughput);
    section(root, "energy", &o->energy);
    section(root, "roofline", &o->roofline);
    section(root, "regions", &o->regions);
    section(root, "memory", &o->memory);
    section(root, "trace", &o->trace);
    section(root, "communication", &o->communication);
    section(root, "gpu_kernels", &o->gpu_kernels);
    harness_json_add_num(root, "gpu_activity_dropped", o->gpu_activity_dropped);
    harness_json_add_num(root, "gpu_activity_untimed", o->gpu_activity_untimed);
    section(root, "env", &o->env);
    section(root, "warnings", &o->warnings);
    section(root, "impossible_figure", &o->impossible_figure);
    section(root, "noise", &o->noise);
    harness_json_scrub_utf8(root);  /* names from file names: any bytes */
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}
