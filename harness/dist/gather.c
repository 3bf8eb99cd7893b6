/* The transfer of gather.h: each staging rank's files to rank 0, one rank
 * after another, each file as a header, its bytes in chunks of
 * HARNESS_GATHER_CHUNK and a trailer with the SHA-256 of what was read, so
 * rank 0 renames into the folder only a file that arrived whole. */
#include "dist/gather.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "folder/folder_format.h"
#include "util/format.h"
#include "util/fsutil.h"
#include "util/sha256.h"

enum { MSG_FILE = 1, MSG_SKIPPED, MSG_DONE, MSG_BROKEN, MSG_END };

/* A header (MSG_FILE, MSG_SKIPPED), a trailer (MSG_DONE with the sha256,
 * MSG_BROKEN when the rank could not read the file through) or the round's
 * end (MSG_END). The ranks of one job share a byte order. */
typedef struct gather_msg {
    int32_t kind, pad;
    uint64_t bytes;
    char name[256];
    char sha256[65];
} gather_msg;

static void hex_of(harness_sha256 *h, char out[65])
{
    uint8_t digest[32];
    harness_sha256_final(h, digest);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

/* A file of this rank's that may go to rank 0: a plain name with this
 * rank's "_ranks_N_rank_r." in it, not a temporary of an atomic write. Rank
 * 0 checks the same, so no rank can write over another's file or the job's. */
static int rank_file_of(const char *name, int world_size, int rank)
{
    char mark[64];
    harness_rank_file(mark, sizeof mark, "", world_size, rank, "");
    return name[0] && name[0] != '.' && !strchr(name, '/') && strlen(name) < 256 && strstr(name, mark) &&
           !strstr(name, ".tmp.");
}

static harness_gather_file *find_file(harness_gather *g, int rank, const char *name)
{
    for (size_t i = 0; i < g->n_files; i++)
        if (g->files[i].rank == rank && strcmp(g->files[i].name, name) == 0)
            return &g->files[i];
    return NULL;
}

/* The record of rank's file `name`, added when new; NULL out of memory. */
static harness_gather_file *record(harness_gather *g, int rank, const char *name)
{
    harness_gather_file *f = find_file(g, rank, name);
    if (f)
        return f;
    if (g->n_files == g->cap_files) {
        size_t cap = g->cap_files ? 2 * g->cap_files : 16;
        harness_gather_file *grown = realloc(g->files, cap * sizeof *grown);
        if (!grown)
            return NULL;
        g->files = grown;
        g->cap_files = cap;
    }
    f = &g->files[g->n_files++];
    *f = (harness_gather_file){.rank = rank};
    snprintf(f->name, sizeof f->name, "%s", name);
    return f;
}

/* ---- the sending side ---------------------------------------------------- */

typedef struct local_file {
    char name[256];
    uint64_t bytes;
    int64_t mtime_ns;
    int order;                     /* what it is worth: 0 the run's outcome, 1 its samples, 2 the rest */
} local_file;

static int starts_with(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(name, prefix, n) == 0 && strncmp(name + n, "_ranks_", 7) == 0;
}

/* The status and summaries first, then the samples the summary names, then
 * traces and memory reports: the bound leaves out what matters least. */
static int worth(const char *name)
{
    if (starts_with(name, HARNESS_PREFIX_STATUS) || starts_with(name, HARNESS_PREFIX_SUMMARY) ||
        starts_with(name, HARNESS_PREFIX_PROFILER_SUMMARY))
        return 0;
    if (starts_with(name, HARNESS_PREFIX_SAMPLES) || starts_with(name, HARNESS_PREFIX_HOST_SAMPLES) ||
        starts_with(name, HARNESS_PREFIX_CLOCK_SAMPLES))
        return 1;
    return 2;
}

static int by_worth_then_size(const void *a, const void *b)
{
    const local_file *x = a, *y = b;
    if (x->order != y->order)
        return x->order - y->order;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* This rank's files in its staging folder in the order they are sent (worth()). */
static int list_files(const harness_dist *d, const harness_gather *g, local_file **out, size_t *n,
                      harness_error *err)
{
    DIR *dir = opendir(g->dir);
    if (!dir)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot read the staging folder %s: %s", g->dir,
                                 strerror(errno));
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        char path[4400];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", g->dir, e->d_name);
        if (!rank_file_of(e->d_name, d->world_size, d->rank) || lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (*n == cap) {
            local_file *grown = realloc(*out, (cap = cap ? 2 * cap : 16) * sizeof *grown);
            if (!grown) {
                closedir(dir);
                return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
            }
            *out = grown;
        }
        local_file *f = &(*out)[(*n)++];
        snprintf(f->name, sizeof f->name, "%s", e->d_name);
        f->bytes = (uint64_t)st.st_size;
        f->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        f->order = worth(f->name);
    }
    closedir(dir);
    if (*n)
        qsort(*out, *n, sizeof **out, by_worth_then_size);
    return 0;
}

static int send_msg(harness_dist *d, const gather_msg *m, harness_error *err)
{
    return d->ops->send(d, 0, m, sizeof *m, HARNESS_GATHER_WAIT_S, err);
}

/* The file's bytes, then the trailer. Its size is the open file's: a
 * newer version renamed over it since the listing is sent whole or not at
 * all. A file that shrank while read is padded to that size and sent as
 * MSG_BROKEN, so rank 0 drops it. */
static int send_file(harness_dist *d, harness_gather *g, const char *name, char *buf, harness_gather_file *f,
                     harness_error *err)
{
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", g->dir, name);
    FILE *in = fopen(path, "rb");
    int broken = !in || fstat(fileno(in), &st) != 0;
    gather_msg m = {.kind = MSG_FILE, .bytes = broken ? 0 : (uint64_t)st.st_size};
    snprintf(m.name, sizeof m.name, "%s", name);
    f->bytes = m.bytes;
    harness_sha256 h;
    harness_sha256_init(&h);
    int rc = send_msg(d, &m, err);
    for (uint64_t left = m.bytes; rc == 0 && left > 0;) {
        size_t want = left < HARNESS_GATHER_CHUNK ? (size_t)left : HARNESS_GATHER_CHUNK;
        size_t got = broken ? 0 : fread(buf, 1, want, in);
        if (got < want) {
            broken = 1;
            memset(buf + got, 0, want - got);
        }
        harness_sha256_update(&h, buf, want);
        rc = d->ops->send(d, 0, buf, want, HARNESS_GATHER_WAIT_S, err);
        left -= want;
    }
    if (in)
        fclose(in);
    if (rc)
        return rc;
    g->lost |= broken;
    m = (gather_msg){.kind = broken ? MSG_BROKEN : MSG_DONE, .bytes = m.bytes};
    hex_of(&h, m.sha256);
    memcpy(f->sha256, m.sha256, sizeof f->sha256);
    return send_msg(d, &m, err);
}

/* What this rank sent so far (a file sent again counts once, at its size now). */
static uint64_t bytes_sent(const harness_gather *g, const harness_gather_file *except)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < g->n_files; i++)
        if (!g->files[i].skipped && &g->files[i] != except)
            sum += g->files[i].bytes;
    return sum;
}

