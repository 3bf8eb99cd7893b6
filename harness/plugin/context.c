/* The services that need only a context: registration, logging, failing,
 * notes. */
#include "plugin/context.h"

#include <stdio.h>
#include <stdlib.h>

#include "plugin/registry.h"

void harness_ctx_vfail(harness_ctx *ctx, const char *fmt, va_list ap)
{
    /* Keep the first message: later ones are usually its consequences. */
    if (ctx->failed)
        return;
    vsnprintf(ctx->message, sizeof ctx->message, fmt, ap);
    ctx->failed = 1;
}

void harness_ctx_failf(harness_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    harness_ctx_vfail(ctx, fmt, ap);
    va_end(ap);
}

const char *harness_ctx_message(const harness_ctx *ctx, const char *fallback)
{
    return ctx->failed && ctx->message[0] ? ctx->message : fallback;
}

int harness_svc_register_variant(harness_ctx *ctx, const harness_variant *v)
{
    if (ctx->kind != HARNESS_CTX_REGISTRATION || !ctx->registry) {
        harness_ctx_failf(ctx, "register_variant called outside plugin init");
        return -1;
    }
    harness_error err = {0};
    if (harness_registry_add(ctx->registry, ctx->plugin, v, &err) != 0) {
        ctx->host_refused = !ctx->failed;
        harness_ctx_failf(ctx, "%s", err.msg);
        return -1;
    }
    return 0;
}

void harness_svc_set_unload(harness_ctx *ctx, void (*unload)(void))
{
    if (ctx->kind != HARNESS_CTX_REGISTRATION || !ctx->registry) {
        harness_ctx_failf(ctx, "set_unload called outside plugin init");
        return;
    }
    ctx->registry->plugins[ctx->plugin].unload = unload;
}

void harness_svc_log(harness_ctx *ctx, int level, const char *fmt, ...)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    if (level >= HARNESS_LOG_DEBUG && !getenv("HARNESS_DEBUG"))
        return;
    const char *who = ctx && ctx->variant ? ctx->variant->key : "plugin";
    fprintf(stderr, "harness: %s%s: %s: ", harness_error_rank_label(), who, names[level < 0 ? 0 : level > 3 ? 3 : level]);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int harness_svc_fail(harness_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    harness_ctx_vfail(ctx, fmt, ap);
    va_end(ap);
    return -1;
}

void harness_svc_note(harness_ctx *ctx, const char *key, const char *value)
{
    /* Notes describe what one instance ran; init has no instance to describe. */
    if (ctx->kind != HARNESS_CTX_INSTANCE) {
        harness_ctx_failf(ctx, "note called outside a component instance");
        return;
    }
    char why[256];
    if (harness_notes_set(&ctx->notes, key, value, why, sizeof why) != 0)
        harness_ctx_failf(ctx, "%s", why);
}
