/* html.c - the HTML escaper (html.h). */
#include "util/html.h"

#include <stdint.h>
#include <string.h>

#include "util/utf8.h"

void harness_html_escape_n(FILE *b, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n && s[i]) {
        unsigned c = s[i];
        if (c < 0x80) {
            switch (c) {
            case '&': fputs("&amp;", b); break;
            case '<': fputs("&lt;", b); break;
            case '>': fputs("&gt;", b); break;
            case '"': fputs("&quot;", b); break;
            case '\'': fputs("&#39;", b); break;
            case '\t':
            case '\n':
            case '\r': fwrite(" ", 1, 1, b); break;
            default:
                if (c >= 0x20 && c != 0x7F)
                    fwrite((const char *)s + i, 1, 1, b);
                break;
            }
            i++;
            continue;
        }
        uint32_t cp = 0;
        size_t len = harness_utf8_sequence(s + i, n - i, &cp);
        if (!len) {
            fputs("\xEF\xBF\xBD", b);
            i++;
            continue;
        }
        if (cp > 0x9F) /* C1 controls are dropped */
            fwrite((const char *)s + i, 1, len, b);
        i += len;
    }
}

void harness_html_escape(FILE *b, const char *s)
{
    if (s)
        harness_html_escape_n(b, s, strlen(s));
}
