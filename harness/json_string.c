#include "json_string.h"

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (2 to 4), or 0 if there is none. */
static size_t utf8_sequence(const unsigned char *s)
{
    size_t n;
    unsigned min;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        n = 2;
        min = 0x80;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        n = 3;
        min = 0x800;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        n = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    unsigned cp = s[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    /* Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8. */
    if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return n;
}

void harness_json_string(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    fputc('"', f);
    while (*s) {
        unsigned char c = *s;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
            s++;
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
            s++;
        } else if (c < 0x80) {
            fputc(c, f);
            s++;
        } else {
            size_t n = utf8_sequence(s);
            if (n) {
                fwrite(s, 1, n, f);
                s += n;
            } else {
                fputs("\\ufffd", f);
                s++;
            }
        }
    }
    fputc('"', f);
}
