/* Plugin loading with libltdl and the table of variants by key. */
#include "plugin/registry.h"
#include "plugin/plugin_file.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <ltdl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin/context.h"
#include "plugin/variant_strings.h"
#include "util/build_tree.h"
#include "util/install_dir.h"
#include "util/suggest.h"

#define INIT_SYMBOL "harness_plugin_init"
#define ABI_SYMBOL "harness_plugin_abi"

/* OpenBLAS (the pthread build Debian ships) starts a pool of one thread per
 * core when it is loaded, and each spins on sched_yield for about 0.1 s
 * before it sleeps: with every plugin loaded at startup, a run's first steps
 * shared the cores with them (one spinning step measured 2.28 CPU seconds a
 * wall second on 16 cores). The project's components thread with OpenMP and
 * hold OpenBLAS to one thread anyway (transformer_block_cpu.c), so the pool
 * is not started: OPENBLAS_NUM_THREADS=1 unless the user set it. A plugin
 * may still ask for more with openblas_set_num_threads. */
static void keep_blas_pool_asleep(void)
{
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
}

int harness_registry_init(harness_registry *reg, const harness_services *services, harness_error *err)
{
    memset(reg, 0, sizeof *reg);
    reg->services = services;
    keep_blas_pool_asleep();
    if (lt_dlinit() != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot initialize libltdl: %s", lt_dlerror());
    return 0;
}

/* A plugin's unload callback runs after every folder was written and the
 * guard (run/guard.h) has let go: a crash in it would kill the process with
 * 139 and a message about a harness bug. It is caught here instead, said
 * with the plugin's name, and its module is left mapped (its state is
 * beyond repair; the process is ending). */
static sigjmp_buf unload_landing;
static volatile sig_atomic_t unload_signal;
static const int unload_fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define N_UNLOAD_FATAL (sizeof unload_fatal / sizeof unload_fatal[0])

/* exit() from an unload callback would end the process with the plugin's
 * status, 0 even after a failed run: it is a plugin bug, exit 3 as exit()
 * from any other callback is (run/guard.h). */
static const char *volatile unloading;

static void exit_from_unload(void)
{
    if (!unloading)
        return;
    static const char head[] = "harness: plugin ", tail[] = " called exit() from its unload callback; exit 3\n";
    ssize_t ignored = write(STDERR_FILENO, head, sizeof head - 1);
    ignored = write(STDERR_FILENO, unloading, strlen(unloading));
    ignored = write(STDERR_FILENO, tail, sizeof tail - 1);
    (void)ignored;
    _exit(HARNESS_EXIT_RUNTIME);
}

static void on_unload_fault(int sig)
{
    unload_signal = sig;
    siglongjmp(unload_landing, 1);
}

static void call_unload(harness_plugin *pl)
{
    struct sigaction sa, old[N_UNLOAD_FATAL];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_unload_fault;
    sa.sa_flags = SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_UNLOAD_FATAL; i++)
        sigaction(unload_fatal[i], &sa, &old[i]);
    unload_signal = 0;
    static int exit_watched;
    if (!exit_watched++)
        atexit(exit_from_unload);
    unloading = pl->path;
    if (sigsetjmp(unload_landing, 1) == 0)
        pl->unload();
    unloading = NULL;
    for (size_t i = 0; i < N_UNLOAD_FATAL; i++)
        sigaction(unload_fatal[i], &old[i], NULL);
    if (unload_signal) {
        pl->resident = 1;
        fprintf(stderr, "harness: warning: plugin %s: its unload callback crashed with %s; what was written is "
                "complete, the plugin's module stays loaded\n", pl->path, strsignal(unload_signal));
    }
}

/* What an entry owns: its parameter copies and every string (variant_strings.h). */
static void forget_entry(harness_variant_entry *e)
{
    harness_variant_strings_free(&e->variant, e->params, e->variant.n_params);
    free(e->params);
}

/* The handles of modules kept mapped: lt_dlexit skips a resident module
 * but forgets its handle, so one kept here stays reachable, as the module
 * itself does, and a leak checker does not report it. */
