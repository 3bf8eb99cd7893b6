/* markdown_escape.c - the markdown escapers (markdown_escape.h). */
#include "compare/markdown_escape.h"

#include <string.h>

static int line_break(char c)
{
    return c == '\n' || c == '\r' || c == '\t';
}

void harness_md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (line_break(*s))
            fputc(' ', f);
        else if (strchr("\\`*_[]<>|#~", *s))
            fprintf(f, "\\%c", *s);
        else
            fputc(*s, f);
    }
}

void harness_md_code(FILE *f, const char *s)
{
    fputc('`', f);
    for (; *s; s++) {
        if (line_break(*s))
            fputc(' ', f);
        else if (*s == '|')
            fputs("\\|", f);
        else if (*s == '`')
            fputc('\'', f);
        else
            fputc(*s, f);
    }
    fputc('`', f);
}

void harness_md_cell(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s == '\n' ? ' ' : *s, f);
    }
}