static void warn_skipped(const harness_gather *g, const local_file *lf)
{
    char size[32], bound[32];
    fprintf(stderr, "harness: %swarning: %s (%s) would take this rank over experiment.gather_max_bytes (%s): "
            "not sent to rank 0; it stays in %s\n", harness_error_rank_label(), lf->name,
            harness_format_bytes((double)lf->bytes, size, sizeof size),
            harness_format_bytes((double)g->max_bytes, bound, sizeof bound), g->dir);
    fflush(stderr);
}

/* One file: sent when new or changed since the last round, else nothing. */
static int offer_file(harness_dist *d, harness_gather *g, const local_file *lf, char *buf, harness_error *err)
{
    harness_gather_file *f = find_file(g, d->rank, lf->name);
    if (f && f->bytes == lf->bytes && f->mtime_ns == lf->mtime_ns)
        return 0;
    if (!(f = record(g, d->rank, lf->name)))
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    f->bytes = lf->bytes;
    f->mtime_ns = lf->mtime_ns;
    f->skipped = bytes_sent(g, f) + lf->bytes > (uint64_t)g->max_bytes;
    if (f->skipped) {
        warn_skipped(g, lf);
        gather_msg m = {.kind = MSG_SKIPPED, .bytes = lf->bytes};
        snprintf(m.name, sizeof m.name, "%s", lf->name);
        return send_msg(d, &m, err);
    }
    return send_file(d, g, lf->name, buf, f, err);
}

