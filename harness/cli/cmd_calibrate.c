/* harness calibrate: measure this machine's peaks once and write the machine
 * file that runs read for their roofline (backend/machine_file.h). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/cpu_peaks.h"
#include "backend/machine_file.h"
#include "cli/calibrate_bf16.h"
#include "cli/commands.h"
#include "report/warnings.h"
#include "util/sysinfo.h"

typedef struct calibrate_opts {
    int quick;
    const char *output;
    int threads;
    int require_idle;
} calibrate_opts;

static const char *const synopsis[] = {"[options]", NULL};

static const harness_cli_option options[] = {
    {"quick", 'q', 0, NULL, "smaller buffers, fewer repetitions (~0.5 s instead of ~3 s)"},
    {"output", 'o', 0, "FILE", "where to write (default: $HARNESS_MACHINE_FILE, else "
     "$XDG_CONFIG_HOME/harness/machine.json, else ~/.config/harness/machine.json)"},
    {"threads", 't', 0, "N", "measure with N threads (default: OpenMP's, as runs use; runs with another "
     "thread count ignore the file)"},
    {"require-idle", 0, 'i', NULL, "on a busy machine, write nothing and exit 3 (default: warn, and write the "
     "file with the load it was measured at)"},
    HARNESS_CLI_HELP_OPTION,
};

static const harness_cli_command calibrate_command = {
    .name = "calibrate",
    .synopsis = synopsis,
    .about = "Measure this machine's fp32 FMA peak (register-resident FMAs, the widest ISA\n"
             "the CPU has), its bf16 peaks (AVX-512 BF16 vdpbf16ps; AMX tdpbf16ps where the\n"
             "CPU has AMX and Linux grants the tile state; a unit absent is said and left 0)\n"
             "and copy bandwidth (memcpy of buffers far larger than the cache,\n"
             "bytes read + written), on all threads a run uses, and write them with the\n"
             "machine's identity (CPU model, logical CPUs, threads) to the machine file.\n"
             "`harness run` reads it for the roofline (percent of peak) in its summaries.\n"
             "\n"
             "Other work on the cores makes the peaks low and every later percent of peak\n"
             "high; calibrate checks the load average as `harness run` does and warns.\n",
    .options = options,
    .n_options = HARNESS_CLI_N(options),
    .exit_codes = "0 written, 2 usage error, 3 measurement or I/O failure, or a busy\n"
                  "      machine with --require-idle\n",
};

/* -1 after --help, else 0 or an exit code with err set. */
static int parse(int argc, char **argv, calibrate_opts *o, harness_error *err)
{
    harness_cli_getopt g;
    harness_cli_getopt_init(&g, &calibrate_command);
    memset(o, 0, sizeof *o);
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        switch (c) {
        case 'q': o->quick = 1; break;
        case 'o': o->output = optarg; break;
        case 'i': o->require_idle = 1; break;
        case 't': {
            char *end;
            errno = 0;
            long n = strtol(optarg, &end, 10);
            if (end == optarg || *end || errno || n < 1 || n > 4096)
                return harness_error_set(err, HARNESS_EXIT_USAGE,
                                         "calibrate: --threads: expected a whole number from 1 to 4096, got '%s'",
                                         optarg);
            o->threads = (int)n;
            break;
        }
        case 'h': harness_cli_help(stdout, &calibrate_command); return -1;
        default:
            return harness_cli_bad_option(&calibrate_command, argv[optind - 1], optopt, err);
        }
    }
    if (optind < argc)
        return harness_error_set(err, HARNESS_EXIT_USAGE,
                                 "calibrate: unexpected argument '%s'; see harness calibrate --help", argv[optind]);
    return 0;
}

