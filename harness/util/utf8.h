/* utf8.h - decoding one UTF-8 sequence, for writers that must emit valid
 * text (JSON, HTML) whatever bytes a plugin gave them. */
#ifndef HARNESS_UTF8_H
#define HARNESS_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length (2 to 4) of the valid multi-byte UTF-8 sequence at s, reading at
 * most n bytes, with its code point in *cp; 0 when there is none: overlong
 * forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
 * ASCII bytes are the caller's business. */
size_t harness_utf8_sequence(const unsigned char *s, size_t n, uint32_t *cp);

/* Make s valid UTF-8 in place: each byte that starts no valid sequence
 * becomes '?'. For names taken from bytes no parser checked (a file name):
 * the JSON and YAML the harness writes must be read back by itself. */
void harness_utf8_scrub(char *s);

#endif
