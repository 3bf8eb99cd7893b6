/* machine_file.h - the machine file: this machine's measured peaks
 * (backend/cpu_peaks.h), written by `harness calibrate` and read by the CPU
 * backend at open, so runs get a roofline without measuring every time.
 *
 * A file carries the identity of the machine it was measured on (CPU model,
 * logical CPU count, threads used): a file copied from another machine, or
 * measured with another thread count, is detected and its peaks not used. */
#ifndef HARNESS_MACHINE_FILE_H
#define HARNESS_MACHINE_FILE_H

#include <stddef.h>

#include "backend/backend.h"
#include "backend/peak_margin.h"
#include "util/error.h"

#define HARNESS_MACHINE_SCHEMA "harness.machine/1"

typedef struct harness_machine_identity {
    char cpu_model[256];
    int logical_cpus;
    int threads;                   /* OpenMP threads the peaks were measured with */
} harness_machine_identity;

typedef struct harness_machine {
    harness_machine_identity id;
    char host[256];                /* informative only: not part of the identity */
    double flops_per_s;            /* fp32 FMA, 2 flops per FMA */
    double bytes_per_s;            /* copy, bytes read + written */
    char flops_isa[16];
    /* bf16 peaks (2 flops per multiply-add); 0: the unit is absent, or a
     * file written before they were measured. */
    double bf16_dot_flops_per_s;   /* AVX-512 BF16 vdpbf16ps */
    double amx_bf16_flops_per_s;   /* AMX tdpbf16ps */
    double copy_buffer_bytes;
    int quick;                     /* measured with --quick */
    char measured_at[32];          /* ISO 8601, UTC */
    /* 1, 5 and 15 minute load averages just before measuring: a busy
     * machine measures low peaks, so readers can tell. NAN: unknown (also
     * in files written before it was recorded). */
    double load_at_calibration[3];
    char harness_version[64];
    /* How far the peaks can be trusted (backend/peak_margin.h): the rates
     * of the repetitions of each (all 0 in files written before they were
     * recorded), and calibrate's own verdict on the load before and after
     * measuring: 1 busy, 0 idle, -1 unknown (older files). */
    harness_rep_spread flops_spread, bytes_spread;
    int busy;
} harness_machine;

typedef enum {
    HARNESS_MACHINE_OK,
    HARNESS_MACHINE_ABSENT,
    HARNESS_MACHINE_CORRUPT        /* unreadable, not JSON, wrong schema, bad figures */
} harness_machine_status;

/* This machine's identity for a run on `threads` threads. */
void harness_machine_identity_here(harness_machine_identity *id, int threads);

/* Where the file is: $HARNESS_MACHINE_FILE, else $XDG_CONFIG_HOME/harness/
 * machine.json, else ~/.config/harness/machine.json. */
const char *harness_machine_file_path(char *out, size_t cap);

/* Write atomically (temporary file + rename), creating the directories. */
int harness_machine_file_write(const char *path, const harness_machine *m, harness_error *err);

/* Read and check; on CORRUPT, `why` says what is wrong. */
harness_machine_status harness_machine_file_read(const char *path, harness_machine *m, char *why, size_t cap);

/* The backend's peaks from the default file for a run on `threads` threads:
 * filled, with `source` naming the file and the margins of their
 * uncertainty, or zero with `missing` saying why and what to do. A corrupt
 * file is also reported on stderr as a warning. */
void harness_machine_load_peaks(harness_peaks *peaks, int threads);

#endif
