/* rank_summary_out.h - what the writer of summary_ranks_N_rank_r.json
 * (rank_summary_write.c) takes: one record per section, typed, which
 * report/summary_json.c fills from a live run. Each section's writer sits
 * beside its reader: timing in rank_summary_timing.c; the statistics,
 * energy, noise, env and an impossible figure in rank_summary_extra.c; a
 * CUDA run's members of timing, a window, memory and env in
 * rank_summary_gpu.c (report/device_report.c and clock_report.c fill them);
 * the rest (validation, schedule, throughput, roofline, memory, trace,
 * regions, communication, gpu_kernels, warnings) in rank_summary_sections.c.
 * Strings are borrowed (the caller's); NULL where a string may be null says
 * null.
 *
 * Two parts stay a cJSON subtree the record carries (taken: the writer
 * frees it), because their keys are open-ended: component.config (the
 * variant's own parameters) and component_notes (the plugin's notes).
 * docs/ARCHITECTURE.md section 12. */
#ifndef HARNESS_FOLDER_RANK_SUMMARY_OUT_H
#define HARNESS_FOLDER_RANK_SUMMARY_OUT_H

#include <stddef.h>

#include "folder/slurm_facts.h"
#include "util/stats.h"

struct cJSON;

/* device_clocks: the SM clock of a window's or the run's kept steps. */
typedef struct harness_clock_figures_out {
    double sm_clock_min_mhz, sm_clock_median_mhz;   /* NAN: none known */
    double readings, throttled_steps_dropped, throttled_steps_kept, pause_ms;
    char throttle_reasons[128];
} harness_clock_figures_out;

/* timing.device_clocks: the run's, with every sample's clock (MHz). */
typedef struct harness_device_clocks_out {
    double read_every_ns, throttle_threshold, sm_clock_max_mhz;
    harness_clock_figures_out figures;
    const char *lock_clocks, *lock;
    int clocks_locked;
    const double *samples;         /* inline, unless samples_file not NULL or "" */
    size_t n_samples;
    const char *samples_file, *samples_sha256;
} harness_device_clocks_out;

/* timing.full_sync_check.side_stream_work[i]. */
typedef struct harness_side_work_out {
    const char *kind, *name;
    double stream, calls, total_ns;
} harness_side_work_out;

/* A CUDA run's members of timing: device_timer, blocking_kernel,
 * full_sync_check and host_launch. */
typedef struct harness_device_timing_out {
    const char *mode;              /* device_timer */
    int cuda_graph, flush_l2;
    const char *blocking_kernel;
    struct {
        int ran;
        const char *skipped;       /* when not ran */
        double sync_ns, events_median_ns, launch_ns, bound_ns;
        int agrees;
        int side_work_known;       /* 0: side_stream_work null */
        const harness_side_work_out *side_work;
        size_t n_side_work;
    } full_sync;
    int has_host_launch;           /* the host's time in each step() call */
    int host_stats;                /* its median, mean, min and max said */
    double host_median, host_mean, host_min, host_max;
    const double *host_samples;    /* inline, unless host_samples_file not NULL or "" */
    size_t n_host_samples;
    const char *host_samples_file, *host_samples_sha256;
} harness_device_timing_out;

typedef struct harness_live_out {
    const char *tag, *owner;
    double bytes;
} harness_live_out;

/* memory.device: the device's tracked memory. */
typedef struct harness_device_memory_out {
    double peak_tracked_bytes, tracked_allocations, used_bytes, total_bytes;
    const harness_live_out *live_at_peak;
    size_t n_live;
} harness_device_memory_out;

/* env.gpu_device: the device's facts. */
typedef struct harness_gpu_device_out {
    const char *name;
    double index;
    char compute_capability[16];
    const char *arch;
    double sm_count, sm_clock_mhz, memory_clock_mhz, memory_bus_width_bits, memory_bytes, l2_bytes;
    const char *driver, *runtime;
} harness_gpu_device_out;

/* An "energy" object: the run's (top, with its counter before the figures
 * and the windows after) or a window's. */
