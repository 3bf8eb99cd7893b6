/* status.json, written without malloc or stdio so that the signal handlers
 * of run/guard.c can call it (see status.h); and its one reader, at the end. */
#include "folder/status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "folder/folder_format.h"

/* A bounded buffer that silently stops at its end; the caller checks
 * `full` once. No snprintf: it is not async-signal-safe. */
typedef struct out {
    char buf[6144];
    size_t n;
    int full;
} out;

static void put(out *o, const char *s)
{
    for (; *s; s++) {
        if (o->n + 1 >= sizeof o->buf) {
            o->full = 1;
            return;
        }
        o->buf[o->n++] = *s;
    }
}

/* A JSON string. Bytes outside printable ASCII become '?' or an escape:
 * the message may come from a plugin, and the file must parse regardless. */
static void put_string(out *o, const char *s)
{
    if (!s) {
        put(o, "null");
        return;
    }
    put(o, "\"");
    static const char hex[] = "0123456789abcdef";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[7] = {0};
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
        } else if (c == '\n') {
            memcpy(esc, "\\n", 3);
        } else if (c < 0x20) {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
        } else {
            esc[0] = c < 0x80 ? (char)c : '?';
        }
        put(o, esc);
    }
    put(o, "\"");
}

static void put_int(out *o, int64_t v)
{
    char digits[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    char text[26];
    size_t k = 0;
    if (v < 0)
        text[k++] = '-';
    while (n)
        text[k++] = digits[--n];
    text[k] = '\0';
    put(o, text);
}

static void put_field(out *o, const char *name, int first)
{
    put(o, first ? "\n  \"" : ",\n  \"");
    put(o, name);
    put(o, "\": ");
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : ENOSPC;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* value, or null when it is not `known`. */
static void put_int_or_null(out *o, int known, int64_t value)
{
    if (known)
        put_int(o, value);
    else
        put(o, "null");
}

/* The status as JSON into o; a message too long for the buffer is cut,
 * not the JSON. */
static void render(out *o, const harness_status_file *f, const harness_status *st)
{
    put(o, "{");
    put_field(o, "schema", 1);
    put_string(o, HARNESS_SCHEMA_STATUS);
    put_field(o, "status", 0);
    put_string(o, st->status);
    put_field(o, "complete", 0);
    put(o, st->status && strcmp(st->status, "ok") == 0 ? "true" : "false");
    put_field(o, "exit_code", 0);
    put_int_or_null(o, st->exit_code >= 0, st->exit_code);
    put_field(o, "signal", 0);
    put_int_or_null(o, st->signal != 0, st->signal);
    put_field(o, "pid", 0);
    put_int(o, (int64_t)getpid());
    /* With the pid, what tells a reader the run was killed (util/process_identity.h). */
    put_field(o, "pid_start_ticks", 0);
    put_int(o, f->writer.start_ticks);
    put_field(o, "host", 0);
    put_string(o, f->writer.host);
    put_field(o, "boot_id", 0);
    put_string(o, f->writer.boot_id);
    put_field(o, "variant_key", 0);
    put_string(o, st->variant_key);
    put_field(o, "callback", 0);
    put_string(o, st->callback);
    put_field(o, "phase", 0);
    put_string(o, st->phase);
    /* Which window: the steps of wait and measurement count from 0 in each. */
    put_field(o, "window", 0);
    put_int_or_null(o, st->phase && strcmp(st->phase, "warmup") != 0, st->window);
    put_field(o, "step", 0);
    put_int_or_null(o, st->step >= 0, st->step);
    put_field(o, "summaries_written", 0);
    put(o, st->summaries ? "true" : "false");
    put_field(o, "error", 0);
    put_string(o, st->error);
    if (o->full) {
        o->n = o->n > 200 ? o->n - 200 : 0;
        o->full = 0;
        while (o->n && o->buf[o->n - 1] != ',')
            o->n--;
        if (o->n)
            o->n--;
        put(o, ",\n  \"error\": \"(message too long)\"");
    }
    put(o, "\n}\n");
}

/* o's bytes to the temporary file, synced, then renamed over the status
 * file. 0 or an errno. */
static int replace_file(const harness_status_file *f, const out *o)
{
    int fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = fd < 0 ? errno : write_all(fd, o->buf, o->n);
    if (fd >= 0) {
        if (rc == 0 && fsync(fd) != 0)
            rc = errno;
        if (close(fd) != 0 && rc == 0)
            rc = errno;
    }
    if (rc == 0 && rename(f->tmp, f->path) != 0)
        rc = errno;
    if (rc != 0)
        unlink(f->tmp);
    return rc;
}

int harness_status_file_write(harness_status_file *f, const harness_status *st, int final)
{
    if (!f->path[0])
        return EINVAL;
    int saved_errno = errno;       /* a signal handler must leave errno as it found it */
    if (final && f->has_reserve) {
        unlink(f->reserve);
        f->has_reserve = 0;
    }
    out o = {.n = 0};
    render(&o, f, st);
    int rc = replace_file(f, &o);
    errno = saved_errno;
    return rc;
}

/* Claim `bytes` of disk for the reserve; any failure just means no reserve. */
static int make_reserve(const char *path, size_t bytes)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    int ok = posix_fallocate(fd, 0, (off_t)bytes) == 0;
    if (!ok) {                     /* file systems without fallocate: real zeros */
        static const char zeros[4096];
        ok = 1;
        for (size_t done = 0; ok && done < bytes; done += sizeof zeros)
            ok = write_all(fd, zeros, sizeof zeros) == 0;
        ok = ok && fsync(fd) == 0;
    }
    close(fd);
    if (!ok)
        unlink(path);
    return ok;
}

int harness_status_file_create(harness_status_file *f, const char *dir, const char *name, const char *variant_key,
                               harness_error *err)
{
    memset(f, 0, sizeof *f);
    if ((size_t)snprintf(f->path, sizeof f->path, "%s/%s", dir, name) >= sizeof f->path ||
        (size_t)snprintf(f->tmp, sizeof f->tmp, "%s/.%s.tmp", dir, name) >= sizeof f->tmp ||
        (size_t)snprintf(f->reserve, sizeof f->reserve, "%s/.%s.reserve", dir, name) >= sizeof f->reserve) {
        f->path[0] = '\0';
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: path too long", dir);
    }
    harness_process_identity_self(&f->writer);
    harness_status st = {.status = "running", .exit_code = -1, .variant_key = variant_key, .step = -1};
    int rc = harness_status_file_write(f, &st, 0);
    if (rc != 0) {
        f->path[0] = '\0';
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot write %s/%s: %s", dir, name, strerror(rc));
    }
    f->has_reserve = make_reserve(f->reserve, HARNESS_STATUS_RESERVE_BYTES);
    return 0;
}

/* ---- reading ------------------------------------------------------------------ */

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "util/input_file.h"

/* A string member, non-empty, as a copy; NULL otherwise. -1 out of memory. */
static int copy_nonempty(const cJSON *st, const char *key, char **out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(st, key);
    *out = NULL;
    if (!cJSON_IsString(j) || !j->valuestring[0])
        return 0;
    return (*out = strdup(j->valuestring)) ? 0 : -1;
}

/* The process that wrote it, when the file says (pid and host; a file
 * written before these were recorded cannot tell). */
static void read_writer(const cJSON *st, harness_status_record *out)
{
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(st, "pid");
    const cJSON *ticks = cJSON_GetObjectItemCaseSensitive(st, "pid_start_ticks");
    const cJSON *host = cJSON_GetObjectItemCaseSensitive(st, "host");
    const cJSON *boot = cJSON_GetObjectItemCaseSensitive(st, "boot_id");
    if (!cJSON_IsNumber(pid) || !cJSON_IsString(host) || !(pid->valuedouble >= 1 && pid->valuedouble <= 4194304))
        return;
    out->has_writer = 1;
    out->writer.pid = (int64_t)pid->valuedouble;
    out->writer.start_ticks = cJSON_IsNumber(ticks) ? (int64_t)ticks->valuedouble : -1;
    snprintf(out->writer.host, sizeof out->writer.host, "%s", host->valuestring);
    if (cJSON_IsString(boot))
        snprintf(out->writer.boot_id, sizeof out->writer.boot_id, "%s", boot->valuestring);
}

int harness_status_read(const char *path, size_t cap, harness_status_record *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t len = 0;
    harness_error rerr = {0};
    if (harness_read_input_file(path, "file", cap, HARNESS_EXIT_USAGE, &text, &len, &rerr) != 0 &&
        rerr.code == HARNESS_EXIT_USAGE) {
        /* A FIFO, a device or an oversized file: hostile, not "unreadable";
         * the caller that only looks (a rank's peers) ignores it. */
        *err = rerr;
        return err->code;
    }
    cJSON *st = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(st, "status");
    int rc = 0;
    if (cJSON_IsString(status)) {
        out->complete = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "complete"));
        if (!(out->status = strdup(status->valuestring)) || copy_nonempty(st, "error", &out->error) != 0 ||
            copy_nonempty(st, "variant_key", &out->variant_key) != 0)
            rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
        read_writer(st, out);
    }
    cJSON_Delete(st);
    if (rc != 0)
        harness_status_record_free(out);
    return rc;
}

void harness_status_record_free(harness_status_record *r)
{
    free(r->status);
    free(r->error);
    free(r->variant_key);
    memset(r, 0, sizeof *r);
}