static int send_round(harness_dist *d, harness_gather *g, char *buf, harness_error *err)
{
    local_file *files = NULL;
    size_t n = 0;
    int listed = list_files(d, g, &files, &n, err), rc = listed;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = offer_file(d, g, &files[i], buf, err);
    free(files);
    /* The end even after this rank could not list its files, so rank 0 is
     * not left waiting; not after a failed send (rank 0 gave up on it). */
    gather_msg end = {.kind = MSG_END};
    harness_error ignored = {0};
    if (rc == 0)
        rc = send_msg(d, &end, err);
    else if (listed != 0)
        send_msg(d, &end, &ignored);
    if (rc)
        g->lost = 1;
    return rc;
}

/* ---- the receiving side (rank 0) ----------------------------------------- */

/* One file of rank r's: its chunks into a temporary beside its place in the
 * folder, renamed there when the trailer's sha256 matches what came. A name
 * that is not rank r's own is received and dropped. */
static int receive_file(harness_dist *d, harness_gather *g, int r, const gather_msg *head, char *buf,
                        int *in_step, harness_error *err)
{
    char path[4400], tmp[4096];
    int named = head->name[sizeof head->name - 1] == '\0' && rank_file_of(head->name, d->world_size, r);
    snprintf(path, sizeof path, "%s/%s", g->dir, named ? head->name : "");
    harness_error werr = {0};
    FILE *out = named ? harness_atomic_open(path, tmp, &werr) : NULL;
    harness_sha256 h;
    harness_sha256_init(&h);
    int wrote = out != NULL;
    for (uint64_t left = head->bytes; left > 0;) {
        size_t len = 0;
        if (d->ops->recv(d, r, buf, HARNESS_GATHER_CHUNK, &len, HARNESS_GATHER_WAIT_S, err) != 0 || len == 0 ||
            len > left) {
            *in_step = 0;
            if (out)
                harness_atomic_abort(out, tmp);
            return err->code ? err->code
                             : harness_error_set(err, HARNESS_EXIT_RUNTIME, "rank %d sent a chunk of %zu bytes "
                                                 "where %llu were left of %s", r, len, (unsigned long long)left,
                                                 head->name);
        }
        harness_sha256_update(&h, buf, len);
        wrote = wrote && fwrite(buf, 1, len, out) == len;
        left -= len;
    }
    gather_msg tail;
    size_t len = 0;
    int rc = d->ops->recv(d, r, &tail, sizeof tail, &len, HARNESS_GATHER_WAIT_S, err);
    char sha[65];
    hex_of(&h, sha);
    int whole = rc == 0 && len == sizeof tail && tail.kind == MSG_DONE && strcmp(tail.sha256, sha) == 0;
    if (out && whole && wrote && harness_atomic_commit(out, tmp, path, &werr) == 0) {
        harness_gather_file *f = record(g, r, head->name);
        if (f) {
            f->bytes = head->bytes;
            f->skipped = 0;
            memcpy(f->sha256, sha, sizeof sha);
        }
        return 0;
    }
    if (out && !(whole && wrote))
        harness_atomic_abort(out, tmp);
    if (rc || len != sizeof tail) {
        *in_step = 0;
        return rc ? rc : harness_error_set(err, HARNESS_EXIT_RUNTIME, "rank %d sent %zu bytes where the trailer "
                                           "of %s belongs", r, len, head->name);
    }
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s from rank %d: %s", named ? head->name : "a file",
                             r, werr.code ? werr.msg : !named ? "not a file of that rank's; dropped"
                                                     : "the rank could not read it through, or it did not arrive whole");
}

