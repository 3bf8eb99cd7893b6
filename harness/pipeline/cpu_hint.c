/* A hint that is a command: "use --device cpu" alone fails for a config
 * whose variant_key names a CUDA variant (device and key then disagree), so
 * the hint names the CPU variant of the same family too, and only when that
 * variant accepts the config as it stands. */
#include "pipeline/cpu_hint.h"

#include <stdio.h>
#include <string.h>

/* Appends `word` to buf, in single quotes when the shell would split or
 * expand it. Returns the new length, or size when it did not fit. */
static size_t append_word(char *buf, size_t len, size_t size, const char *word)
{
    int plain = *word != '\0' && strspn(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_./-=:,+@%") == strlen(word);
    if (len >= size)
        return size;
    int n = snprintf(buf + len, size - len, plain ? " %s" : " '", word);
    if (n < 0 || (size_t)n >= size - len)
        return size;
    len += (size_t)n;
    if (plain)
        return len;
    for (const char *c = word; *c && len < size; c++) {
        n = snprintf(buf + len, size - len, *c == '\'' ? "'\\''" : "%c", *c);
        if (n < 0 || (size_t)n >= size - len)
            return size;
        len += (size_t)n;
    }
    n = snprintf(buf + len, size - len, "'");
    return n == 1 ? len + 1 : size;
}

/* The CPU variant of cfg's family (as `variant_key: FAMILY` with `--device
 * cpu` resolves it: FAMILY/cpu first), when it takes the config's
 * parameters; else NULL. */
static const harness_variant *cpu_variant(harness_config *cfg, const harness_registry *reg)
{
    char family[128];
    snprintf(family, sizeof family, "%.*s", (int)strcspn(cfg->variant_key, "/"), cfg->variant_key);
    harness_error ignored = {0};
    const harness_variant_entry *e = harness_registry_resolve(reg, family, "cpu", &ignored);
    if (!e || harness_config_bind_params(cfg, e->variant.key, e->variant.params, e->variant.n_params, &ignored) != 0)
        return NULL;
    return &e->variant;
}

/* "use --device cpu or auto" is what the backend can say without the
 * config; the command replaces it. */
static void drop_generic_advice(char *msg)
{
    static const char *const tails[] = {", or use --device cpu or auto", "; use --device cpu or auto",
                                        "; use --device cpu"};
    size_t len = strlen(msg);
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        size_t t = strlen(tails[i]);
        if (len >= t && strcmp(msg + len - t, tails[i]) == 0) {
            msg[len - t] = '\0';
            return;
        }
    }
}

void harness_append_cpu_hint(const harness_plan_request *req, harness_config *cfg, const harness_registry *reg,
                             harness_error *err)
{
    const harness_variant *v = cfg && req->config_path ? cpu_variant(cfg, reg) : NULL;
    if (!v)
        return;
    char cmd[1024] = "harness run";
    size_t len = append_word(cmd, strlen(cmd), sizeof cmd, req->config_path);
    len = append_word(cmd, len, sizeof cmd, "--device");
    len = append_word(cmd, len, sizeof cmd, "cpu");
    char key_set[300];
    if (strcmp(cfg->variant_key, v->family) != 0) {
        /* A bare family picks the variant by device; an exact key must change. */
        snprintf(key_set, sizeof key_set, "component.variant_key=%s", v->key);
        len = append_word(cmd, len, sizeof cmd, "--set");
        len = append_word(cmd, len, sizeof cmd, key_set);
    }
    for (size_t i = 0; i < req->n_sets; i++) {
        len = append_word(cmd, len, sizeof cmd, "--set");
        len = append_word(cmd, len, sizeof cmd, req->sets[i]);
    }
    for (size_t i = 0; i < req->n_plugin_paths; i++) {
        len = append_word(cmd, len, sizeof cmd, "--plugin-path");
        len = append_word(cmd, len, sizeof cmd, req->plugin_paths[i]);
    }
    if (len >= sizeof cmd)
        return;
    drop_generic_advice(err->msg);
    size_t used = strlen(err->msg);
    snprintf(err->msg + used, sizeof err->msg - used, "; to run it on the CPU: %s", cmd);
}
