/* peak_margin.h - how uncertain a peak is: the factor by which a measured
 * figure may pass it before the figure, not the peak, must be wrong.
 *
 * A figure above its peak is either a low peak or a bad measurement
 * (report/impossible_figure.h). How low a peak can be depends on where it
 * came from:
 *
 * - A datasheet's rate (the GPU table, backend/cuda_peaks.h) is the
 *   hardware's own limit at the clock it is quoted at; kernels reach 80-95%
 *   of it. Its uncertainty is rounding and a part clocked above the quoted
 *   figure: HARNESS_MARGIN_DATASHEET, widened by the ratio of the clock the
 *   device reports to the clock the datasheet assumes (an H100 SXM reports
 *   1980 MHz, its dense tensor figure is quoted at 1830 MHz: x1.08).
 * - A calibrated rate (harness calibrate, backend/machine_file.h) is the
 *   best of a few repetitions of our own loop on a machine that may have
 *   been busy. Calibrated on an idle machine with steady repetitions it can
 *   still be beaten by a kernel whose traffic suits the memory better than
 *   a copy (reads only), or that runs at a higher clock:
 *   HARNESS_MARGIN_CALIBRATED_IDLE, widened by the calibration's own
 *   spread (its best repetition over its worst: a calibration whose
 *   repetitions varied was disturbed, and its best may be low by as much).
 *   Calibrated on a busy machine, or by a file that does not say
 *   (written before the spread was recorded), every repetition can be low
 *   together: HARNESS_MARGIN_CALIBRATED_DEFAULT, above the 1.57x seen here
 *   between a quiet RMSNorm run and a copy calibrated under load.
 */
#ifndef HARNESS_PEAK_MARGIN_H
#define HARNESS_PEAK_MARGIN_H

#include <stddef.h>

#define HARNESS_MARGIN_DATASHEET 1.05
#define HARNESS_MARGIN_CALIBRATED_IDLE 1.25
#define HARNESS_MARGIN_CALIBRATED_DEFAULT 1.75

/* Rates of calibrate's repetitions (per second); all 0: not recorded. */
typedef struct harness_rep_spread {
    double min, median, max;
} harness_rep_spread;

/* Whether a spread was recorded and is usable (0 < min <= median <= max). */
int harness_rep_spread_known(const harness_rep_spread *s);

/* A datasheet peak's margin. reported_mhz: the clock the device reports;
 * quoted_mhz: the clock the datasheet's figure assumes (<= 0 or NaN: the
 * figure was computed from the reported clock, so no widening). Writes why
 * into `why` (may be NULL). */
double harness_peak_margin_datasheet(double reported_mhz, double quoted_mhz, char *why, size_t cap);

/* A calibrated peak's margin from its repetitions' spread and whether the
 * calibration ran on a busy machine (1), an idle one (0) or unknown (-1).
 * Writes why into `why` (may be NULL). */
double harness_peak_margin_calibrated(const harness_rep_spread *spread, int busy, char *why, size_t cap);

#endif
