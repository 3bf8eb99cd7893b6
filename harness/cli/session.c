#include "cli/session.h"

#include <string.h>

void harness_session_init(harness_session *s, const harness_cli_opts *opts)
{
    memset(s, 0, sizeof *s);
    s->opts = opts;
    harness_dist_single_init(&s->dist);
}

harness_backend *harness_session_backend(harness_session *s, const char *device, const harness_backend_options *opts,
                                        harness_error *err)
{
    /* Reused across sweep points while the device and its options stay. */
    if (s->backend_open && strcmp(s->backend.name, device) == 0 && memcmp(&s->backend.opts, opts, sizeof *opts) == 0)
        return &s->backend;
    if (s->backend_open)
        harness_backend_close(&s->backend);
    s->backend_open = 0;
    if (harness_backend_open(&s->backend, device, opts, err) != 0)
        return NULL;
    s->backend_open = 1;
    return &s->backend;
}

void harness_session_end(harness_session *s)
{
    if (s->backend_open)
        harness_backend_close(&s->backend);
    s->dist.ops->finalize(&s->dist);
    memset(s, 0, sizeof *s);
}