static void keep_resident(lt_dlhandle h)
{
    static lt_dlhandle *kept;
    static size_t n, cap;
    if (n == cap) {
        size_t more = cap ? 2 * cap : 8;
        lt_dlhandle *k = realloc(kept, more * sizeof *k);
        if (!k)
            return;                /* out of memory at exit: a leak report at worst */
        kept = k;
        cap = more;
    }
    kept[n++] = h;
}

void harness_registry_free(harness_registry *reg)
{
    for (size_t i = 0; i < reg->n_plugins; i++) {
        harness_plugin *pl = &reg->plugins[i];
        /* Called also when the module stays loaded: the host is done with it. */
        if (pl->unload)
            call_unload(pl);
        /* Unloading under the sanitizers would hide plugin frames in leak
         * reports, and the process is about to end anyway. A module whose
         * threads may still run stays mapped (harness_registry_keep_loaded),
         * and so does the init context they may still hold. */
        if (pl->handle && pl->resident) {
            lt_dlmakeresident(pl->handle);  /* lt_dlexit below closes every module that is not */
            keep_resident(pl->handle);
        }
        else if (pl->handle && !getenv("HARNESS_KEEP_PLUGINS"))
            lt_dlclose(pl->handle);
        if (!pl->resident)
            free(pl->init_ctx);
        free(pl->path);
        free(pl->name);
    }
    for (size_t i = 0; i < reg->n_searched; i++)
        free(reg->searched[i]);
    for (size_t i = 0; i < reg->n_variants; i++)
        forget_entry(&reg->variants[i]);
    for (size_t i = 0; i < reg->n_broken; i++) {
        free(reg->broken[i].path);
        free(reg->broken[i].name);
        free(reg->broken[i].why);
        free(reg->broken[i].duplicate_key);
    }
    free(reg->duplicate);
    free(reg->broken);
    free(reg->plugins);
    free(reg->variants);
    free(reg->searched);
    lt_dlexit();
    memset(reg, 0, sizeof *reg);
}

/* "dir/rms_norm.la" -> "rms_norm": libltdl derives the _LTX_ prefix the same way. */
static char *module_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strcspn(base, ".");
    char *name = strndup(base, len);
    if (name)
        for (char *c = name; *c; c++)
            if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') && !(*c >= '0' && *c <= '9'))
                *c = '_';
    return name;
}

static int is_loaded(const harness_registry *reg, const char *name)
{
    for (size_t i = 0; i < reg->n_plugins; i++)
        if (strcmp(reg->plugins[i].name, name) == 0)
            return 1;
    return 0;
}

/* lt_dlsym already tries "<module>_LTX_<sym>" for modules it knows by their
 * .la file; for a bare .so we add the prefix ourselves. */
static void *find_symbol(lt_dlhandle h, const char *name, const char *sym)
{
    void *p = lt_dlsym(h, sym);
    if (p)
        return p;
    char prefixed[512];
    snprintf(prefixed, sizeof prefixed, "%s_LTX_%s", name, sym);
    return lt_dlsym(h, prefixed);
}

/* Drop the variants a failed plugin registered before it failed. */
static void forget_variants_of(harness_registry *reg, size_t plugin)
{
    size_t kept = 0;
    for (size_t i = 0; i < reg->n_variants; i++)
        if (reg->variants[i].plugin != plugin)
            reg->variants[kept++] = reg->variants[i];
        else
            forget_entry(&reg->variants[i]);
    reg->n_variants = kept;
}

/* The plugin's ABI declaration. ABI 1 declared {uint16_t major, minor} and
 * no size; read as a 2.x size, those four bytes are either tiny (1.0: 1) or
 * huge (1.1: 65537), never a struct size, so the size tells the layouts
 * apart without reading past a 1.x declaration. */
static void declared_abi(const harness_plugin_abi *abi, uint16_t *major, uint16_t *minor)
{
    if (abi->size >= sizeof *abi && abi->size <= 0xffff) {
        *major = abi->major;
        *minor = abi->minor;
        return;
    }
    uint16_t legacy[2];
    memcpy(legacy, abi, sizeof legacy);
    *major = legacy[0];
    *minor = legacy[1];
}

