/* kernel_launch_count.h - how many kernels the tests/cudasim build of the
 * project's .cu files has launched (kernel_launch_count.cc), for a C test
 * that counts a plugin's launches per step. Works only in a program linked
 * with -Wl,--wrap=KERNEL_LAUNCH_COUNT_SYMBOL (see the .cc file). */
#ifndef TESTS_KERNEL_LAUNCH_COUNT_H
#define TESTS_KERNEL_LAUNCH_COUNT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Grids launched since the program started, failed launches included. */
unsigned long kernel_launch_count(void);

#ifdef __cplusplus
}
#endif

#endif
