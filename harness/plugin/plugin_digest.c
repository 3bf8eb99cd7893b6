/* See plugin_digest.h. The file is read through the regular-file opener
 * (util/input_file.h), so a FIFO in a plugin folder cannot block a rank. */
#include "plugin/plugin_digest.h"

#include <stdio.h>
#include <string.h>

#include "util/input_file.h"
#include "util/sha256.h"

/* A .la names its shared object in dlname='x.so', in .libs/ or beside it. */
static int shared_object_of(const char *la, char *out, size_t cap)
{
    FILE *f = harness_open_regular(la);
    if (!f)
        return 0;
    char line[1024], so[512] = "";
    for (int n = 0; n < 200 && fgets(line, sizeof line, f); n++)
        if (sscanf(line, "dlname='%511[^']'", so) == 1)
            break;
    fclose(f);
    if (!so[0] || strchr(so, '/'))
        return 0;
    const char *slash = strrchr(la, '/');
    int dir = slash ? (int)(slash - la) : 1;
    const char *d = slash ? la : ".";
    for (int libs = 1; libs >= 0; libs--) {
        snprintf(out, cap, "%.*s/%s%s", dir, d, libs ? ".libs/" : "", so);
        FILE *t = harness_open_regular(out);
        if (t) {
            fclose(t);
            return 1;
        }
    }
    return 0;
}

void harness_plugin_digest(const char *path, char hex[17])
{
    snprintf(hex, 17, "unreadable");
    char so[4400];
    size_t n = strlen(path);
    const char *file = n > 3 && strcmp(path + n - 3, ".la") == 0 && shared_object_of(path, so, sizeof so) ? so : path;
    FILE *f = harness_open_regular(file);
    if (!f)
        return;
    harness_sha256 s;
    harness_sha256_init(&s);
    char buf[1 << 16];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        harness_sha256_update(&s, buf, got);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return;
    uint8_t d[32];
    harness_sha256_final(&s, d);
    for (int i = 0; i < 8; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}