int harness_registry_load_file(harness_registry *reg, const char *path, harness_error *err)
{
    char *name = module_name(path);
    if (!name)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    /* An installed .la: its .so beside it, not the one at its libdir=
     * (install_dir.h), so a moved or staged tree loads its own plugins. */
    char beside[4096];
    const char *file = harness_installed_module(path, beside, sizeof beside) ? beside : path;
    lt_dlhandle h = lt_dlopenext(file);
    if (!h) {
        const char *why = lt_dlerror();
        /* libltdl reports "file not found" for a file that is there but
         * does not load; the system loader names the reason (an undefined
         * symbol, a library that does not resolve). */
        if (access(file, R_OK) == 0) {
            void *probe = dlopen(file, RTLD_LAZY | RTLD_LOCAL);
            if (probe)
                dlclose(probe);
            else
                why = dlerror();
        }
        free(name);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME,
                                 "cannot load plugin %s: %s; check the path, and that the plugin's own "
                                 "libraries resolve (ldd on its .so)",
                                 path, why ? why : "unknown error");
    }
    const lt_dlinfo *info = lt_dlgetinfo(h);
    const char *loaded = info && info->filename ? info->filename : path;

    const harness_plugin_abi *abi = find_symbol(h, name, ABI_SYMBOL);
    harness_plugin_init_fn init = (harness_plugin_init_fn)find_symbol(h, name, INIT_SYMBOL);
    uint16_t major = 0, minor = 0;
    if (abi)
        declared_abi(abi, &major, &minor);
    int rc = 0;
    if (!abi || !init) {
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME,
                               "plugin %s has no entry point %s_LTX_%s (or its ABI declaration): "
                               "define it with HARNESS_PLUGIN_INIT(%s, svc, ctx) from <harness/plugin.h>",
                               loaded, name, !init ? INIT_SYMBOL : ABI_SYMBOL, name);
    } else if (major != HARNESS_ABI_MAJOR) {
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME,
                               "plugin %s was built for plugin ABI %u.%u, but this harness provides ABI %d.%d; "
                               "rebuild the plugin against this harness's <harness/plugin.h>",
                               loaded, major, minor, HARNESS_ABI_MAJOR, HARNESS_ABI_MINOR);
    }
    if (rc != 0) {
        lt_dlclose(h);
        free(name);
        return rc;
    }

    harness_plugin *grown = realloc(reg->plugins, (reg->n_plugins + 1) * sizeof *grown);
    if (!grown) {
        lt_dlclose(h);
        free(name);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    }
    reg->plugins = grown;
    size_t index = reg->n_plugins++;
    reg->plugins[index] = (harness_plugin){.path = strdup(loaded), .name = name, .handle = h,
                                           .abi_major = major, .abi_minor = minor};

    /* On the heap and kept until the registry is freed: a plugin that keeps
     * the pointer past its init and calls a service with it later finds a
     * closed context (context.h), not a dead stack frame. */
    harness_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    *ctx = (harness_ctx){.kind = HARNESS_CTX_REGISTRATION, .registry = reg, .plugin = index};
    reg->plugins[index].init_ctx = ctx;
    free(reg->duplicate);
    reg->duplicate = NULL;
    int failed = init(reg->services, ctx) != 0 || ctx->failed;
    ctx->closed = 1;
    if (failed) {
        forget_variants_of(reg, index);
        /* The host's own refusal (a bad table, a duplicate key) already names the plugin. */
        if (ctx->host_refused)
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s", ctx->message);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "plugin %s failed to initialize: %s", loaded,
                                 harness_ctx_message(ctx, "its init returned an error without a message"));
    }
    return 0;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int remember_searched(harness_registry *reg, const char *dir)
{
    for (size_t i = 0; i < reg->n_searched; i++)
        if (strcmp(reg->searched[i], dir) == 0)
            return 0;
    char **grown = realloc(reg->searched, (reg->n_searched + 1) * sizeof *grown);
    if (!grown)
        return -1;
    reg->searched = grown;
    reg->searched[reg->n_searched] = strdup(dir);
    return reg->searched[reg->n_searched++] ? 0 : -1;
}

/* One bad file must not take every other plugin down with it: keep why it
 * failed, for the warning and for the error if a run needs it. */
