#include "report/experiment.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/fsutil.h"
#include "util/start_dir.h"

int harness_experiment_create(harness_experiment *exp, const char *given_dir, time_t when, const char *hash8,
                              harness_error *err)
{
    char absolute[4096];
    const char *output_dir = harness_start_dir_absolute(given_dir, absolute, sizeof absolute);
    if (!output_dir)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "experiment.output_dir %s: the working directory the "
                                 "run started in cannot be named (removed, or its path too long); give an "
                                 "absolute output_dir", given_dir);
    if (harness_mkdirs(output_dir, err) != 0)
        return err->code;
    struct tm tm;
    localtime_r(&when, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y-%m-%d__%H-%M-%S", &tm);
    /* "base/" names the same folder as "base": no "base//" in the paths printed. */
    int root = (int)strlen(output_dir);
    while (root > 0 && output_dir[root - 1] == '/')  /* "/" itself: root 0, then "/stamp" */
        root--;
    /* mkdir is atomic: whoever creates the name owns it, so concurrent runs
     * in the same second cannot share a folder. */
    for (int n = 1; n < 10000; n++) {
        int len = n == 1 ? snprintf(exp->dir, sizeof exp->dir, "%.*s/%s_%s", root, output_dir, stamp, hash8)
                         : snprintf(exp->dir, sizeof exp->dir, "%.*s/%s_%s-%d", root, output_dir, stamp, hash8, n);
        if (len < 0 || (size_t)len >= sizeof exp->dir)
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "experiment.output_dir %s: path too long",
                                     output_dir);
        if (mkdir(exp->dir, 0755) == 0) {
            /* The user's form: relative paths print as they were given. */
            int given = (int)strlen(given_dir);
            while (given > 0 && given_dir[given - 1] == '/')
                given--;
            const char *name = exp->dir + root + 1;
            snprintf(exp->shown, sizeof exp->shown, "%.*s/%s", given, given_dir, name);
            return 0;
        }
        if (errno != EEXIST)
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot create experiment folder %s: %s",
                                     exp->dir, strerror(errno));
    }
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "too many experiment folders named %s/%s_%s-*",
                             output_dir, stamp, hash8);
}

const char *harness_experiment_shown(const harness_experiment *exp)
{
    return exp->shown[0] ? exp->shown : exp->dir;
}

const char *harness_experiment_path(const harness_experiment *exp, const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", exp->dir, name);
    return buf;
}