static void fill_machine(harness_machine *m, const harness_cpu_peaks *pk, int quick, const double load[3])
{
    memset(m, 0, sizeof *m);
    harness_machine_identity_here(&m->id, pk->threads);
    if (gethostname(m->host, sizeof m->host - 1) != 0)
        snprintf(m->host, sizeof m->host, "unknown");
    m->flops_per_s = pk->flops_per_s;
    m->bytes_per_s = pk->bytes_per_s;
    m->bf16_dot_flops_per_s = pk->bf16_dot_flops_per_s;
    m->amx_bf16_flops_per_s = pk->amx_bf16_flops_per_s;
    snprintf(m->flops_isa, sizeof m->flops_isa, "%s", pk->flops_isa);
    m->copy_buffer_bytes = (double)pk->copy_buffer_bytes;
    m->quick = quick;
    memcpy(m->load_at_calibration, load, sizeof m->load_at_calibration);
    /* How far runs may pass these peaks before a figure is impossible
     * (backend/peak_margin.h): the repetitions' spread, and below, the load. */
    m->flops_spread = pk->flops_spread;
    m->bytes_spread = pk->bytes_spread;
    m->busy = -1;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(m->measured_at, sizeof m->measured_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(m->harness_version, sizeof m->harness_version, "%s", PACKAGE_VERSION);
}

/* --require-idle refuses on the load before measuring too: a busy machine
 * is known before a minute of measurement, and its peaks are of no use. */
static int busy_before(const calibrate_opts *o, const double load[3], const char *path, harness_error *err)
{
    char busy[2 * HARNESS_WARNING_LEN];
    int threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    if (!harness_warn_busy_calibration(load, load, (int)sysconf(_SC_NPROCESSORS_ONLN), harness_affinity_cpus(),
                                       threads, busy, sizeof busy))
        return 0;
    harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s; --require-idle: nothing measured, %s not written", busy, path);
    return 1;
}

int harness_cmd_calibrate(int argc, char **argv)
{
    calibrate_opts o;
    harness_error err = {0};
    int code = parse(argc, argv, &o, &err);
    if (code == -1)
        return 0;
    if (code)
        return harness_error_report(&err);

    char path[4096];
    if (o.output)
        snprintf(path, sizeof path, "%s", o.output);
    else
        harness_machine_file_path(path, sizeof path);

    harness_cpu_peaks_opts popts = {.threads = o.threads, .quick = o.quick};
    harness_cpu_peaks pk;
    double load_start[3], load_end[3];
    harness_loadavg(load_start);
    if (o.require_idle && busy_before(&o, load_start, path, &err))
        return harness_error_report(&err);
    int failed = harness_cpu_peaks_measure(&popts, &pk) != 0;
    harness_loadavg(load_end);
    if (failed) {
        harness_error_set(&err, HARNESS_EXIT_RUNTIME, "calibrate: could not allocate 2 x %zu MiB for the copy "
                          "measurement; try --quick", pk.copy_buffer_bytes >> 20);
        return harness_error_report(&err);
    }
    harness_machine m;
    fill_machine(&m, &pk, o.quick, load_start);
    printf("machine: %s, %d logical CPUs, %d threads\n", m.id.cpu_model, m.id.logical_cpus, m.id.threads);
    printf("fp32 FMA peak:  %8.1f GFLOP/s  (%s, best of %d)\n", pk.flops_per_s / 1e9, pk.flops_isa, pk.flops_reps);
    harness_calibrate_print_bf16(&pk);
    printf("copy bandwidth: %8.1f GB/s     (2 x %zu MiB, bytes read + written, best of %d)\n",
           pk.bytes_per_s / 1e9, pk.copy_buffer_bytes >> 20, pk.copy_reps);
    if (harness_rep_spread_known(&pk.flops_spread) && harness_rep_spread_known(&pk.bytes_spread))
        printf("repetitions:    fp32 FMA worst %.1f%% below best, copy %.1f%% (a steadier calibration lets runs "
               "come closer to the peaks before a figure is impossible)\n",
               100 * (1 - pk.flops_spread.min / pk.flops_spread.max),
               100 * (1 - pk.bytes_spread.min / pk.bytes_spread.max));
    if (isnan(load_start[0]))
        printf("load average:   unknown (/proc/loadavg unreadable)\n");
    else
        printf("load average:   %.2f %.2f %.2f (1, 5, 15 min, before measuring)\n", load_start[0], load_start[1],
               load_start[2]);
    /* Warned, not refused, by default: a low peak is still a figure, the
     * file records the load, and runs flag any percent above 100. */
    char busy[2 * HARNESS_WARNING_LEN];
    m.busy = isnan(load_start[0]) && isnan(load_end[0]) ? -1 : 0;
    if (harness_warn_busy_calibration(load_start, load_end, m.id.logical_cpus, harness_affinity_cpus(), pk.threads,
                                      busy, sizeof busy)) {
        m.busy = 1;
        if (o.require_idle) {
            harness_error_set(&err, HARNESS_EXIT_RUNTIME, "%s; --require-idle: %s not written", busy, path);
            return harness_error_report(&err);
        }
        fprintf(stderr, "harness: warning: %s\n", busy);
    }
    if (harness_machine_file_write(path, &m, &err) != 0)
        return harness_error_report(&err);
    printf("wrote %s\n", path);
    return 0;
}
