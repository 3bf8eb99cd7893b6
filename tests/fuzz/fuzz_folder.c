/* libFuzzer target: reading an experiment folder back, as compare, export
 * and record do - the folder search, file names with ranks, status files,
 * summaries and samples side files - from a folder built from the input;
 * and every file of it through each of the folder stage's file readers
 * (harness/folder/), whatever its name.
 * Whatever the folder holds (FIFOs, links to itself or to /dev/zero, odd
 * names), reading must end, without a crash or a leak.
 *
 * The input is records separated by two NUL bytes; each is a kind byte,
 * a file name, a NUL, then (for a file) its bytes. Kinds: 'f' a file,
 * 'p' a FIFO, 'l' a link to the folder itself, 'u' a link to its parent,
 * 'z' a link to /dev/zero, 'd' a subfolder (later names may go in it:
 * "d/x" is written as d_x, so names stay within the folder). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare/compare.h"
#include "compare/folder_ranks.h"
#include "folder/rank_summary.h"
#include "folder/status.h"

#define MAX_RECORDS 16

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* A name of [A-Za-z0-9_.-] only, at most 100 bytes; "" when none is left. */
static void clean_name(const uint8_t *p, size_t n, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < 100; i++) {
        char c = (char)p[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                 c == '.' || c == '-';
        out[k++] = ok ? c : '_';
    }
    out[k] = '\0';
    if (strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
        out[0] = '\0';
}

static void make_entry(const char *dir, const uint8_t *rec, size_t n)
{
    if (n < 2)
        return;
    const uint8_t *name = rec + 1, *nul = memchr(name, 0, n - 1);
    size_t name_len = nul ? (size_t)(nul - name) : n - 1;
    char clean[128], path[4096];
    clean_name(name, name_len, clean);
    if (!clean[0])
        return;
    snprintf(path, sizeof path, "%s/%s", dir, clean);
    const uint8_t *body = nul ? nul + 1 : rec + n;
    size_t body_len = (size_t)(rec + n - body);
    switch (rec[0]) {
    case 'f': {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
            if (body_len && write(fd, body, body_len) < 0)
                (void)0;
            close(fd);
        }
        break;
    }
    case 'p': mkfifo(path, 0644); break;
    case 'l': (void)symlink(".", path); break;
    case 'u': (void)symlink("..", path); break;
    case 'z': (void)symlink("/dev/zero", path); break;
    case 'd': mkdir(path, 0755); break;
    default: break;
    }
}

/* Every entry of dir through the codec's readers that take a path. */
static void read_each(const char *dir)
{
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        harness_error err = {0};
        harness_status_record st;
        if (harness_status_read(path, 1u << 20, &st, &err) == 0)
            harness_status_record_free(&st);
        for (int flags = 0; flags <= HARNESS_RANK_SUMMARY_NO_SAMPLES; flags += HARNESS_RANK_SUMMARY_NO_SAMPLES) {
            harness_rank_summary r;
            err = (harness_error){0};
            if (harness_rank_summary_read(path, flags, &r, &err) == 0)
                harness_rank_summary_free(&r);
        }
    }
    if (d)
        closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char root[] = "/tmp/harness-fuzz-folder.XXXXXX";
    if (!mkdtemp(root))
        return 0;
    char dir[sizeof root + 8];
    snprintf(dir, sizeof dir, "%s/run", root);
    mkdir(dir, 0755);
    size_t start = 0;
    for (int r = 0; r < MAX_RECORDS && start < size; r++) {
        size_t end = start;
        while (end + 1 < size && !(data[end] == 0 && data[end + 1] == 0))
            end++;
        if (end + 1 >= size)
            end = size;
        make_entry(dir, data + start, end - start);
        start = end + 2;
    }
    read_each(dir);
    harness_error err = {0};
    harness_folder_ranks fr;
    if (harness_folder_ranks_read(dir, &fr, &err) == 0)
        harness_folder_ranks_free(&fr);
    harness_compare_side side;
    err = (harness_error){0};
    if (harness_compare_side_load(root, &side, &err) == 0)
        harness_compare_side_free(&side);
    nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
