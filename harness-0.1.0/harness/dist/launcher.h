/* launcher.h - whether this process is one of several ranks started by a
 * launcher (mpirun, mpiexec, srun), read from the environment they set, so
 * that a build without MPI refuses instead of N copies writing one folder,
 * and a build with MPI initialises it only when there are ranks to meet. */
#ifndef HARNESS_LAUNCHER_H
#define HARNESS_LAUNCHER_H

typedef struct harness_launch {
    int world_size;                /* 1 when no launcher set a larger one */
    const char *variable;          /* the variable that said so, e.g. "OMPI_COMM_WORLD_SIZE"; NULL */
} harness_launch;

/* getenv_fn is getenv in the harness (a table in tests). */
harness_launch harness_launch_detect(const char *(*getenv_fn)(const char *));

#endif
