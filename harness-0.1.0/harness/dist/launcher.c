/* The world size a launcher announces. Open MPI's mpirun sets
 * OMPI_COMM_WORLD_SIZE, MPICH's and Intel MPI's Hydra set PMI_SIZE, and
 * Slurm's srun sets SLURM_STEP_NUM_TASKS for a job step (not for the batch
 * script itself, which is one process even when the job has many tasks). */
#include "dist/launcher.h"

#include <stdlib.h>

static const char *const size_variables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"};

harness_launch harness_launch_detect(const char *(*getenv_fn)(const char *))
{
    harness_launch l = {1, NULL};
    for (size_t i = 0; i < sizeof size_variables / sizeof size_variables[0]; i++) {
        const char *v = getenv_fn(size_variables[i]);
        char *end;
        long n = v ? strtol(v, &end, 10) : 0;
        if (v && *v && *end == '\0' && n > 1 && n < (1L << 24)) {
            l.world_size = (int)n;
            l.variable = size_variables[i];
            return l;
        }
    }
    return l;
}
