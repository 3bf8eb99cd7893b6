/* print_json.c - a JSON report's tree to its stream (print_json.h). */
#include "compare/print_json.h"

#include <stdlib.h>

int harness_print_json(FILE *f, cJSON *root)
{
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return -1;
    fputs(text, f);
    fputc('\n', f);
    free(text);
    return 0;
}
