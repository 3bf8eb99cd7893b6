/* harness new-plugin NAME [--device cpu|cuda] [--dir D]: writes a plugin
 * project that builds against the harness pkg-config finds (else the one
 * that wrote it: its .pc directory is recorded in the Makefile) and whose
 * config runs and passes its check with no edit. The files are the
 * templates of share/templates/, embedded in the binary (cli/templates.h). */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/templates.h"
#include "run/services.h"
#include "util/build_tree.h"
#include "util/install_dir.h"
#include "util/fsutil.h"

/* Room for NAME in the module file, the variant key and C identifiers. */
#define NAME_MAX_LEN 48

/* NAME becomes the module (NAME.so), the entry point (NAME_LTX_...), C
 * identifiers and the variant family, so it must be a lower-case C
 * identifier. */
static int check_name(const char *name, harness_error *err)
{
    size_t len = strlen(name);
    int ok = len > 0 && len <= NAME_MAX_LEN && name[0] >= 'a' && name[0] <= 'z';
    for (size_t i = 0; ok && i < len; i++)
        ok = (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_';
    if (!ok)
        return harness_error_set(err, HARNESS_EXIT_USAGE,
                                 "new-plugin: '%s' is not a plugin name: use lower-case letters, digits and _, "
                                 "starting with a letter, at most %d characters (it names the module %s.so, its "
                                 "entry point and the variant key)", name, NAME_MAX_LEN, len < 256 ? name : "NAME");
    return 0;
}

/* A family some plugin on the search path already registers would make the
 * new variant's key a duplicate, which the loader refuses at run time. */
static int check_family_free(const char *name, harness_error *err)
{
    harness_registry reg;
    if (harness_registry_init(&reg, harness_host_services(), err) != 0)
        return err->code;
    int rc = harness_registry_load_search_path(&reg, NULL, 0, err);
    for (size_t i = 0; rc == 0 && i < reg.n_variants; i++) {
        const harness_variant *v = &reg.variants[i].variant;
        if (strcmp(v->family, name) == 0)
            rc = harness_error_set(err, HARNESS_EXIT_USAGE,
                                   "new-plugin: the family '%s' is already registered (%s, by %s); choose "
                                   "another NAME", name, v->key, reg.plugins[reg.variants[i].plugin].path);
    }
    harness_registry_free(&reg);
    return rc;
}

/* DIR may not exist yet, or be an empty directory; anything else would mix
 * the scaffold with files of the user's. */
static int check_target(const char *dir, harness_error *err)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "new-plugin: %s: %s", dir, strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "new-plugin: %s exists and is not a directory; choose "
                                 "another --dir", dir);
    DIR *d = opendir(dir);
    if (!d)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "new-plugin: %s: %s", dir, strerror(errno));
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)) != NULL)
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    if (!empty)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "new-plugin: %s exists and is not empty; choose another "
                                 "--dir, or remove it", dir);
    return 0;
}

/* The file a template becomes: plugin.c -> NAME.c, kernel.cu ->
 * NAME_kernel.cu, config.yaml -> NAME.yaml; the rest keep their names. */
static void output_name(const char *file, const char *name, char *out, size_t cap)
{
    if (strcmp(file, "plugin.c") == 0)
        snprintf(out, cap, "%s.c", name);
    else if (strcmp(file, "kernel.cu") == 0)
        snprintf(out, cap, "%s_kernel.cu", name);
    else if (strcmp(file, "config.yaml") == 0)
        snprintf(out, cap, "%s.yaml", name);
    else
        snprintf(out, cap, "%s", file);
}

/* The template's text with every TOKEN replaced by NAME; NULL when out of memory. */
static char *substitute(const char *text, const char *token, const char *name)
{
    size_t tlen = strlen(token), nlen = strlen(name), count = 0;
    for (const char *p = strstr(text, token); p; p = strstr(p + tlen, token))
        count++;
    char *out = malloc(strlen(text) + count * nlen + 1), *w = out;
    if (!out)
        return NULL;
    for (const char *p = text, *q; ; p = q + tlen) {
        q = strstr(p, token);
        size_t run = q ? (size_t)(q - p) : strlen(p);
        memcpy(w, p, run);
        w += run;
        if (!q)
            break;
        memcpy(w, name, nlen);
        w += nlen;
    }
    *w = '\0';
    return out;
}

/* The directory of this harness's harness-plugin.pc, written into the
 * scaffold's Makefile (@HARNESS_PC_DIR@) for when pkg-config finds no
 * harness by itself: the clone's share/ (harness-plugin-uninstalled.pc) when
 * running from the build tree, else the install's lib/pkgconfig, beside its
 * plugin directory. Empty when the path would need quoting in a Makefile. */
static void pc_dir(char *out, size_t cap)
{
    if (harness_running_from_build_tree()) {
        snprintf(out, cap, "%s/share", HARNESS_BUILD_DIR);
    } else {
        char lib[4096];
        snprintf(lib, sizeof lib, "%s", harness_install_pkglibdir());
        snprintf(out, cap, "%s/pkgconfig", dirname(lib));
    }
    if (out[0] != '/' || strpbrk(out, " \t\n\\'\"$#%:;*?[]()`"))
        out[0] = '\0';
}