typedef struct harness_energy_out {
    int top;
    int available;                 /* top only */
    const char *source, *missing;  /* top only; NULL or "": null */
    double counter_period_s, min_window_s;   /* top only */
    const char *status;            /* measured | not_available | too_short | ... */
    double joules, seconds, steps, joules_per_step, watts, flop_per_joule, bytes_per_joule, uncertainty;
    double windows, windows_measured;        /* top only */
} harness_energy_out;

/* "noise": the run's (with the machine's load) or a window's. */
typedef struct harness_noise_out {
    double involuntary_switches;   /* NAN: not counted */
    double measured_steps;
    double steal_share, sm_clock_mhz, sm_clock_max_mhz;
    const char *throttle_reasons;
    double median_shift_bound;     /* 0 to 1; NAN unknown */
    const char *evidence;
    int has_load;                  /* the run's: load_average_start and _end follow */
    double load_average_start, load_average_end;
} harness_noise_out;

/* timing.windows[i]. */
typedef struct harness_window_out {
    double index, first_sample;
    const char *stop_reason;
    int converged;                 /* 1, 0, -1 null (a fixed step count) */
    harness_stats stats;           /* n 0: the statistics null */
    double wall_ns, cpu_ns, cpu_per_wall;
    const harness_noise_out *noise;/* NULL: no "noise" key */
    const harness_clock_figures_out *clocks;   /* device_clocks; NULL: absent (not a CUDA run) */
    harness_energy_out energy;
} harness_window_out;

typedef struct harness_timing_out {
    const char *clock, *clock_why; /* the step clock ("none"), and why it was chosen */
    double clock_read_overhead_ns, clock_resolution_ns;
    harness_stats overall;
    /* the samples: inline, or (samples_file not NULL or "") a side file's reference */
    const double *samples;
    size_t n_samples;
    const char *samples_file, *samples_sha256;
    harness_window_out *windows;
    size_t n_windows;
    harness_stats across;          /* across_windows: the windows' medians as the samples */
    int windows_disagree;
    const harness_device_timing_out *device;   /* a CUDA run's members; NULL: absent */
    const harness_device_clocks_out *clocks;   /* device_clocks; NULL: absent */
} harness_timing_out;

typedef struct harness_validation_out {
    int enabled;
    const char *status;            /* skipped | passed | failed: skipped writes passed null and no check */
    struct {
        const char *status;        /* NULL: null (the run stopped before) */
        double inputs_declared, outputs_declared, probe_steps, probe_wait_ns;
        const char *recheck;
        double rotate_sets, rotate_bytes;   /* rotate_inputs null when sets < 2 */
    } after_timing;
    double checked, mismatches, max_abs_err, max_rel_err, tolerance;
    const char *detail;
} harness_validation_out;

/* A step count as a config gives it: 0 is "auto". */
typedef struct harness_budget_out {
    double budget_s, step_ns, pilot_steps, spent_s, windows_planned, steps_per_window;
    long long config_measurement_steps;
    double config_repeat;
} harness_budget_out;

typedef struct harness_schedule_out {
    double warmup_steps, wait_steps;
    long long measurement_steps;   /* 0: "auto" */
    double repeat;
    const harness_budget_out *time_budget;  /* NULL: null */
    double warmup_steps_run, wait_steps_run, trace_steps_run, measured_steps, wall_s;
} harness_schedule_out;

typedef struct harness_throughput_out {
    double bytes_per_step, flops_per_step, gb_per_s, gflop_per_s;   /* at the median */
} harness_throughput_out;

typedef struct harness_memory_point_out {
    double t_us, step;
    const char *phase;
    double window, allocated_bytes, peak_allocated_bytes, reserved_bytes, allocated_min_bytes, reserved_min_bytes;
} harness_memory_point_out;

typedef struct harness_memory_out {
    const char *allocated_means, *reserved_means;
    double peak_allocated_bytes, peak_reserved_bytes;   /* NAN: null (no log) */
    double log_every_steps, samples_bound, samples_every_steps /* NAN: null */, samples_taken;
    const harness_memory_point_out *samples;
    size_t n_samples;
    double allocations;
    const harness_live_out *live_at_peak;
    size_t n_live;
    const harness_device_memory_out *device;   /* NULL: absent (not a CUDA run) */
} harness_memory_out;

typedef struct harness_trace_out {
    int written, truncated;
    double events, max_events, steps_not_traced;
} harness_trace_out;

