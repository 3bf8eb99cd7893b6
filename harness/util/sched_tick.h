/* sched_tick.h - the kernel's scheduler tick (CONFIG_HZ). A step longer
 * than a tick is cut at tick boundaries whenever other work wants its CPU,
 * so under load such steps lose whole ticks (report/warnings.h, long
 * steps). The running kernel's CONFIG_HZ is plain text only in
 * /boot/config-<release> (/proc/config.gz is compressed, and the harness
 * links no zlib for one number); elsewhere 250 Hz, the common distribution
 * default, is assumed, and the caller says so. */
#ifndef HARNESS_SCHED_TICK_H
#define HARNESS_SCHED_TICK_H

#define HARNESS_SCHED_TICK_ASSUMED_HZ 250

typedef struct harness_sched_tick {
    int hz;                        /* CONFIG_HZ, or HARNESS_SCHED_TICK_ASSUMED_HZ */
    int known;                     /* 1: read from the kernel's config; 0: assumed */
} harness_sched_tick;

/* This machine's tick, read once. */
harness_sched_tick harness_sched_tick_read(void);

/* CONFIG_HZ from the text of a kernel config ("CONFIG_HZ=250" on a line of
 * its own), or 0 when it has none. */
int harness_sched_tick_parse(const char *config_text);

#endif
