#define _GNU_SOURCE                /* asprintf */
#include "pipeline/session.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "dist/launcher.h"
#include "report/warnings.h"
#include "util/table_fit.h"
#include "util/term.h"

static const char *getenv_text(const char *name)
{
    return getenv(name);
}

#ifdef HAVE_MPI                    /* only ranks started by MPI share a node */
/* Ranks on one node share its cores: unless the user chose (OMP_NUM_THREADS),
 * each rank's OpenMP team gets its share, so N ranks do not run N x cores
 * threads. */
static void share_cores(const harness_dist *d)
{
#ifdef _OPENMP
    if (d->local_size > 1 && !getenv("OMP_NUM_THREADS")) {
        int share = omp_get_num_procs() / d->local_size;
        omp_set_num_threads(share > 0 ? share : 1);
    }
#else
    (void)d;
#endif
}
#endif

int harness_session_init(harness_session *s, int quiet, harness_error *err)
{
    memset(s, 0, sizeof *s);
    s->quiet = quiet;
    harness_launch l = harness_launch_detect(getenv_text);
    if (l.world_size == 1) {
        harness_dist_single_init(&s->dist);
        return 0;
    }
#ifdef HAVE_MPI
    if (harness_dist_mpi_init(&s->dist, err) != 0)
        return err->code;
    harness_error_set_rank(s->dist.rank, s->dist.world_size);
    share_cores(&s->dist);
    return 0;
#else
    return harness_error_set(err, HARNESS_EXIT_USAGE, "started as one of %d ranks (%s=%d), but this harness was "
                             "built without MPI, so every rank would run alone into the same folder; install "
                             "Open MPI (scripts/setup does) and rebuild (./configure --with-mpi)", l.world_size,
                             l.variable, l.world_size);
#endif
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

void harness_session_warn(harness_session *s, const harness_warnings *w, const char *dir)
{
    if (!s->quiet) {
        char *text = NULL;
        size_t len = 0;
        FILE *m = s->width > 0 ? open_memstream(&text, &len) : NULL;
        harness_warnings_print(w, m ? m : stderr);
        if (m && fclose(m) == 0)   /* within the terminal's width, wrapped at spaces */
            harness_wrap_fputs(stderr, text, s->width, 2);
        free(text);
        return;
    }
    for (size_t i = 0; i < w->n; i++) {
        char *line = NULL;
        int color = harness_color_on(stderr);
        int n = asprintf(&line, "harness: %swarning:%s %s: %s\n", color ? HARNESS_SGR_YELLOW : "",
                         color ? HARNESS_SGR_RESET : "", dir, w->text[i]);
        char *grown = n > 0 ? realloc(s->deferred, s->deferred_len + (size_t)n + 1) : NULL;
        if (!grown) {              /* no memory to keep it: say it now rather than never */
            fprintf(stderr, "harness: warning: %s: %s\n", dir, w->text[i]);
            free(line);
            continue;
        }
        memcpy(grown + s->deferred_len, line, (size_t)n + 1);
        s->deferred = grown;
        s->deferred_len += (size_t)n;
        free(line);
    }
}

void harness_session_end(harness_session *s)
{
    if (s->deferred) {
        fflush(stdout);            /* the paths first, then what qualifies them */
        harness_wrap_fputs(stderr, s->deferred, s->width, 2);
        free(s->deferred);
    }
    if (s->backend_open)
        harness_backend_close(&s->backend);
    s->dist.ops->finalize(&s->dist);
    memset(s, 0, sizeof *s);
}
