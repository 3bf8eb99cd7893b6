/* python_runtime.c - the interpreter the python component embeds: started
 * once per process at the first instance (validate or create), never
 * finalized (an instance may be created again, and threads a component left
 * behind may still run Python), configured to leave the harness's process
 * alone: no signal handlers (the harness's guard owns the signals), no
 * locale or stdio changes. harness.py, compiled into the plugin, becomes the
 * module `harness`. */
#include "python_component.h"

#include <dlfcn.h>
#include <string.h>

static PyObject *harness_module;   /* harness.py, once started */

/* libltdl opens this plugin, and with it libpython, RTLD_LOCAL; extension
 * modules (math, numpy) are not linked with libpython and find its symbols
 * in the global scope only. Promote the library already loaded. */
static int make_libpython_global(harness_ctx *ctx)
{
    Dl_info info;
    if (!dladdr((void *)Py_InitializeFromConfig, &info) || !info.dli_fname)
        return harness_host->fail(ctx, "python: cannot tell which file libpython was loaded from");
    if (!dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL))
        return harness_host->fail(ctx, "python: %s: %s", info.dli_fname, dlerror());
    return 0;
}

/* The interpreter outlives the plugin's instances and cannot start twice,
 * and its builtin module `_harness` points into this plugin's code: keep the
 * plugin mapped (and its `started`) when the host closes and opens it again
 * between two configs of one process (a suite, harness ab). */
static int keep_plugin_loaded(harness_ctx *ctx)
{
    Dl_info info;
    if (!dladdr((void *)pyc_start, &info) || !info.dli_fname)
        return harness_host->fail(ctx, "python: cannot tell which file this plugin was loaded from");
    if (!dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE))
        return harness_host->fail(ctx, "python: %s: %s", info.dli_fname, dlerror());
    return 0;
}

static int fail_status(harness_ctx *ctx, PyStatus status)
{
    return harness_host->fail(ctx, "python: the interpreter did not start: %s%s%s",
                              status.func ? status.func : "", status.func ? ": " : "",
                              status.err_msg ? status.err_msg : "unknown error");
}

static int initialize(harness_ctx *ctx)
{
    PyPreConfig pre;
    PyPreConfig_InitPythonConfig(&pre);
    pre.configure_locale = 0;      /* the harness's locale stays as it is */
    pre.utf8_mode = 1;
    PyStatus status = Py_PreInitialize(&pre);
    if (PyStatus_Exception(status))
        return fail_status(ctx, status);

    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0;   /* Ctrl-C is the harness's stop, not KeyboardInterrupt */
    config.configure_c_stdio = 0;
    config.parse_argv = 0;
    status = PyConfig_SetBytesString(&config, &config.program_name, "harness");
    if (!PyStatus_Exception(status))
        status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status))
        return fail_status(ctx, status);
    return 0;
}

/* harness.py's text as the module `harness`, in sys.modules. */
static int load_harness_module(harness_ctx *ctx)
{
    PyObject *code = Py_CompileStringExFlags((const char *)pyc_harness_source, "harness.py", Py_file_input,
                                             NULL, -1);
    PyObject *module = code ? PyImport_ExecCodeModuleEx("harness", code, "harness.py") : NULL;
    Py_XDECREF(code);
    if (!module)
        return pyc_fail_exception(ctx, "loading harness.py");
    harness_module = module;       /* sys.modules holds it too; this reference is never dropped */
    return 0;
}

int pyc_start(harness_ctx *ctx)
{
    static int started, failed;
    if (started)
        return 0;
    if (failed)
        return harness_host->fail(ctx, "python: the interpreter failed to start earlier in this process");
    failed = 1;
    if (make_libpython_global(ctx) != 0 || keep_plugin_loaded(ctx) != 0)
        return -1;
    if (PyImport_AppendInittab("_harness", pyc_services_init) != 0)
        return harness_host->fail(ctx, "python: cannot register the module _harness");
    if (initialize(ctx) != 0)
        return -1;
    int rc = load_harness_module(ctx);
    (void)PyEval_SaveThread();     /* the GIL is taken by each callback, released after it */
    if (rc != 0)
        return rc;
    failed = 0;
    started = 1;
    return 0;
}

PyObject *pyc_harness_module(void)
{
    return harness_module;
}

PyObject *pyc_call(const char *name, PyObject *args)
{
    PyObject *fn = args ? PyObject_GetAttrString(harness_module, name) : NULL;
    PyObject *r = fn ? PyObject_CallObject(fn, args) : NULL;
    Py_XDECREF(fn);
    Py_XDECREF(args);
    return r;
}

/* The exception's own text when harness._describe cannot run (harness.py
 * failed to load, or memory ran out). */
static int fail_plainly(harness_ctx *ctx, const char *callback, PyObject *value)
{
    PyObject *text = value ? PyObject_Str(value) : NULL;
    const char *msg = text ? PyUnicode_AsUTF8(text) : NULL;
    PyErr_Clear();
    harness_host->fail(ctx, "%s: %s: %s", callback, value ? Py_TYPE(value)->tp_name : "an error",
                       msg ? msg : "(no message)");
    Py_XDECREF(text);
    return -1;
}

int pyc_fail_exception(harness_ctx *ctx, const char *callback)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value && tb)
        PyException_SetTraceback(value, tb);
    PyObject *described = harness_module && value ? pyc_call("_describe", Py_BuildValue("(O)", value)) : NULL;
    const char *line = NULL, *full = NULL;
    if (described && PyTuple_Check(described) && PyTuple_GET_SIZE(described) == 2) {
        line = PyUnicode_AsUTF8(PyTuple_GET_ITEM(described, 0));
        full = PyUnicode_AsUTF8(PyTuple_GET_ITEM(described, 1));
    }
    if (line) {
        if (full && *full)
            harness_host->log(ctx, HARNESS_LOG_DEBUG, "%s: %s", callback, full);
        harness_host->fail(ctx, "%s", line);
        PyErr_Clear();
    } else {
        fail_plainly(ctx, callback, value);
    }
    Py_XDECREF(described);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return -1;
}
