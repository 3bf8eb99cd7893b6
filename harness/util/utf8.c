#include "util/utf8.h"

#include <string.h>

size_t harness_utf8_sequence(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned c = s[0];
    size_t len;
    uint32_t v;
    /* The second byte's range excludes what would be overlong (after E0, F0),
     * a surrogate (after ED) or past U+10FFFF (after F4). */
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        v = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        v = c & 0x0f;
        lo = c == 0xe0 ? 0xa0 : lo;
        hi = c == 0xed ? 0x9f : hi;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        v = c & 0x07;
        lo = c == 0xf0 ? 0x90 : lo;
        hi = c == 0xf4 ? 0x8f : hi;
    } else {
        return 0;
    }
    if (len > n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    *cp = v;
    return len;
}

void harness_utf8_scrub(char *s)
{
    size_t n = strlen(s);
    unsigned char *p = (unsigned char *)s;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = p[i] < 0x80 ? 1 : harness_utf8_sequence(p + i, n - i, &cp);
        if (len == 0) {
            p[i] = '?';
            len = 1;
        }
        i += len;
    }
}
