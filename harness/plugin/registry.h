/* registry.h - plugin loading (libltdl) and variants by key.
 *
 * Search path, first match of a module name wins: --plugin-path, the
 * config's plugin_path, $HARNESS_PLUGIN_PATH (colon-separated), the build
 * tree's plugins/ (when this binary runs from the build tree), $(pkglibdir). */
#ifndef HARNESS_REGISTRY_H
#define HARNESS_REGISTRY_H

#include <stddef.h>

#include "util/error.h"
#include "harness/plugin.h"

typedef struct harness_plugin {
    char *path;                    /* the file lt_dlopenext loaded, or was asked to */
    char *name;                    /* module name: the file name without extension */
    void *handle;                  /* lt_dlhandle */
    uint16_t abi_major, abi_minor; /* what it was built against */
    void (*unload)(void);          /* set_unload's (ABI 2.3), called by harness_registry_free; or NULL */
    struct harness_ctx *init_ctx;  /* its init's context, closed once init returned (plugin/context.h) */
    int resident;                  /* never closed: threads it started may still run */
} harness_plugin;

typedef struct harness_variant_entry {
    harness_variant variant;       /* copy at this host's struct size; .params points to `params`; its
                                    * strings are the harness's own copies (plugin/variant_strings.h) */
    harness_param *params;         /* copies at this host's struct size, owned */
    size_t plugin;                 /* index into registry->plugins */
} harness_variant_entry;

/* A module file in a searched directory that could not be loaded: a
 * warning, until a run needs a variant it may hold. */
typedef struct harness_broken_plugin {
    char *path;
    char *name;                    /* module name */
    char *why;                     /* the loader's error message */
    char *duplicate_key;           /* a key another plugin registered first, or NULL */
} harness_broken_plugin;

typedef struct harness_registry {
    harness_plugin *plugins;
    size_t n_plugins;
    harness_variant_entry *variants;
    size_t n_variants;
    char **searched;               /* directories looked in, for error messages */
    size_t n_searched;
    harness_broken_plugin *broken; /* skipped while loading directories */
    size_t n_broken;
    char *duplicate;               /* the key the last failure registered twice, or NULL */
    const harness_services *services; /* handed to each plugin's init */
} harness_registry;

/* `services` is the table plugins get (run/instance.h builds the full one);
 * the registry itself needs only its register_variant. */
int harness_registry_init(harness_registry *reg, const harness_services *services, harness_error *err);
/* Calls each plugin's unload callback (set_unload), in load order, then
 * closes the modules. */
void harness_registry_free(harness_registry *reg);

/* Keep `plugin`'s module mapped to the end of the process: a thread it
 * started may still run its code (pipeline/component.c counts them). The
 * registry is const for its callers; the flag is on the plugin's entry,
 * which the registry owns through a pointer. */
void harness_registry_keep_loaded(const harness_registry *reg, size_t plugin);

/* Load one module file (with or without extension). Errors: not found,
 * wrong ABI (both versions named), missing entry point, failing init (the
 * plugin's message), duplicate key (both plugin paths). */
int harness_registry_load_file(harness_registry *reg, const char *path, harness_error *err);

/* Load every module in dir (*.la, else *.so) whose name is not loaded yet.
 * A missing directory is skipped unless `must_exist`. A module that cannot
 * be loaded is remembered in `broken` and skipped, also one that registers
 * a key another plugin has: the key is then refused by
 * harness_registry_resolve (which plugin should win is not ours to guess),
 * while the other keys stay usable. */
int harness_registry_load_dir(harness_registry *reg, const char *dir, int must_exist, harness_error *err);

/* The full search path in order (see above); `extra` may be NULL. */
int harness_registry_load_search_path(harness_registry *reg, const char *const *extra, size_t n_extra,
                                      harness_error *err);

/* Called by the register_variant service. */
int harness_registry_add(harness_registry *reg, size_t plugin, const harness_variant *v, harness_error *err);

/* The register_variant service of a registration context (plugin/context.h):
 * harness_registry_add into ctx's registry, a refusal recorded on ctx. */
int harness_svc_register_variant(harness_ctx *ctx, const harness_variant *v);
/* set_unload (ABI 2.3): registration only. */
void harness_svc_set_unload(harness_ctx *ctx, void (*unload)(void));

/* An exact key ("rms_norm/cpu"), or a family ("rms_norm") resolved for
 * `device` ("cpu" or "cuda"). Unknown keys get a did-you-mean and the list
 * of directories searched (HARNESS_EXIT_USAGE), and the broken modules; when
 * one of those is named like the key's family, the error is that module's
 * (HARNESS_EXIT_RUNTIME). Messages are about component.variant_key but do
 * not say so: the caller adds where it was written. */
const harness_variant_entry *harness_registry_resolve(const harness_registry *reg, const char *key,
                                                      const char *device, harness_error *err);

#endif
