#include "util/json_string.h"

#include <stdint.h>
#include <string.h>

#include "util/utf8.h"

void harness_json_string(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    size_t left = strlen((const char *)s);
    fputc('"', f);
    while (left > 0) {
        unsigned char c = *s;
        size_t n = 1;
        uint32_t cp;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else if (c < 0x80)
            fputc(c, f);
        else if ((n = harness_utf8_sequence(s, left, &cp)) > 0)
            fwrite(s, 1, n, f);
        else {
            fputs("\\ufffd", f);  /* one replacement per invalid byte */
            n = 1;
        }
        s += n;
        left -= n;
    }
    fputc('"', f);
}