static int write_templates(const char *dir, const char *name, const char *device, harness_error *err)
{
    char pcdir[4096];
    pc_dir(pcdir, sizeof pcdir);
    for (const harness_template *t = harness_templates; t->device; t++) {
        if (strcmp(t->device, device) != 0)
            continue;
        char file[NAME_MAX_LEN + 32], path[4096];
        output_name(t->file, name, file, sizeof file);
        if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path)
            return harness_error_set(err, HARNESS_EXIT_USAGE, "new-plugin: --dir %s is too long", dir);
        char *named = substitute(t->text, "@NAME@", name);
        char *text = named ? substitute(named, "@HARNESS_PC_DIR@", pcdir) : NULL;
        free(named);
        if (!text)
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "new-plugin: out of memory");
        int rc = harness_write_atomic(path, text, strlen(text), err);
        free(text);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The files go to a fresh directory beside DIR, renamed to DIR when all are
 * written: a failure (full disk) never leaves half a project. */
static int scaffold(const char *dir, const char *name, const char *device, harness_error *err)
{
    char parent_buf[4096];
    snprintf(parent_buf, sizeof parent_buf, "%s", dir);
    const char *parent = dirname(parent_buf);
    if (harness_mkdirs(parent, err) != 0)
        return err->code;
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s/.new-plugin-XXXXXX", parent) >= (int)sizeof tmp)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "new-plugin: --dir %s is too long", dir);
    if (!mkdtemp(tmp))
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "new-plugin: cannot create a directory in %s: %s",
                                 parent, strerror(errno));
    int rc = write_templates(tmp, name, device, err);
    /* mkdtemp makes 0700; a project directory is an ordinary one. */
    mode_t mask = umask(0);
    umask(mask);
    if (rc == 0 && chmod(tmp, 0777 & ~mask) != 0)
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "new-plugin: %s: %s", tmp, strerror(errno));
    if (rc == 0 && rename(tmp, dir) != 0)
        rc = harness_error_set(err, errno == ENOTEMPTY || errno == EEXIST ? HARNESS_EXIT_USAGE : HARNESS_EXIT_RUNTIME,
                               "new-plugin: cannot create %s: %s", dir, strerror(errno));
    if (rc != 0)
        harness_remove_flat_dir(tmp);
    return rc;
}

static const char *const synopsis[] = {"NAME [options]", NULL};

static const harness_cli_option options[] = {
    {"device", 'd', 0, "D", "the variant's device: cpu (default) or cuda"},
    {"dir", 0, 'D', "DIR", "the project directory (default ./NAME; it must not exist, or be empty)"},
    HARNESS_CLI_HELP_OPTION,
};

static const harness_cli_command new_plugin_command = {
    .name = "new-plugin",
    .synopsis = synopsis,
    .about = "Write a plugin project in DIR (default: ./NAME, which must not exist or be\n"
             "empty): NAME.c registering NAME/DEVICE (z = alpha * x + y, with a reference\n"
             "check, a cost and a region), a Makefile using pkg-config harness-plugin\n"
             "(and nvcc for --device cuda), NAME.yaml and a README.\n"
             "\n"
             "  make && harness run NAME.yaml      build, check against the reference, time\n",
    .options = options,
    .n_options = HARNESS_CLI_N(options),
    .exit_codes = "0 written, 2 usage error (a bad NAME, a family a plugin already registers,\n"
                  "      a directory not empty), 3 I/O\n",
};

int harness_cmd_new_plugin(int argc, char **argv)
{
    harness_cli_getopt g;
    harness_cli_getopt_init(&g, &new_plugin_command);
    harness_error err = {0};
    const char *device = "cpu", *dir = NULL;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 'D': dir = optarg; break;
        case 'h': harness_cli_help(stdout, &new_plugin_command); return 0;
        default:
            harness_cli_bad_option(&new_plugin_command, argv[optind - 1], optopt, &err);
            return harness_error_report(&err);
        }
    }
    if (argc - optind != 1) {
        harness_error_set(&err, HARNESS_EXIT_USAGE, "new-plugin: expected one NAME, got %d arguments; see "
                          "`harness new-plugin --help`", argc - optind);
        return harness_error_report(&err);
    }
    const char *name = argv[optind];
    if (strcmp(device, "cpu") != 0 && strcmp(device, "cuda") != 0) {
        harness_error_set(&err, HARNESS_EXIT_USAGE, "new-plugin: --device: expected cpu or cuda, got '%s'", device);
        return harness_error_report(&err);
    }
    if (dir && !*dir) {
        harness_error_set(&err, HARNESS_EXIT_USAGE, "new-plugin: --dir: empty path");
        return harness_error_report(&err);
    }
    if (!dir)
        dir = name;
    if (check_name(name, &err) != 0 || check_target(dir, &err) != 0 || check_family_free(name, &err) != 0 ||
        scaffold(dir, name, device, &err) != 0)
        return harness_error_report(&err);
    printf("%s: %s/%s plugin project\n", dir, name, device);
    /* Uninstalled, the Makefile finds the clone through the share/ it
     * records; the binary is the clone's. */
    char pcdir[4096];
    pc_dir(pcdir, sizeof pcdir);
    if (harness_running_from_build_tree() && pcdir[0])
        printf("  cd %s && make && %s/harness/harness run %s.yaml\n", dir, HARNESS_BUILD_DIR, name);
    else if (harness_running_from_build_tree())
        printf("  cd %s && PKG_CONFIG_PATH=%s/share make && %s/harness/harness run %s.yaml\n",
               dir, HARNESS_BUILD_DIR, HARNESS_BUILD_DIR, name);
    else
        printf("  cd %s && make && harness run %s.yaml\n", dir, name);
    return 0;
}