static int remember_broken(harness_registry *reg, const char *path, harness_error *err)
{
    harness_broken_plugin *grown = realloc(reg->broken, (reg->n_broken + 1) * sizeof *grown);
    if (!grown)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    reg->broken = grown;
    harness_broken_plugin *b = &reg->broken[reg->n_broken];
    *b = (harness_broken_plugin){.path = strdup(path), .name = module_name(path), .why = strdup(err->msg),
                                 .duplicate_key = reg->duplicate};
    reg->duplicate = NULL;
    if (!b->path || !b->name || !b->why) {
        free(b->duplicate_key);
        free(b->path);
        free(b->name);
        free(b->why);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    }
    reg->n_broken++;
    *err = (harness_error){0};
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int harness_registry_load_dir(harness_registry *reg, const char *dir, int must_exist, harness_error *err)
{
    if (remember_searched(reg, dir) != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    DIR *d = opendir(dir);
    if (!d) {
        if (!must_exist && (errno == ENOENT || errno == ENOTDIR))
            return 0;
        return harness_error_set(err, HARNESS_EXIT_USAGE, "plugin directory %s: %s", dir, strerror(errno));
    }
    /* Prefer .la (libtool knows the real file and its dependencies); take a
     * bare .so only when no .la of that name sits beside it. Sorted, so the
     * load order does not depend on the file system. */
    char **files = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!has_suffix(e->d_name, ".la") && !has_suffix(e->d_name, ".so"))
            continue;
        char **grown = realloc(files, (n + 1) * sizeof *files);
        if (!grown)
            break;
        files = grown;
        files[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n > 1) /* qsort needs a non-NULL array, even for none */
        qsort(files, n, sizeof *files, cmp_str);

    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!files[i])
            continue;
        char *name = module_name(files[i]);
        int skip = !name || is_loaded(reg, name);
        if (!skip && has_suffix(files[i], ".so")) {
            char la[4096];
            snprintf(la, sizeof la, "%s/%s.la", dir, name);
            skip = access(la, F_OK) == 0;
        }
        free(name);
        if (!skip) {
            char path[4096], why[256];
            snprintf(path, sizeof path, "%s/%s", dir, files[i]);
            /* Looked at before it is loaded: loading runs its initialisers. */
            if (!harness_plugin_file_looks_right(path, why, sizeof why)) {
                harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot load plugin %s: %s; not loaded", path, why);
                rc = remember_broken(reg, path, err);
            } else if (harness_registry_load_file(reg, path, err) != 0) {
                rc = remember_broken(reg, path, err);
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    return rc;
}

int harness_registry_load_search_path(harness_registry *reg, const char *const *extra, size_t n_extra,
                                      harness_error *err)
{
    for (size_t i = 0; i < n_extra; i++)
        if (harness_registry_load_dir(reg, extra[i], 1, err) != 0)
            return err->code;
    const char *env = getenv("HARNESS_PLUGIN_PATH");
    if (env && *env) {
        char *copy = strdup(env), *save = NULL;
        int rc = 0;
        for (char *dir = strtok_r(copy, ":", &save); dir && rc == 0; dir = strtok_r(NULL, ":", &save))
            rc = harness_registry_load_dir(reg, dir, 0, err);
        free(copy);
        if (rc != 0)
            return rc;
    }
    if (harness_running_from_build_tree() &&
        harness_registry_load_dir(reg, HARNESS_BUILD_DIR "/plugins", 0, err) != 0)
        return err->code;
    return harness_registry_load_dir(reg, harness_install_pkglibdir(), 0, err);
}

/* The members every variant must have; those after destroy are optional,
 * so a struct may end there (a plugin of an older minor) and they read as
 * absent. */
#define VARIANT_REQUIRED_SIZE (offsetof(harness_variant, destroy) + sizeof(void (*)(void)))
#define PARAM_REQUIRED_SIZE (offsetof(harness_param, help) + sizeof(const char *))

/* Whether every byte of a plugin struct past what this host knows is zero:
 * then a plugin of a newer minor asked for nothing the host would ignore. */
static int tail_is_zero(const void *p, size_t known, size_t size)
{
    for (size_t i = known; i < size; i++)
        if (((const unsigned char *)p)[i])
            return 0;
    return 1;
}

/* The policy in <harness/plugin.h>: copy a plugin struct of `size` bytes
 * into a zeroed host struct of `known` bytes, refusing unknown nonzero fields. */
static int copy_struct(const harness_registry *reg, size_t plugin, const char *what, const char *key, void *dst,
                       size_t known, const void *src, size_t size, harness_error *err)
{
    const harness_plugin *pl = &reg->plugins[plugin];
    if (size > known && !tail_is_zero(src, known, size))
        return harness_error_set(err, HARNESS_EXIT_RUNTIME,
                                 "plugin %s built for ABI %u.%u sets fields this host (ABI %d.%d) does not know "
                                 "(variant %s: its %s is %zu bytes, this host's %zu); run it with a newer harness "
                                 "or rebuild it against this one's <harness/plugin.h>",
                                 pl->path, pl->abi_major, pl->abi_minor, HARNESS_ABI_MAJOR, HARNESS_ABI_MINOR,
                                 key ? key : "(no key)", what, size, known);
    memset(dst, 0, known);
    memcpy(dst, src, size < known ? size : known);
    return 0;
}

static int rejected(const char *path, const char *key, const char *why, harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "plugin %s: variant %s rejected: %s", path,
                             key ? key : "(no key)", why);
}

/* The plugin's parameter array has its stride in params[0].size; the host
 * reads it into an array of its own struct size. */
static int copy_params(const harness_registry *reg, size_t plugin, const harness_variant *v, harness_param **out,
                       harness_error *err)
{
    *out = NULL;
    if (v->n_params == 0)
        return 0;
    const char *path = reg->plugins[plugin].path;
    if (!v->params)
        return rejected(path, v->key, "n_params is set but params is NULL", err);
    size_t stride = v->params[0].size;
    if (stride < PARAM_REQUIRED_SIZE)
        return rejected(path, v->key, "its harness_param size is too small (set .size = sizeof(harness_param) "
                        "in every parameter)", err);
    harness_param *copy = calloc(v->n_params, sizeof *copy);
    if (!copy)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    for (uint32_t i = 0; i < v->n_params; i++) {
        const harness_param *p = (const harness_param *)(const void *)((const char *)v->params + i * stride);
        int rc = p->size != stride
                     ? rejected(path, v->key, "its parameters disagree on sizeof(harness_param)", err)
                     : copy_struct(reg, plugin, "harness_param", v->key, &copy[i], sizeof copy[i], p, stride, err);
        if (rc != 0) {
            free(copy);
            return rc;
        }
        copy[i].size = sizeof copy[i];
    }
    *out = copy;
    return 0;
}

static int valid_variant(const harness_variant *v, harness_error *err, const char *path)
{
    const char *why = NULL;
    if (!v->key || !*v->key || !v->family || !*v->family)
        why = "key and family must be non-empty";
    else if (!v->device || (strcmp(v->device, "cpu") != 0 && strcmp(v->device, "cuda") != 0))
        why = "device must be \"cpu\" or \"cuda\"";
    else if (!v->create || !v->step || !v->destroy || (!v->cost && !v->step_cost))
        why = "create, step, destroy and one of cost and step_cost are required";
    else if (v->cost && v->step_cost)
        why = "it sets both cost and step_cost; set one (step_cost, ABI 2.3, can log and fail)";
    for (uint32_t i = 0; !why && i < v->n_params; i++) {
        const harness_param *p = &v->params[i];
        if (!p->name || !*p->name)
            why = "a parameter has no name";
        else if (p->type < HARNESS_PARAM_INT || p->type > HARNESS_PARAM_ENUM)
            why = "a parameter has an unknown type";
        else if (p->type == HARNESS_PARAM_ENUM && (!p->choices || !p->choices[0]))
            why = "an enum parameter has no choices";
        for (uint32_t j = 0; !why && j < i; j++)
            if (strcmp(v->params[j].name, p->name) == 0)
                why = "two parameters share a name";
    }
    return why ? rejected(path, v->key, why, err) : 0;
}

/* Variants `plugin` has registered so far. */
static size_t count_of(const harness_registry *reg, size_t plugin)
{
    size_t n = 0;
    for (size_t i = 0; i < reg->n_variants; i++)
        n += reg->variants[i].plugin == plugin;
    return n;
}

int harness_registry_add(harness_registry *reg, size_t plugin, const harness_variant *v, harness_error *err)
{
    const char *path = reg->plugins[plugin].path;
    if (!v)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "plugin %s registered a NULL variant", path);
    if (v->size < VARIANT_REQUIRED_SIZE)
        return rejected(path, NULL, "its struct size is smaller than harness_variant's required members "
                        "(set .size = sizeof(harness_variant))", err);
    harness_variant copy;
    if (copy_struct(reg, plugin, "harness_variant", v->key, &copy, sizeof copy, v, v->size, err) != 0)
        return err->code;
    copy.size = sizeof copy;
    harness_param *params;
    if (copy_params(reg, plugin, &copy, &params, err) != 0)
        return err->code;
    copy.params = params;
    if (valid_variant(&copy, err, path) != 0) {
        free(params);
        return err->code;
    }
    const char *why = harness_variant_strings_refused(&copy, params, copy.n_params);
    if (why) {
        /* The key itself may be what is wrong: name the variant by where it stands. */
        char shown[64];
        snprintf(shown, sizeof shown, "#%zu of the plugin", count_of(reg, plugin) + 1);
        free(params);
        return rejected(path, strncmp(why, "its key", 7) == 0 ? shown : copy.key, why, err);
    }
    if (harness_variant_strings_own(&copy, params, copy.n_params) != 0) {
        free(params);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    }
    for (size_t i = 0; i < reg->n_variants; i++)
        if (strcmp(reg->variants[i].variant.key, copy.key) == 0) {
            free(reg->duplicate);
            reg->duplicate = strdup(copy.key);
            if (reg->variants[i].plugin == plugin)
                harness_error_set(err, HARNESS_EXIT_RUNTIME, "plugin %s registers variant key %s twice; "
                                  "register each variant once", path, copy.key);
            else
                harness_error_set(err, HARNESS_EXIT_RUNTIME,
                                  "variant key %s is registered twice: by %s and by %s; remove or rename one",
                                  copy.key, reg->plugins[reg->variants[i].plugin].path, path);
            harness_variant_strings_free(&copy, params, copy.n_params);
            free(params);
            return err->code;
        }
    harness_variant_entry *grown = realloc(reg->variants, (reg->n_variants + 1) * sizeof *grown);
    if (!grown) {
        harness_variant_strings_free(&copy, params, copy.n_params);
        free(params);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    }
    reg->variants = grown;
    reg->variants[reg->n_variants++] = (harness_variant_entry){.variant = copy, .params = params, .plugin = plugin};
    return 0;
}

