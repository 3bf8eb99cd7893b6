/* The notes of a component instance: a small table of strings (notes.h). */
#include "plugin/notes.h"

#include <stdio.h>
#include <string.h>

static int refuse(char *why, size_t cap, const char *reason)
{
    snprintf(why, cap, "%s", reason);
    return -1;
}

int harness_notes_set(harness_notes *notes, const char *key, const char *value, char *why, size_t why_cap)
{
    if (!key || !*key)
        return refuse(why, why_cap, "note needs a non-empty key");
    if (!value)
        return refuse(why, why_cap, "note needs a value (\"\" for an empty one)");
    if (strlen(key) >= HARNESS_NOTE_KEY_MAX || strlen(value) >= HARNESS_NOTE_VALUE_MAX) {
        snprintf(why, why_cap, "note '%.64s': key or value too long (at most %d and %d bytes)", key,
                 HARNESS_NOTE_KEY_MAX - 1, HARNESS_NOTE_VALUE_MAX - 1);
        return -1;
    }
    size_t i = 0;
    while (i < notes->n && strcmp(notes->note[i].key, key) != 0)
        i++;
    if (i == HARNESS_NOTES_MAX) {
        snprintf(why, why_cap, "note '%s': more than %d keys", key, HARNESS_NOTES_MAX);
        return -1;
    }
    if (i == notes->n)
        notes->n++;
    memcpy(notes->note[i].key, key, strlen(key) + 1);
    memcpy(notes->note[i].value, value, strlen(value) + 1);
    return 0;
}
