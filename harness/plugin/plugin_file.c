#include "plugin/plugin_file.h"

#include "util/input_file.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ABI_SYMBOL "harness_plugin_abi"
#define LTX_ABI_SYMBOL "_LTX_harness_plugin_abi"

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int is_abi_symbol(const char *name, size_t max)
{
    size_t n = strnlen(name, max);
    if (n == max)
        return 0;                  /* not terminated inside the string table */
    return strcmp(name, ABI_SYMBOL) == 0 || has_suffix(name, LTX_ABI_SYMBOL);
}

/* Every offset read from the file is checked against its size: the file
 * may be anything at all. */
static int exports_abi(const unsigned char *p, size_t size, char *why, size_t cap)
{
    if (size < sizeof(Elf64_Ehdr) || memcmp(p, ELFMAG, SELFMAG) != 0) {
        snprintf(why, cap, "not an ELF shared object");
        return 0;
    }
    if (p[EI_CLASS] != ELFCLASS64) {
        snprintf(why, cap, "not a 64-bit ELF shared object");
        return 0;
    }
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
        (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum) {
        snprintf(why, cap, "a damaged ELF file (section headers)");
        return 0;
    }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(p + eh->e_shoff);
    for (size_t i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr *sym = &sh[i], *str = &sh[sym->sh_link];
        if (sym->sh_offset > size || sym->sh_size > size - sym->sh_offset || str->sh_offset > size ||
            str->sh_size > size - str->sh_offset || sym->sh_entsize != sizeof(Elf64_Sym)) {
            snprintf(why, cap, "a damaged ELF file (symbol table)");
            return 0;
        }
        const Elf64_Sym *syms = (const Elf64_Sym *)(p + sym->sh_offset);
        const char *names = (const char *)(p + str->sh_offset);
        for (size_t k = 0; k < sym->sh_size / sizeof(Elf64_Sym); k++)
            if (syms[k].st_shndx != SHN_UNDEF && syms[k].st_name < str->sh_size &&
                is_abi_symbol(names + syms[k].st_name, str->sh_size - syms[k].st_name))
                return 1;
    }
    snprintf(why, cap, "not a harness plugin (it exports no %s symbol)", ABI_SYMBOL);
    return 0;
}

static int shared_object_looks_right(const char *path, char *why, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        snprintf(why, cap, "%s", fd < 0 ? strerror(errno) : "not a regular, non-empty file");
        if (fd >= 0)
            close(fd);
        return 0;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        snprintf(why, cap, "cannot map it: %s", strerror(errno));
        return 0;
    }
    int ok = exports_abi(map, (size_t)st.st_size, why, cap);
    munmap(map, (size_t)st.st_size);
    return ok;
}

/* A libtool .la names its shared object (dlname='x.so'), found beside it
 * or, in a build tree, in .libs/. */
static int la_looks_right(const char *path, char *why, size_t cap)
{
    FILE *f = harness_open_regular(path);   /* a FIFO named x.la must not block */
    if (!f) {
        snprintf(why, cap, "%s", errno == EINVAL ? "not a regular file" : strerror(errno));
        return 0;
    }
    char line[1024], dlname[512] = "";
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "dlname='%511[^']'", dlname) == 1)
            break;
    fclose(f);
    if (!dlname[0] || strchr(dlname, '/')) {
        snprintf(why, cap, "a libtool file that names no shared object (dlname)");
        return 0;
    }
    char dir[4096], so[4600];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    snprintf(so, sizeof so, "%s/.libs/%s", dir, dlname);
    if (access(so, F_OK) != 0)
        snprintf(so, sizeof so, "%s/%s", dir, dlname);
    return shared_object_looks_right(so, why, cap);
}

int harness_plugin_file_looks_right(const char *path, char *why, size_t cap)
{
    return has_suffix(path, ".la") ? la_looks_right(path, why, cap) : shared_object_looks_right(path, why, cap);
}
