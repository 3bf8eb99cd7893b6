#include "util/term.h"

#include "util/error.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int color_out, color_err;

int harness_color_parse(const char *text, harness_color_mode *mode)
{
    static const char *const names[] = {"auto", "never", "always"};
    for (int i = 0; i < 3; i++)
        if (strcmp(text, names[i]) == 0) {
            *mode = (harness_color_mode)i;
            return 0;
        }
    return -1;
}

int harness_color_option(const char *text, harness_color_mode *mode, harness_error *err)
{
    if (harness_color_parse(text, mode) == 0)
        return 0;
    return harness_error_set(err, HARNESS_EXIT_USAGE, "--color: expected auto, never or always, got '%s'", text);
}

static int wants_color(harness_color_mode mode, int fd)
{
    if (mode != HARNESS_COLOR_AUTO)
        return mode == HARNESS_COLOR_ALWAYS;
    const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
    if (no && *no)
        return 0;
    if (term && strcmp(term, "dumb") == 0)
        return 0;
    return isatty(fd);
}

void harness_color_init(harness_color_mode mode)
{
    color_out = wants_color(mode, STDOUT_FILENO);
    color_err = wants_color(mode, STDERR_FILENO);
}

int harness_color_on(FILE *f)
{
    return f == stdout ? color_out : f == stderr ? color_err : 0;
}

int harness_term_width(void)
{
    const char *cols = getenv("COLUMNS");
    if (cols && *cols) {
        char *end;
        long n = strtol(cols, &end, 10);
        if (!*end && n > 0 && n < 100000)
            return (int)n;
    }
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 0;
}
