/* The services that need only a context: logging, failing, notes. */
#include "plugin/context.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/error.h"

/* One point runs at a time in a process, so one live instance. */
static harness_ctx *live;

void harness_ctx_set_live(harness_ctx *ctx)
{
    live = ctx;
}

void harness_ctx_clear_live(const harness_ctx *ctx)
{
    if (live == ctx)
        live = NULL;
}

int harness_ctx_refuse_closed(harness_ctx *ctx, const char *service)
{
    if (ctx->kind != HARNESS_CTX_REGISTRATION || !ctx->closed)
        return 0;
    harness_ctx_failf(ctx, "%s called outside init, with the context of the plugin's init kept past it; call "
                      "registration services from init only, and instance services with the context the "
                      "callback was given", service);
    return 1;
}

void harness_ctx_vfail(harness_ctx *ctx, const char *fmt, va_list ap)
{
    /* A kept init context: its init is long over and nobody reads it; the
     * callback running now is the one that misused it. */
    if (ctx->kind == HARNESS_CTX_REGISTRATION && ctx->closed && live)
        ctx = live;
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
