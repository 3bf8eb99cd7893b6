/* templates.h - the files `harness new-plugin` writes, embedded at build
 * time from share/templates/ (share/templates/embed.sh). "@NAME@" in a
 * template's text stands for the plugin's name. */
#ifndef HARNESS_TEMPLATES_H
#define HARNESS_TEMPLATES_H

#include <stddef.h>

typedef struct harness_template {
    const char *device;    /* the set: "cpu" or "cuda" (C), "python" */
    const char *file;      /* name in share/templates/<device>/ */
    const char *text;
} harness_template;

/* Ended by an entry whose device is NULL. */
extern const harness_template harness_templates[];

#endif
