/* A strict JSON checker run before cJSON parses a file that came from
 * outside: cJSON accepts trailing bytes after the value (with length
 * given), keeps the first of two equal keys silently, cuts strings at
 * \u0000 and passes invalid UTF-8 through to whatever it writes next. */
#include "util/json_strict.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

#define MAX_DEPTH 512

typedef struct scan {
    const unsigned char *p, *end, *start;
    harness_json_problem *out;
} scan;

static int fail(scan *s, const unsigned char *at, const char *fmt, const char *arg)
{
    s->out->offset = (size_t)(at - s->start);
    snprintf(s->out->why, sizeof s->out->why, fmt, arg ? arg : "");
    return -1;
}

static void skip_ws(scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static int hex4(const unsigned char *p, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = p[i], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return -1;
        *v = *v << 4 | d;
    }
    return 0;
}

/* Append code point cp as UTF-8 to the decoded key (when collecting one). */
static void put_utf8(char *buf, size_t *n, size_t cap, unsigned cp)
{
    unsigned char b[4];
    size_t k = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (k == 1) b[0] = (unsigned char)cp;
    else if (k == 2) { b[0] = (unsigned char)(0xC0 | cp >> 6); b[1] = (unsigned char)(0x80 | (cp & 0x3F)); }
    else if (k == 3) { b[0] = (unsigned char)(0xE0 | cp >> 12); b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
                       b[2] = (unsigned char)(0x80 | (cp & 0x3F)); }
    else { b[0] = (unsigned char)(0xF0 | cp >> 18); b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
           b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)); b[3] = (unsigned char)(0x80 | (cp & 0x3F)); }
    for (size_t i = 0; i < k && buf; i++)
        if (*n < cap)
            buf[(*n)++] = (char)b[i];
}

/* A \uXXXX escape after its "\u" (s->p on the digits), with the low half
 * of a surrogate pair, into *cp. `esc` is where the escape began. */
static int unicode_escape(scan *s, const unsigned char *esc, unsigned *cp)
{
    if (s->end - s->p < 4 || hex4(s->p, cp) != 0)
        return fail(s, esc, "a bad \\u escape%s", NULL);
    s->p += 4;
    if (*cp == 0)
        return fail(s, esc, "\\u0000 (a NUL) inside a string%s", NULL);
    if (*cp >= 0xD800 && *cp < 0xDC00) {  /* a surrogate pair, or nothing valid */
        unsigned lo;
        if (s->end - s->p < 6 || s->p[0] != '\\' || s->p[1] != 'u' || hex4(s->p + 2, &lo) != 0 || lo < 0xDC00 ||
            lo > 0xDFFF)
            return fail(s, esc, "an unpaired UTF-16 surrogate escape%s", NULL);
        s->p += 6;
        *cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
    } else if (*cp >= 0xDC00 && *cp <= 0xDFFF) {
        return fail(s, esc, "an unpaired UTF-16 surrogate escape%s", NULL);
    }
    return 0;
}

/* The escape at s->p (on its backslash), decoded into *cp. */
static int escape(scan *s, unsigned *cp)
{
    const unsigned char *esc = s->p;
    if (s->p + 1 >= s->end)
        return fail(s, esc, "unterminated string%s", NULL);
    unsigned e = s->p[1];
    s->p += 2;
    switch (e) {
    case '"': case '\\': case '/': *cp = e; return 0;
    case 'b': *cp = '\b'; return 0;
    case 'f': *cp = '\f'; return 0;
    case 'n': *cp = '\n'; return 0;
    case 'r': *cp = '\r'; return 0;
    case 't': *cp = '\t'; return 0;
    case 'u': return unicode_escape(s, esc, cp);
    default: return fail(s, esc, "an unknown escape in a string%s", NULL);
    }
}

/* A string at s->p (on the opening quote). When `key` is not NULL the
 * decoded text is stored there (malloc'ed), for the duplicate check. */
static int string(scan *s, char **key, size_t *key_len)
{
    const unsigned char *open = s->p++;
    size_t cap = 0, n = 0;
    char *buf = NULL;
    if (key) {
        const unsigned char *q = s->p;
        while (q < s->end && *q != '"')
            q += *q == '\\' && q + 1 < s->end ? 2 : 1;
        cap = (size_t)(q - s->p) * 3 + 1;   /* \uXXXX decodes to at most 3 bytes */
        buf = malloc(cap);
        if (!buf)
            return fail(s, open, "out of memory%s", NULL);
    }
    while (s->p < s->end && *s->p != '"') {
        unsigned c = *s->p;
        if (c < 0x20) {
            free(buf);
            return fail(s, s->p, c ? "a control character inside a string%s" : "a NUL byte inside a string%s", NULL);
        }
        if (c == '\\') {
            unsigned cp = 0;
            int rc = escape(s, &cp);
            if (rc != 0) {
                free(buf);
                return rc;
            }
            put_utf8(buf, &n, cap, cp);
            continue;
        }
        uint32_t ignored;
        size_t len = c < 0x80 ? 1 : harness_utf8_sequence(s->p, (size_t)(s->end - s->p), &ignored);
        if (len == 0) {
            free(buf);
            return fail(s, s->p, "invalid UTF-8 inside a string%s", NULL);
        }
        for (size_t i = 0; i < len && buf; i++)
            if (n < cap)
                buf[n++] = (char)s->p[i];
        s->p += len;
    }
    if (s->p >= s->end) {
        free(buf);
        return fail(s, open, "unterminated string%s", NULL);
    }
    s->p++;
    if (key) {
        *key = buf;
        *key_len = n;
    }
    return 0;
}

