/* The probe of gather.h: does every rank see the experiment folder rank 0
 * created? A token with a random value, not the folder's name alone: a
 * node may hold a folder of the same path that is not rank 0's. */
#include "dist/gather.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "folder/folder_format.h"
#include "util/fsutil.h"

#define TOKEN_BYTES 16
#define TOKEN_CAP (2 * TOKEN_BYTES + 1)

/* Hex digits no other folder holds; "" when the kernel gave no random bytes. */
static void make_token(char token[TOKEN_CAP])
{
    unsigned char raw[TOKEN_BYTES];
    token[0] = '\0';
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        return;
    for (int i = 0; i < TOKEN_BYTES; i++)
        snprintf(token + 2 * i, 3, "%02x", raw[i]);
}

/* Whether the file at path holds exactly the token. */
static int holds_token(const char *path, const char *token)
{
    char buf[TOKEN_CAP + 1];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    return n == (ssize_t)strlen(token) && memcmp(buf, token, (size_t)n) == 0;
}

/* Rank 0: the token written into the folder and told to every rank; ""
 * (the others then stop too) when it could not be written. */
static int share_token(harness_dist *d, const char *probe, char token[TOKEN_CAP], harness_error *err)
{
    harness_error werr = {0};
    if (d->rank == 0) {
        make_token(token);
        if (!token[0])
            harness_error_set(&werr, HARNESS_EXIT_RUNTIME, "no random bytes for the folder probe: %s",
                              strerror(errno));
        else if (harness_write_atomic(probe, token, strlen(token), &werr) != 0)
            token[0] = '\0';
    }
    if (d->ops->broadcast_string(d, 0, token, TOKEN_CAP, err) != 0)
        return err->code;
    if (token[0])
        return 0;
    if (werr.code)
        *err = werr;
    else
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "rank %d: rank 0 could not probe the experiment folder",
                          d->rank);
    return err->code;
}

/* Rank 0's verdict for every rank: the first character 'N' (never, and a
 * rank does not see the folder: then '1' marks those), 'G' (files travel:
 * '1' marks the ranks that stage) or '-' (they do not). */
static void decide(const char *seen, int n, const char *mode, char *verdict)
{
    int blind = 0;
    for (int r = 0; r < n; r++)
        blind |= seen[r] != '1';
    int never = strcmp(mode, "never") == 0, always = strcmp(mode, "always") == 0;
    verdict[0] = never && blind ? 'N' : always || blind ? 'G' : '-';
    for (int r = 0; r < n; r++)
        verdict[1 + r] = verdict[0] == 'N' ? (seen[r] != '1' ? '1' : '0')
                                           : (r != 0 && (always || seen[r] != '1') ? '1' : '0');
    verdict[1 + n] = '\0';
}

static int never_but_blind(const harness_dist *d, const char *verdict, const char *folder, harness_error *err)
{
    char ranks[256] = "";
    size_t len = 0;
    int count = 0;
    for (int r = 0; r < d->world_size; r++)
        if (verdict[1 + r] == '1' && count++ < 8 && len < sizeof ranks)
            len += (size_t)snprintf(ranks + len, sizeof ranks - len, "%s%d", len ? ", " : "", r);
    return harness_error_set(err, HARNESS_EXIT_RUNTIME,
                             "rank%s %s%s of %d do%s not see the experiment folder %s (experiment.gather: never): "
                             "put experiment.output_dir on a file system every node shares, or set "
                             "experiment.gather: auto to send the files to rank 0",
                             count > 1 ? "s" : "", ranks, count > 8 ? ", ..." : "", d->world_size,
                             count > 1 ? "" : "es", folder);
}

/* This rank's staging folder: <TMPDIR>/harness-gather-XXXXXX/<folder's name>. */
static int make_staging(const char *folder, harness_gather *g, harness_error *err)
{
    const char *tmp = getenv("TMPDIR");
    const char *base = strrchr(folder, '/');
    base = base ? base + 1 : folder;
    if (!tmp || !*tmp)
        tmp = "/tmp";
    if ((size_t)snprintf(g->staging_root, sizeof g->staging_root, "%s/harness-gather-XXXXXX", tmp) >=
            sizeof g->staging_root || !mkdtemp(g->staging_root)) {
        int e = errno;
        g->staging_root[0] = '\0';
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot create a staging folder in %s: %s", tmp,
                                 strerror(e));
    }
    if ((size_t)snprintf(g->dir, sizeof g->dir, "%s/%s", g->staging_root, base) >= sizeof g->dir ||
        mkdir(g->dir, 0777) != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot create the staging folder %s: %s", g->dir,
                                 strerror(errno));
    g->staging = 1;
    return 0;
}

int harness_gather_probe(harness_dist *d, const char *mode, int64_t max_bytes, const char *folder,
                         harness_gather *g, harness_error *err)
{
    *g = (harness_gather){.max_bytes = max_bytes};
    snprintf(g->dir, sizeof g->dir, "%s", folder);
    if (d->world_size == 1)
        return 0;
    char probe[4400], token[TOKEN_CAP] = "";
    snprintf(probe, sizeof probe, "%s/%s", folder, HARNESS_FILE_GATHER_PROBE);
    if (share_token(d, probe, token, err) != 0)
        return err->code;
    char mine = d->rank == 0 || holds_token(probe, token) ? '1' : '0';
    char *seen = d->rank == 0 ? calloc((size_t)d->world_size, 1) : NULL;
    g->stages = calloc((size_t)d->world_size + 2, 1);
    if (!g->stages || (d->rank == 0 && !seen))  /* the others are at the gather below */
        d->ops->abort(d, HARNESS_EXIT_RUNTIME, "out of memory probing the experiment folder");
    int rc = d->ops->gather(d, &mine, 1, seen, err);
    if (d->rank == 0) {
        unlink(probe);
        if (rc == 0 && seen && g->stages)
            decide(seen, d->world_size, mode, g->stages);
    }
    free(seen);
    if (rc != 0)
        return err->code;
    if (d->ops->broadcast_string(d, 0, g->stages, (size_t)d->world_size + 2, err) != 0)
        return err->code;
    if (g->stages[0] == 'N')
        return never_but_blind(d, g->stages, folder, err);
    g->on = g->stages[0] == 'G';
    if (g->on && g->stages[1 + d->rank] == '1')
        return make_staging(folder, g, err);
    return 0;
}
