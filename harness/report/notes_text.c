/* A component's notes as text (report/notes_text.h). */
#include "report/notes_text.h"

#include <stdlib.h>
#include <string.h>

void harness_notes_print(FILE *f, const char *prefix, const harness_notes *notes)
{
    if (!notes || notes->n == 0)
        return;
    fprintf(f, "%scomponent notes:", prefix);
    for (size_t i = 0; i < notes->n; i++)
        fprintf(f, "%s %s: %s", i ? ";" : "", notes->note[i].key, notes->note[i].value);
    fputc('\n', f);
}

char *harness_notes_after_first_line(char *text, const harness_notes *notes)
{
    if (!text || !notes || notes->n == 0)
        return text;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return text;
    size_t head = strcspn(text, "\n");
    fwrite(text, 1, head, f);
    fputc('\n', f);
    harness_notes_print(f, "", notes);
    if (text[head])
        fputs(text + head + 1, f);
    if (fclose(f) != 0) {
        free(out);
        return text;
    }
    free(text);
    return out;
}
