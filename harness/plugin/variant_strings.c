/* Copying a variant's strings into harness memory (variant_strings.h). */
#include "plugin/variant_strings.h"

#include <stdlib.h>
#include <string.h>

/* An enum's choices are listed by `harness list` and in messages. */
#define CHOICES_MAX 4096

/* A control character would break the one-line forms these strings take:
 * stderr messages, `harness list`, status.json readers that grep. */
static int has_control(const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return 1;
    return 0;
}

/* Bounded strlen: a string without its NUL in reach is "too long", never
 * read past the bound. */
static size_t length_upto(const char *s, size_t max)
{
    return strnlen(s, max + 1);
}

static const char *text_refused(const char *s, size_t max, const char *too_long, const char *control)
{
    if (!s)
        return NULL;
    if (length_upto(s, max) > max)
        return too_long;
    return has_control(s) ? control : NULL;
}

const char *harness_variant_strings_refused(const harness_variant *v, const harness_param *params, uint32_t n_params)
{
    const char *why;
    if ((why = text_refused(v->key, HARNESS_VARIANT_KEY_MAX, "its key is longer than 255 bytes",
                            "its key holds a control character (a newline, a tab, ...)")) ||
        (why = text_refused(v->family, HARNESS_VARIANT_KEY_MAX, "its family is longer than 255 bytes",
                            "its family holds a control character")) ||
        (why = text_refused(v->summary, HARNESS_VARIANT_TEXT_MAX, "its summary is longer than 4096 bytes",
                            "its summary holds a control character (it is one line)")))
        return why;
    for (uint32_t i = 0; i < n_params; i++) {
        const harness_param *p = &params[i];
        if ((why = text_refused(p->name, HARNESS_VARIANT_KEY_MAX, "a parameter name is longer than 255 bytes",
                                "a parameter name holds a control character")) ||
            (why = text_refused(p->default_value, HARNESS_VARIANT_TEXT_MAX,
                                "a parameter default is longer than 4096 bytes",
                                "a parameter default holds a control character")) ||
            (why = text_refused(p->help, HARNESS_VARIANT_TEXT_MAX, "a parameter's help is longer than 4096 bytes",
                                "a parameter's help holds a control character (it is one line)")))
            return why;
        size_t n = 0;
        for (; p->choices && p->choices[n] && n <= CHOICES_MAX; n++)
            if ((why = text_refused(p->choices[n], HARNESS_VARIANT_KEY_MAX, "an enum choice is longer than 255 bytes",
                                    "an enum choice holds a control character")))
                return why;
        if (n > CHOICES_MAX)
            return "an enum parameter has more than 4096 choices";
    }
    return NULL;
}

static char *copy_text(const char *s, int *failed)
{
    if (!s || *failed)
        return NULL;
    char *c = strdup(s);
    if (!c)
        *failed = 1;
    return c;
}

static const char *const *copy_choices(const char *const *choices, int *failed)
{
    if (!choices || *failed)
        return NULL;
    size_t n = 0;
    while (choices[n])
        n++;
    char **c = calloc(n + 1, sizeof *c);
    if (!c) {
        *failed = 1;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        c[i] = copy_text(choices[i], failed);
    return (const char *const *)c;
}

static void free_choices(const char *const *choices)
{
    for (size_t i = 0; choices && choices[i]; i++)
        free((char *)choices[i]);
    free((void *)choices);
}

void harness_variant_strings_free(harness_variant *v, harness_param *params, uint32_t n_params)
{
    free((char *)v->key);
    free((char *)v->family);
    free((char *)v->device);
    free((char *)v->summary);
    v->key = v->family = v->device = v->summary = NULL;
    for (uint32_t i = 0; params && i < n_params; i++) {
        free((char *)params[i].name);
        free((char *)params[i].default_value);
        free((char *)params[i].help);
        free_choices(params[i].choices);
        params[i].name = params[i].default_value = params[i].help = NULL;
        params[i].choices = NULL;
    }
}

int harness_variant_strings_own(harness_variant *v, harness_param *params, uint32_t n_params)
{
    int failed = 0;
    /* Copied into fresh structs whose pointers are all ours (or NULL), so a
     * failure half-way frees exactly what was copied. */
    harness_variant nv = *v;
    harness_param *np = n_params ? calloc(n_params, sizeof *np) : NULL;
    if (n_params && !np)
        return -1;
    nv.key = copy_text(v->key, &failed);
    nv.family = copy_text(v->family, &failed);
    nv.device = copy_text(v->device, &failed);
    nv.summary = copy_text(v->summary, &failed);
    for (uint32_t i = 0; i < n_params; i++) {
        np[i] = params[i];
        np[i].name = copy_text(params[i].name, &failed);
        np[i].default_value = copy_text(params[i].default_value, &failed);
        np[i].help = copy_text(params[i].help, &failed);
        np[i].choices = NULL;
        np[i].choices = copy_choices(params[i].choices, &failed);
    }
    if (failed) {
        harness_variant_strings_free(&nv, np, n_params);
        free(np);
        return -1;
    }
    *v = nv;
    if (n_params)
        memcpy(params, np, n_params * sizeof *np);
    free(np);
    return 0;
}