/* Rank r's round, until its MSG_END. A file that failed is noted and the
 * next one received; a rank that stopped sending is given up on. */
static int receive_round(harness_dist *d, harness_gather *g, int r, char *buf, harness_error *err)
{
    harness_error first = {0};
    for (;;) {
        gather_msg m;
        size_t len = 0;
        harness_error ferr = {0};
        if (d->ops->recv(d, r, &m, sizeof m, &len, HARNESS_GATHER_WAIT_S, &ferr) != 0 || len != sizeof m) {
            if (!ferr.code)
                harness_error_set(&ferr, HARNESS_EXIT_RUNTIME, "rank %d sent a message of %zu bytes where a "
                                  "file's header belongs", r, len);
            *err = first.code ? first : ferr;
            return err->code;
        }
        m.name[sizeof m.name - 1] = '\0';
        if (m.kind == MSG_END)
            break;
        if (m.kind == MSG_SKIPPED) {
            harness_gather_file *f = record(g, r, m.name);
            if (f) {
                f->bytes = m.bytes;
                f->skipped = 1;
            }
            continue;
        }
        int in_step = m.kind == MSG_FILE;
        int rc = in_step ? receive_file(d, g, r, &m, buf, &in_step, &ferr)
                         : harness_error_set(&ferr, HARNESS_EXIT_RUNTIME, "rank %d sent a message of kind %d where "
                                             "a file's header belongs", r, (int)m.kind);
        if (rc && !first.code)
            first = ferr;
        if (rc && !in_step)
            break;                 /* the stream is out of step: no use reading on */
    }
    *err = first;
    return err->code;
}

int harness_gather_round(harness_dist *d, harness_gather *g, harness_error *err)
{
    if (!g->on || (d->rank != 0 && !g->staging))
        return 0;
    char *buf = malloc(HARNESS_GATHER_CHUNK);
    if (!buf)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory gathering the ranks' files");
    int rc = 0;
    if (d->rank != 0)
        rc = send_round(d, g, buf, err);
    for (int r = 1; d->rank == 0 && r < d->world_size; r++) {
        harness_error rerr = {0};
        if (g->stages[1 + r] == '1' && receive_round(d, g, r, buf, &rerr) != 0) {
            g->lost = 1;
            if (!rc)
                *err = rerr;
            rc = rerr.code;
        }
    }
    free(buf);
    if (rc)
        harness_error_set(err, err->code, "%s; the folder lacks files of that rank", err->msg);
    return rc;
}

/* ---- the end ----------------------------------------------------------- */

static int any_skipped(const harness_gather *g)
{
    for (size_t i = 0; i < g->n_files; i++)
        if (g->files[i].skipped)
            return 1;
    return 0;
}

/* The staging folder's files and the folders, when every file reached rank 0. */
static void remove_staging(const harness_gather *g)
{
    DIR *dir = opendir(g->dir);
    if (dir) {
        for (struct dirent *e; (e = readdir(dir));) {
            char path[4400];
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
                (size_t)snprintf(path, sizeof path, "%s/%s", g->dir, e->d_name) < sizeof path)
                unlink(path);
        }
        closedir(dir);
    }
    rmdir(g->dir);
    rmdir(g->staging_root);
}

void harness_gather_end(harness_gather *g)
{
    if (g->staging) {
        if (!g->lost && !any_skipped(g))
            remove_staging(g);
        else
            fprintf(stderr, "harness: %snot every file of this rank reached rank 0's folder: they stay in %s\n",
                    harness_error_rank_label(), g->dir);
    }
    free(g->files);
    free(g->stages);
    g->files = NULL;
    g->stages = NULL;
    g->n_files = g->cap_files = 0;
}