typedef struct harness_region_out {
    const char *name;
    double count, total_ns, median_ns, mean_ns, share_of_steps;
} harness_region_out;

typedef struct harness_gpu_kernel_out {
    const char *name;
    double calls, total_ns, mean_ns, min_ns, max_ns, share;
} harness_gpu_kernel_out;

/* "roofline": percent of the backend's peaks at the median step. */
typedef struct harness_roofline_out {
    double peak_bytes_per_s, peak_flops_per_s, percent_of_peak_bandwidth, percent_of_peak_flops;
    double peak_fp16_flops_per_s, peak_bf16_flops_per_s, percent_of_peak_fp16_flops, percent_of_peak_bf16_flops;
    const char *peak_source, *missing;     /* NULL: null */
    const char *above_peak[4];     /* the keys of the percents above their peak */
    size_t n_above_peak;
    double bytes_margin;
    const char *bytes_margin_why;  /* NULL: null */
    double flops_margin;
    const char *flops_margin_why;
    double cache_bytes;
} harness_roofline_out;

/* A row of "communication": one collective, dtype and size (and peer). */
typedef struct harness_comm_out {
    const char *op, *dtype;
    int peer;                      /* send_recv's other rank, -1 (no member) for a collective */
    double bytes, calls, total_ns, mean_ns, min_ns, max_ns, algbw_gbps, busbw_gbps;
} harness_comm_out;

/* env.distributed: the job's transports (report/dist_env.h). */
typedef struct harness_dist_env_out {
    const char *mpi_library, *nccl;
    harness_slurm_out slurm;
    const char *const *var_names, *const *var_values;   /* n_vars each, by name */
    size_t n_vars;
    double vars_left_out;
    const harness_iface_addr_out *addrs;
    size_t n_addrs;
    const char *tcp_if_include;    /* NULL: null (unset) */
    const char *gpu_nic_topology;
} harness_dist_env_out;

typedef struct harness_env_out {
    const char *host, *os, *cpu, *cpu_family, *cpu_model_number, *cpu_stepping;
    const char *l1d, *l1i, *l2, *l3, *scaling_governor;
    double logical_cpus, affinity_cpus, omp_threads;
    double load_start[3], load_end[3];
    const char *gpu_name, *driver, *cuda;
    const char *compiler, *cflags, *sanitizers, *configure_args, *executable, *git_commit, *harness_version;
    const char *clock, *kernel_clocksource;
    double clock_resolution_ns;
    const char *started_at;
    const harness_gpu_device_out *gpu_device;  /* NULL: absent (not a CUDA run) */
    const harness_dist_env_out *distributed;   /* NULL: absent (an older harness) */
} harness_env_out;

typedef struct harness_impossible_out {
    const char *figure;            /* NULL or "": the member is null */
    double rate_per_s, peak_per_s, limit_per_s, margin;
    int allowed;
    const char *message;
} harness_impossible_out;

/* One rank's summary: the head typed, then each section. */
typedef struct harness_rank_summary_out {
    const char *status, *error;    /* error NULL or "": null */
    int interrupted, rank, world_size;
    const char *experiment_name, *variant_key, *requested, *plugin, *device_type, *device_name;
    struct cJSON *config, *component_notes;   /* open-ended: taken; NULL null */
    harness_validation_out validation;
    harness_schedule_out schedule;
    harness_timing_out timing;
    harness_throughput_out throughput;
    harness_energy_out energy;
    harness_roofline_out roofline;
    const harness_region_out *regions;
    size_t n_regions;
    harness_memory_out memory;
    harness_trace_out trace;
    const harness_comm_out *communication;   /* NULL: null (no collective called) */
    size_t n_communication;
    int has_gpu_kernels;           /* 0: null (no GPU records) */
    const harness_gpu_kernel_out *gpu_kernels;
    size_t n_gpu_kernels;
    double gpu_activity_dropped, gpu_activity_untimed;   /* NAN: no GPU activity recorded (null) */
    harness_env_out env;
    const char *const *warnings;
    size_t n_warnings;
    harness_impossible_out impossible_figure;
    harness_noise_out noise;
} harness_rank_summary_out;

#endif
