#include "util/table_fit.h"

#include "util/utf8.h"

#include <stdio.h>
#include <stdint.h>
#include <string.h>

static size_t total(const harness_table_fit *t)
{
    size_t sum = 0, n = 0;
    for (int j = 0; j < t->n_cols; j++)
        if (t->shown[j]) {
            sum += t->width[j];
            n++;
        }
    return n ? sum + (n - 1) * t->gap : 0;
}

size_t harness_table_fit_to(harness_table_fit *t, int limit)
{
    for (int j = 0; j < t->n_cols; j++)
        t->shown[j] = 1;
    if (limit <= 0)
        return total(t);
    size_t want = (size_t)limit, full = t->shrink_col >= 0 ? t->width[t->shrink_col] : 0;
    /* The long free-text column gives way first: a cut config still says
     * which benchmark a row is; a dropped p-value column loses nothing the
     * verdict does not say. */
    if (t->shrink_col >= 0 && total(t) > want && t->width[t->shrink_col] > t->shrink_min) {
        size_t excess = total(t) - want, w = t->width[t->shrink_col];
        t->width[t->shrink_col] = w - excess > t->shrink_min && excess < w ? w - excess : t->shrink_min;
    }
    for (int k = 0; k < t->n_drop && total(t) > want; k++)
        t->shown[t->drop[k]] = 0;
    /* Columns dropped may leave room to give back to the one cut. */
    size_t used = total(t);
    if (t->shrink_col >= 0 && used < want && t->width[t->shrink_col] < full) {
        size_t more = want - used, w = t->width[t->shrink_col];
        t->width[t->shrink_col] = w + more < full ? w + more : full;
    }
    return total(t);
}

const char *harness_table_cut(const char *cell, size_t width, char *buf, size_t cap)
{
    size_t len = strlen(cell);
    if (len <= width || width < 4 || cap <= width)
        return cell;
    snprintf(buf, cap, "%.*s...", (int)(width - 3), cell);
    return buf;
}

/* Bytes of the unit at s: an SGR escape (no column) or one character. */
static size_t unit_len(const char *s, int *cols)
{
    if (s[0] == '\033' && s[1] == '[') {
        size_t n = 2;
        while (s[n] && !(s[n] >= '@' && s[n] <= '~'))
            n++;
        *cols = 0;
        return s[n] ? n + 1 : n;
    }
    uint32_t cp;
    size_t n = (unsigned char)s[0] < 0x80 ? 0 : harness_utf8_sequence((const unsigned char *)s, strlen(s), &cp);
    *cols = 1;
    return n ? n : 1;
}

static size_t columns_of(const char *s, size_t len)
{
    size_t cols = 0;
    for (size_t i = 0; i < len;) {
        int c;
        i += unit_len(s + i, &c);
        cols += (size_t)c;
    }
    return cols;
}

size_t harness_text_columns(const char *s)
{
    return columns_of(s, strlen(s));
}

/* One line (no '\n') wrapped: words go on while they fit; a word wider than
 * the room stands whole on a line of its own. */
static void wrap_line(FILE *f, const char *line, size_t len, size_t width, size_t indent)
{
    size_t lead = 0;
    while (lead < len && line[lead] == ' ')
        lead++;
    size_t cont = lead + indent < width / 2 ? lead + indent : width / 2;
    size_t col = columns_of(line, lead), at_start = 1, spaces = 0;
    fwrite(line, 1, lead, f);
    for (size_t i = lead; i < len;) {
        size_t end = i, gap = 0;
        while (end < len && line[end] != ' ')
            end++;
        size_t word = columns_of(line + i, end - i);
        while (end + gap < len && line[end + gap] == ' ')
            gap++;
        if (!at_start && col + spaces + word > width) {
            fprintf(f, "\n%*s", (int)cont, "");
            col = cont;
            at_start = 1;
        }
        if (!at_start) {           /* the spaces between words as they were */
            fprintf(f, "%*s", (int)spaces, "");
            col += spaces;
        }
        fwrite(line + i, 1, end - i, f);   /* whole: a path cut in two could not be copied */
        col += word;
        at_start = 0;
        spaces = gap;
        i = end + gap;
    }
}

void harness_wrap_fputs(FILE *f, const char *text, int width, int indent)
{
    if (width <= 0) {
        fputs(text, f);
        return;
    }
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        if (columns_of(text, len) <= (size_t)width)
            fwrite(text, 1, len, f);
        else
            wrap_line(f, text, len, (size_t)width, indent > 0 ? (size_t)indent : 0);
        if (!nl)
            break;
        fputc('\n', f);
        text = nl + 1;
    }
}
