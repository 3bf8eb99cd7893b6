#include "cli/export_write.h"
#include "util/json_utf8.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Shortest text that reads back as the same double; integers without a
 * fraction or exponent (counts, bytes, ranks). */
static void format_number(double v, char *buf, size_t cap)
{
    if (!isfinite(v)) {
        snprintf(buf, cap, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
        return;
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(buf, cap, "%.0f", v);
        return;
    }
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, cap, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* RFC 4180: a field with a comma, a quote, a line break or edge spaces is
 * quoted, its quotes doubled. */
static void csv_field(const char *s, FILE *f)
{
    size_t len = strlen(s);
    int quote = strpbrk(s, ",\"\r\n") != NULL || (len > 0 && (s[0] == ' ' || s[len - 1] == ' '));
    if (!quote) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_cell(const cJSON *v, FILE *f)
{
    char num[64];
    if (!v || cJSON_IsNull(v))
        return;    /* an empty field: pandas reads NaN */
    if (cJSON_IsBool(v))
        fputs(cJSON_IsTrue(v) ? "true" : "false", f);
    else if (cJSON_IsNumber(v)) {
        format_number(v->valuedouble, num, sizeof num);
        fputs(num, f);
    } else if (cJSON_IsString(v))
        csv_field(v->valuestring, f);
}

void harness_export_write_csv(const harness_export_table *t, FILE *f)
{
    const cJSON *col, *row;
    int first = 1;
    cJSON_ArrayForEach(col, t->columns) {
        if (!first)
            fputc(',', f);
        csv_field(col->valuestring, f);
        first = 0;
    }
    fputs("\r\n", f);
    cJSON_ArrayForEach(row, t->rows) {
        first = 1;
        cJSON_ArrayForEach(col, t->columns) {
            if (!first)
                fputc(',', f);
            csv_cell(cJSON_GetObjectItemCaseSensitive(row, col->valuestring), f);
            first = 0;
        }
        fputs("\r\n", f);
    }
}

/* Every row gets every column, in the table's order, null where absent, so
 * a reader sees one rectangular table. */
int harness_export_write_json(const harness_export_table *t, FILE *f)
{
    cJSON *out = cJSON_CreateArray();
    const cJSON *col, *row;
    int ok = out != NULL;
    const cJSON *rows = ok ? t->rows : NULL;
    cJSON_ArrayForEach(row, rows) {
        cJSON *o = cJSON_CreateObject();
        ok = o && cJSON_AddItemToArray(out, o);
        const cJSON *columns = ok ? t->columns : NULL;
        cJSON_ArrayForEach(col, columns) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, col->valuestring);
            cJSON *copy = v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull();
            if (!copy || !cJSON_AddItemToObject(o, col->valuestring, copy)) {
                cJSON_Delete(copy);
                ok = 0;
                break;
            }
        }
        if (!ok)
            break;
    }
    harness_json_scrub_utf8(out);  /* names from file names: any bytes */
    char *text = ok ? cJSON_Print(out) : NULL;
    cJSON_Delete(out);
    if (!text)
        return -1;
    fputs(text, f);
    fputc('\n', f);
    free(text);
    return 0;
}
