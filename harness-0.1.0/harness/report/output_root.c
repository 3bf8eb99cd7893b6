#include "report/output_root.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "/2026-11-23__05-43-41_0123abcd-9999/" plus the longest artifact name
 * and its temporary suffix, with room for rank numbers. */
#define FOLDER_SUFFIX_MAX (1 + 19 + 1 + 8 + 5 + 1)
#define FILE_NAME_MAX 96

int harness_output_root_check(const char *output_dir, harness_error *err)
{
    size_t len = strlen(output_dir);
    if (len + FOLDER_SUFFIX_MAX + FILE_NAME_MAX >= 4096)
        return harness_error_set(err, HARNESS_EXIT_USAGE,
                                 "experiment.output_dir: %.80s...: path of %zu bytes is too long for the experiment "
                                 "folder's files (at most %d); choose a shorter one",
                                 output_dir, len, 4096 - FOLDER_SUFFIX_MAX - FILE_NAME_MAX - 1);
    for (const char *p = output_dir; *p;) {
        const char *slash = strchr(p, '/');
        size_t part = slash ? (size_t)(slash - p) : strlen(p);
        if (part > NAME_MAX)
            return harness_error_set(err, HARNESS_EXIT_USAGE,
                                     "experiment.output_dir: %s: a component is %zu bytes, over the %d a file "
                                     "name may have", output_dir, part, NAME_MAX);
        p += part + (slash != NULL);
    }
    /* The deepest part that exists must be a directory this process may
     * write (create the rest, or the folder, in). */
    char probe[4096];
    snprintf(probe, sizeof probe, "%s", output_dir);
    for (;;) {
        struct stat st;
        if (stat(probe, &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                return harness_error_set(err, HARNESS_EXIT_RUNTIME,
                                         "experiment.output_dir: %s exists and is not a directory", probe);
            if (access(probe, W_OK | X_OK) != 0)
                return harness_error_set(err, HARNESS_EXIT_RUNTIME,
                                         "experiment.output_dir: cannot create the experiment folder in %s: %s; "
                                         "choose another with --output-dir", probe, strerror(errno));
            return 0;
        }
        if (errno != ENOENT && errno != ENOTDIR)  /* ENOTDIR: a file in the way, found above */
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "experiment.output_dir: %s: %s", probe,
                                     strerror(errno));
        char *slash = strrchr(probe, '/');
        while (slash && slash > probe && slash[1] == '\0') {  /* trailing slashes */
            *slash = '\0';
            slash = strrchr(probe, '/');
        }
        if (!slash) {
            snprintf(probe, sizeof probe, ".");
        } else if (slash == probe) {
            probe[1] = '\0';
        } else {
            *slash = '\0';
        }
    }
}
