/* context.h - the host side of `harness_ctx`, the handle a plugin passes
 * back to every service, and the services that need nothing but it.
 *
 * A context is either a registration (during the plugin's init: variants go
 * to a registry) or a component instance (run/instance.h embeds a context as
 * its first member and adds parameters, memory, data and profiling). The
 * registry knows only this part, so loading plugins does not depend on what
 * later stages give an instance. */
#ifndef HARNESS_PLUGIN_CONTEXT_H
#define HARNESS_PLUGIN_CONTEXT_H

#include <stdarg.h>
#include <stddef.h>

#include "harness/plugin.h"
#include "plugin/notes.h"

struct harness_registry;

typedef enum { HARNESS_CTX_REGISTRATION = 1, HARNESS_CTX_INSTANCE } harness_ctx_kind;

struct harness_ctx {
    harness_ctx_kind kind;
    /* Registration: where registered variants go. */
    struct harness_registry *registry;
    size_t plugin;                 /* index into registry->plugins */
    /* Instance: the variant it runs (NULL during registration). */
    const harness_variant *variant;
    /* Set by fail() or by a service the plugin misused; the first message wins. */
    int failed;
    int host_refused;              /* the failure is the host's refusal of what init registered */
    /* Registration: init has returned. A plugin that kept the pointer and
     * calls a service with it (register_variant from create) is refused,
     * and the failure is recorded on the instance whose callback runs
     * (harness_ctx_set_live), so that callback fails with the message. */
    int closed;
    char message[1024];
    /* Instance: what the plugin recorded with note() (ABI 2.3), for the summary. */
    harness_notes notes;
};

/* The instance context whose callbacks run now (run/instance.c sets it as
 * it initialises one; NULL clears it, only if it is still `ctx`). A failure
 * recorded on a closed registration context goes there. */
void harness_ctx_set_live(harness_ctx *ctx);
void harness_ctx_clear_live(const harness_ctx *ctx);

/* Whether ctx is a registration context its init has returned from; says
 * so (on the live instance) naming `service`. */
int harness_ctx_refuse_closed(harness_ctx *ctx, const char *service);

/* Record a failure on ctx (kept only when it is the first). */
void harness_ctx_vfail(harness_ctx *ctx, const char *fmt, va_list ap);
void harness_ctx_failf(harness_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The plugin's message, or `fallback` when it left none. */
const char *harness_ctx_message(const harness_ctx *ctx, const char *fallback);

/* The services every context supports: log and fail; note (instances
 * only). register_variant and set_unload (registration only) are the
 * registry's (plugin/registry.h); the full table adds the instance services. */
void harness_svc_log(harness_ctx *ctx, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int harness_svc_fail(harness_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* note (ABI 2.3): instances only; a bad key or value fails the callback. */
void harness_svc_note(harness_ctx *ctx, const char *key, const char *value);

#endif
