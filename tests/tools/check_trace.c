/* check_trace TRACE.json [MEASURED_STEPS]: parse a Chrome trace written by
 * harness with cJSON and check what Perfetto relies on. Prints each
 * violation and exits 1 if there is any; exits 0 for a good trace. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int problems;

static void problem(const char *fmt, const char *detail, double value)
{
    problems++;
    printf("check_trace: ");
    printf(fmt, detail, value);
    putchar('\n');
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = '\0';
    fclose(f);
    return buf;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1e300;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Tracks named by metadata: (pid, tid) pairs, tid -1 for a process. GPU
 * traces use the OS process id and CUPTI's stream ids, so no small arrays. */
#define MAX_TRACKS 4096
static struct { long pid, tid; } named[MAX_TRACKS];
static int n_named;

/* The last counter sample's time per process: counters are per process
 * (a merged trace of a job has one "memory" track per rank). */
static struct { long pid; double ts; } counters[MAX_TRACKS];
static int n_counters;

static double *last_counter_of(long pid)
{
    for (int i = 0; i < n_counters; i++)
        if (counters[i].pid == pid)
            return &counters[i].ts;
    if (n_counters == MAX_TRACKS)
        return &counters[0].ts;
    counters[n_counters].pid = pid;
    counters[n_counters].ts = -1;
    return &counters[n_counters++].ts;
}

static void name_track(long pid, long tid)
{
    if (n_named < MAX_TRACKS)
        named[n_named].pid = pid, named[n_named++].tid = tid;
}

static int is_named(long pid, long tid)
{
    for (int i = 0; i < n_named; i++)
        if (named[i].pid == pid && named[i].tid == tid)
            return 1;
    return 0;
}

/* One event, checked against the tracks named so far; returns 1 for a
 * measured step's span. */
static int check_event(const cJSON *e, const char *file)
{
    const char *ph = str(e, "ph"), *name = str(e, "name");
    long pid = (long)num(e, "pid"), tid = (long)num(e, "tid");
    if (!ph || !name || pid < 0 || tid < 0) {
        problem("%s: an event lacks ph, name, pid or tid%.0f", file, 0);
        return 0;
    }
    if (strcmp(ph, "M") == 0) {
        if (strcmp(name, "process_name") == 0)
            name_track(pid, -1);
        if (strcmp(name, "thread_name") == 0)
            name_track(pid, tid);
        return 0;
    }
    if (!is_named(pid, -1))
        problem("%s: process %.0f has no process_name before its events", name, (double)pid);
    if (!is_named(pid, tid))
        problem("%s: thread %.0f has no thread_name before its events", name, (double)tid);
    double ts = num(e, "ts");
    if (ts < 0)
        problem("%s: negative or missing ts %g", name, ts);
    if (strcmp(ph, "C") == 0) {
        double *last_counter = last_counter_of(pid);
        if (ts < *last_counter)
            problem("%s: counter samples go back in time at %g", name, ts);
        *last_counter = ts;
        return 0;
    }
    if (strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0) {  /* launch -> kernel flows */
        if (num(e, "id") < 0)
            problem("%s: flow event without an id%.0f", name, 0);
        const char *bp = str(e, "bp");
        if (strcmp(ph, "f") == 0 && (!bp || strcmp(bp, "e") != 0))
            problem("%s: flow end without bp e%.0f", name, 0);
        return 0;
    }
    if (strcmp(ph, "X") != 0) {
        problem("unexpected phase %s%.0f", ph, 0);
        return 0;
    }
    double dur = num(e, "dur");
    if (dur < 0)
        problem("%s: negative or missing dur %g", name, dur);
    if (strcmp(str(e, "cat") ? str(e, "cat") : "", "step") != 0)
        return 0;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
    const char *phase = str(args, "phase");
    int trace_window = phase && strcmp(phase, "trace") == 0;   /* no window: the one after the measured */
    if ((!trace_window && num(args, "window") < 0) || num(args, "step") < 0)
        problem("%s: step span without window and step in args%.0f", name, 0);
    return 1;
}

/* Every region must lie inside some step (quadratic, fine for test-sized traces). */
static void check_regions_nested(const cJSON *events)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        const char *cat = str(e, "cat");
        if (!cat || strcmp(cat, "region") != 0)
            continue;
        double ts = num(e, "ts"), end = ts + num(e, "dur");
        int inside = 0;
        const cJSON *s;
        cJSON_ArrayForEach(s, events)
        {
            const char *scat = str(s, "cat");
            if (scat && strcmp(scat, "step") == 0 && num(s, "ts") <= ts && end <= num(s, "ts") + num(s, "dur") + 1e-9) {
                inside = 1;
                break;
            }
        }
        if (!inside)
            problem("%s: region not nested in any step (ts %g)", str(e, "name"), ts);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: check_trace TRACE.json [MEASURED_STEPS]\n");
        return 2;
    }
    char *text = slurp(argv[1]);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    if (!root) {
        printf("check_trace: %s is not valid JSON\n", argv[1]);
        return 1;
    }
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    if (!cJSON_IsArray(events))
        problem("%s: no traceEvents array%.0f", argv[1], 0);
    if (!str(root, "displayTimeUnit") || strcmp(str(root, "displayTimeUnit"), "ms") != 0)
        problem("%s: displayTimeUnit is not \"ms\" (docs/ARCHITECTURE.md section 7)%.0f", argv[1], 0);
    int steps = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
        steps += check_event(e, argv[1]);
    check_regions_nested(events);
    if (argc > 2 && steps != atoi(argv[2])) {
        char want[32];
        snprintf(want, sizeof want, "%s", argv[2]);
        problem("expected %s step spans, found %.0f", want, steps);
    }
    cJSON_Delete(root);
    free(text);
    return problems ? 1 : 0;
}
