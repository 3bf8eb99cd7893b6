#include "util/table_fit.h"

#include <stdio.h>
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
