/* html.h - text into an HTML page: the one escaper of every page the
 * harness writes (the memory report, `harness history --format html`). */
#ifndef HARNESS_UTIL_HTML_H
#define HARNESS_UTIL_HTML_H

#include <stddef.h>
#include <stdio.h>

/* The first n bytes of s (to a NUL), safe in text and in double- or
 * single-quoted attributes: & < > " ' as entities; tabs and line breaks
 * become spaces, other control characters (C0, DEL, C1) are dropped,
 * invalid UTF-8 bytes become U+FFFD. */
void harness_html_escape_n(FILE *f, const char *s, size_t n);

/* harness_html_escape_n of all of s; nothing when s is NULL. */
void harness_html_escape(FILE *f, const char *s);

#endif