static int number(scan *s)
{
    const unsigned char *at = s->p;
    if (s->p < s->end && *s->p == '-')
        s->p++;
    if (s->p < s->end && *s->p == '0') {
        s->p++;
    } else if (s->p < s->end && *s->p >= '1' && *s->p <= '9') {
        while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
            s->p++;
    } else {
        return fail(s, at, "expected a value%s", NULL);
    }
    if (s->p < s->end && *s->p == '.') {
        s->p++;
        if (s->p >= s->end || *s->p < '0' || *s->p > '9')
            return fail(s, at, "a malformed number%s", NULL);
        while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
            s->p++;
    }
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        s->p++;
        if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
            s->p++;
        if (s->p >= s->end || *s->p < '0' || *s->p > '9')
            return fail(s, at, "a malformed number%s", NULL);
        while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
            s->p++;
    }
    return 0;
}

typedef struct key { char *text; size_t len; const unsigned char *at; } key;

static int key_order(const void *a, const void *b)
{
    const key *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->text, y->text, n);
    if (c == 0)
        c = (x->len > y->len) - (x->len < y->len);
    if (c == 0)
        c = (x->at > y->at) - (x->at < y->at);
    return c;
}

static int value(scan *s, int depth);

/* Keys are collected and sorted once per object: duplicates in O(k log k). */
static int object(scan *s, int depth)
{
    s->p++;
    key *keys = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    skip_ws(s);
    if (s->p < s->end && *s->p == '}') {
        s->p++;
        return 0;
    }
    for (;;) {
        skip_ws(s);
        if (s->p >= s->end || *s->p != '"') {
            rc = fail(s, s->p < s->end ? s->p : s->end, "expected a string key%s", NULL);
            break;
        }
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            key *grown = realloc(keys, ncap * sizeof *grown);
            if (!grown) {
                rc = fail(s, s->p, "out of memory%s", NULL);
                break;
            }
            keys = grown;
            cap = ncap;
        }
        keys[n].at = s->p;
        if ((rc = string(s, &keys[n].text, &keys[n].len)) != 0)
            break;
        n++;
        skip_ws(s);
        if (s->p >= s->end || *s->p != ':') {
            rc = fail(s, s->p, "expected ':' after a key%s", NULL);
            break;
        }
        s->p++;
        if ((rc = value(s, depth + 1)) != 0)
            break;
        skip_ws(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            continue;
        }
        if (s->p < s->end && *s->p == '}') {
            s->p++;
            break;
        }
        rc = fail(s, s->p, "expected ',' or '}' in an object%s", NULL);
        break;
    }
    if (rc == 0 && n > 1) {
        qsort(keys, n, sizeof *keys, key_order);
        for (size_t i = 1; i < n && rc == 0; i++)
            if (keys[i].len == keys[i - 1].len && memcmp(keys[i].text, keys[i - 1].text, keys[i].len) == 0) {
                char name[80];
                snprintf(name, sizeof name, "%.*s", (int)(keys[i].len < 60 ? keys[i].len : 60), keys[i].text);
                for (char *c = name; *c; c++)
                    if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x80)
                        *c = '?';
                rc = fail(s, keys[i].at, "duplicate key \"%s\"", name);
            }
    }
    for (size_t i = 0; i < n; i++)
        free(keys[i].text);
    free(keys);
    return rc;
}

static int array(scan *s, int depth)
{
    s->p++;
    skip_ws(s);
    if (s->p < s->end && *s->p == ']') {
        s->p++;
        return 0;
    }
    for (;;) {
        if (value(s, depth + 1) != 0)
            return -1;
        skip_ws(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            continue;
        }
        if (s->p < s->end && *s->p == ']') {
            s->p++;
            return 0;
        }
        return fail(s, s->p, "expected ',' or ']' in an array%s", NULL);
    }
}

static int literal(scan *s, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
        return fail(s, s->p, "expected a value%s", NULL);
    s->p += n;
    return 0;
}

static int value(scan *s, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(s, s->p, "nested deeper than 512 levels%s", NULL);
    skip_ws(s);
    if (s->p >= s->end)
        return fail(s, s->p, "unexpected end of the file%s", NULL);
    switch (*s->p) {
    case '{': return object(s, depth);
    case '[': return array(s, depth);
    case '"': return string(s, NULL, NULL);
    case 't': return literal(s, "true");
    case 'f': return literal(s, "false");
    case 'n': return literal(s, "null");
    default: return number(s);
    }
}

int harness_json_check_strict(const char *text, size_t len, harness_json_problem *out)
{
    scan s = {.p = (const unsigned char *)text, .end = (const unsigned char *)text + len,
              .start = (const unsigned char *)text, .out = out};
    memset(out, 0, sizeof *out);
    if (value(&s, 0) != 0)
        return -1;
    skip_ws(&s);
    if (s.p < s.end)
        return fail(&s, s.p, *s.p ? "trailing bytes after the JSON value%s" : "a NUL byte after the JSON value%s",
                    NULL);
    return 0;
}