static size_t append(char *buf, size_t cap, size_t len, const char *s)
{
    if (len < cap)
        len += (size_t)snprintf(buf + len, cap - len, "%s", s);
    return len;
}

/* The skipped plugin that also registered `key`, if one did. */
static const harness_broken_plugin *duplicate_of(const harness_registry *reg, const char *key)
{
    for (size_t i = 0; i < reg->n_broken; i++)
        if (reg->broken[i].duplicate_key && strcmp(reg->broken[i].duplicate_key, key) == 0)
            return &reg->broken[i];
    return NULL;
}

static const harness_variant_entry *refuse_duplicate(const harness_registry *reg,
                                                     const harness_variant_entry *v, harness_error *err)
{
    const harness_broken_plugin *dup = duplicate_of(reg, v->variant.key);
    if (!dup)
        return v;
    harness_error_set(err, HARNESS_EXIT_RUNTIME, "variant '%s' is not available: %s", v->variant.key, dup->why);
    return NULL;
}

const harness_variant_entry *harness_registry_resolve(const harness_registry *reg, const char *key,
                                                      const char *device, harness_error *err)
{
    for (size_t i = 0; i < reg->n_variants; i++)
        if (strcmp(reg->variants[i].variant.key, key) == 0)
            return refuse_duplicate(reg, &reg->variants[i], err);

    /* A family on a device: FAMILY/DEVICE when one has that key (rms_norm/cpu,
     * not a peer such as rms_norm/torch that a plugin registered for the
     * same family and device), else the first registered. */
    size_t key_len = strlen(key);
    for (size_t i = 0; i < reg->n_variants; i++) {
        const harness_variant *v = &reg->variants[i].variant;
        if (strcmp(v->family, key) == 0 && strncmp(v->key, key, key_len) == 0 && v->key[key_len] == '/' &&
            strcmp(v->key + key_len + 1, device) == 0)
            return refuse_duplicate(reg, &reg->variants[i], err);
    }
    int family_known = 0;
    char others[512] = "";
    size_t len = 0;
    for (size_t i = 0; i < reg->n_variants; i++) {
        const harness_variant *v = &reg->variants[i].variant;
        if (strcmp(v->family, key) != 0)
            continue;
        if (strcmp(v->device, device) == 0)
            return refuse_duplicate(reg, &reg->variants[i], err);
        len = append(others, sizeof others, len, family_known++ ? ", " : "");
        len = append(others, sizeof others, len, v->key);
    }
    if (family_known) {
        harness_error_set(err, HARNESS_EXIT_USAGE,
                          "%s has no variant for device %s (available: %s); "
                          "choose another device or an exact key",
                          key, device, others);
        return NULL;
    }

    /* The module named like the family most likely holds it: its load
     * error is the real one. */
    size_t family_len = strcspn(key, "/");
    for (size_t i = 0; i < reg->n_broken; i++)
        if (strlen(reg->broken[i].name) == family_len && strncmp(reg->broken[i].name, key, family_len) == 0) {
            harness_error_set(err, HARNESS_EXIT_RUNTIME, "variant '%s' is not available: %s", key,
                              reg->broken[i].why);
            return NULL;
        }

    /* Suggest among both keys and families. */
    const char **names = malloc((2 * reg->n_variants + 1) * sizeof *names);
    size_t n = 0;
    for (size_t i = 0; names && i < reg->n_variants; i++) {
        names[n++] = reg->variants[i].variant.key;
        names[n++] = reg->variants[i].variant.family;
    }
    const char *guess = names ? harness_suggest(key, names, n) : NULL;
    char searched[1024] = "";
    len = 0;
    for (size_t i = 0; i < reg->n_searched; i++) {
        len = append(searched, sizeof searched, len, i ? ", " : "");
        len = append(searched, sizeof searched, len, reg->searched[i]);
    }
    char broken[1024] = "";
    len = 0;
    for (size_t i = 0; i < reg->n_broken; i++) {
        len = append(broken, sizeof broken, len, i ? ", " : "; plugins that could not be loaded: ");
        len = append(broken, sizeof broken, len, reg->broken[i].path);
    }
    char hint[256] = "";
    if (guess)
        snprintf(hint, sizeof hint, "; did you mean %s?", guess);
    harness_error_set(err, HARNESS_EXIT_USAGE,
                      "unknown variant '%s'%s (searched for plugins in: %s%s; "
                      "`harness list` shows what is available; add directories with --plugin-path or "
                      "HARNESS_PLUGIN_PATH)",
                      key, hint, reg->n_searched ? searched : "nowhere", broken);
    free(names);
    return NULL;
}

