/* Runs a fuzz target's LLVMFuzzerTestOneInput on each file named, without
 * libFuzzer: `make check` replays the regression inputs with the ordinary
 * compiler (and the sanitizers, in a sanitizer build). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 1;
        }
        size_t cap = 1 << 16, n = 0;
        uint8_t *buf = malloc(cap);
        for (size_t k; buf && (k = fread(buf + n, 1, cap - n, f)) > 0;) {
            n += k;
            if (n == cap) {
                uint8_t *grown = realloc(buf, cap *= 2);
                if (!grown)
                    free(buf);
                buf = grown;
            }
        }
        fclose(f);
        if (!buf) {
            fprintf(stderr, "%s: out of memory\n", argv[i]);
            return 1;
        }
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
    }
    return 0;
}