/* A registration context's register_variant service: into its registry. */
int harness_svc_register_variant(harness_ctx *ctx, const harness_variant *v)
{
    /* After init the variants table is read by the run (plan->entry points
     * into it): growing it then would move the entry under the run's feet. */
    if (harness_ctx_refuse_closed(ctx, "register_variant"))
        return -1;
    if (ctx->kind != HARNESS_CTX_REGISTRATION || !ctx->registry) {
        harness_ctx_failf(ctx, "register_variant called outside plugin init");
        return -1;
    }
    harness_error err = {0};
    if (harness_registry_add(ctx->registry, ctx->plugin, v, &err) != 0) {
        ctx->host_refused = !ctx->failed;
        harness_ctx_failf(ctx, "%s", err.msg);
        return -1;
    }
    return 0;
}

/* A registration context's set_unload service (ABI 2.3): stored on the
 * plugin's registry entry, called by harness_registry_free. */
void harness_svc_set_unload(harness_ctx *ctx, void (*unload)(void))
{
    if (harness_ctx_refuse_closed(ctx, "set_unload"))
        return;
    if (ctx->kind != HARNESS_CTX_REGISTRATION || !ctx->registry) {
        harness_ctx_failf(ctx, "set_unload called outside plugin init");
        return;
    }
    ctx->registry->plugins[ctx->plugin].unload = unload;
}

void harness_registry_keep_loaded(const harness_registry *reg, size_t plugin)
{
    if (plugin < reg->n_plugins)
        reg->plugins[plugin].resident = 1;
}
