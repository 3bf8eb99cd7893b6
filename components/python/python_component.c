/* python_component.c - plugins/python_component.la: the variants python/cpu
 * (and python/cuda in a CUDA build) that run a class written in Python
 * (docs/guide/python.md) under the harness's schedule. Each callback takes
 * the GIL, sets the instance's context for the services (pyc_ctx), calls into
 * harness.py or the instance, and releases the GIL: the interpreter runs
 * only inside a callback. A Python exception fails the callback with its
 * last frame (pyc_fail_exception); a bad callable, python or params fails
 * validate, so it is a config error naming the key. */
#include "python_component.h"

#include <stdint.h>
#include <string.h>

typedef struct py_instance {
    PyObject *instance;            /* the component's object */
    PyObject *ctx;                 /* its harness.Context */
    PyObject *step;                /* instance.step, bound once: the timed call */
} py_instance;

/* The GIL and the services' context around one callback. */
static PyGILState_STATE enter(harness_ctx *ctx)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    pyc_ctx = ctx;
    return gil;
}

static int leave(PyGILState_STATE gil, int rc)
{
    PyGILState_Release(gil);
    return rc;
}


int pyc_validate_class(harness_ctx *ctx, const pyc_class *c)
{
    if (pyc_start(ctx) != 0)
        return -1;
    PyGILState_STATE gil = enter(ctx);
    PyObject *r = pyc_call("_validate", Py_BuildValue("(sss)", c->callable, c->python, c->params));
    int rc = r ? 0 : pyc_fail_exception(ctx, "validate");
    Py_XDECREF(r);
    return leave(gil, rc);
}

/* python/cpu's and python/cuda's class: their three parameters. */
static pyc_class class_of(harness_ctx *ctx)
{
    return (pyc_class){harness_host->param_string(ctx, "callable"), harness_host->param_string(ctx, "python"),
                       harness_host->param_string(ctx, "params")};
}

static int validate(harness_ctx *ctx)
{
    pyc_class c = class_of(ctx);
    return pyc_validate_class(ctx, &c);
}

static void release(py_instance *s)
{
    Py_XDECREF(s->step);
    Py_XDECREF(s->ctx);
    Py_XDECREF(s->instance);
    PyMem_RawFree(s);
}

/* The stream as an int, for torch.cuda.ExternalStream and the like; 0 on the CPU. */
static unsigned long long stream_handle(harness_ctx *ctx, const char *device)
{
    if (strcmp(device, "cuda") != 0 || !HARNESS_HAS_SERVICE(harness_host, stream))
        return 0;
    return (unsigned long long)(uintptr_t)harness_host->stream(ctx);
}

int pyc_create_class(harness_ctx *ctx, void **state, const char *device, const pyc_class *c)
{
    if (pyc_start(ctx) != 0)
        return -1;
    PyGILState_STATE gil = enter(ctx);
    py_instance *s = PyMem_RawCalloc(1, sizeof *s);
    if (!s)
        return leave(gil, harness_host->fail(ctx, "python: out of memory for the instance"));
    PyObject *made = pyc_call("_create", Py_BuildValue("(ssssKiii)", c->callable, c->python, c->params, device,
                                                       stream_handle(ctx, device), harness_host->rank(ctx),
                                                       harness_host->world_size(ctx),
                                                       harness_host->num_threads(ctx)));
    if (made && PyArg_ParseTuple(made, "OO", &s->instance, &s->ctx)) {
        Py_INCREF(s->instance);
        Py_INCREF(s->ctx);
        s->step = PyObject_GetAttrString(s->instance, "step");
    }
    Py_XDECREF(made);
    if (!s->step) {
        int rc = pyc_fail_exception(ctx, "__init__");
        release(s);
        return leave(gil, rc);
    }
    *state = s;
    return leave(gil, 0);
}

static int create_cpu(harness_ctx *ctx, void **state)
{
    pyc_class c = class_of(ctx);
    return pyc_create_class(ctx, state, "cpu", &c);
}

/* The timed call: as little as possible around instance.step(). */
int pyc_step(harness_ctx *ctx, void *state)
{
    py_instance *s = state;
    PyGILState_STATE gil = enter(ctx);
    PyObject *r = PyObject_CallNoArgs(s->step);
    if (!r)
        return leave(gil, pyc_fail_exception(ctx, "step"));
    Py_DECREF(r);
    return leave(gil, 0);
}

int pyc_step_cost(harness_ctx *ctx, void *state, harness_cost *out)
{
    py_instance *s = state;
    PyGILState_STATE gil = enter(ctx);
    PyObject *r = pyc_call("_cost", Py_BuildValue("(O)", s->instance));
    int rc = r && PyArg_ParseTuple(r, "dd", &out->flops, &out->bytes) ? 0 : pyc_fail_exception(ctx, "cost");
    Py_XDECREF(r);
    return leave(gil, rc);
}

/* One field of check()'s dict into harness_check; absent keys keep `fallback`. */
static double verdict_number(PyObject *verdict, const char *key, double fallback)
{
    PyObject *v = PyDict_GetItemString(verdict, key);
    double x = v ? PyFloat_AsDouble(v) : fallback;
    return x == -1.0 && PyErr_Occurred() ? fallback : x;
}

static int fill_check(harness_ctx *ctx, PyObject *verdict, harness_check *out)
{
    if (!PyDict_Check(verdict))
        return harness_host->fail(ctx, "check: harness._check gave no dict");
    PyObject *passed = PyDict_GetItemString(verdict, "passed");
    out->passed = passed ? PyObject_IsTrue(passed) == 1 : 0;
    out->checked = (uint64_t)verdict_number(verdict, "checked", 1);
    out->mismatches = (uint64_t)verdict_number(verdict, "mismatches", out->passed ? 0 : 1);
    out->max_abs_err = verdict_number(verdict, "max_abs_err", 0);
    out->max_rel_err = verdict_number(verdict, "max_rel_err", 0);
    out->tolerance = verdict_number(verdict, "tolerance", 0);
    PyObject *detail = PyDict_GetItemString(verdict, "detail");
    PyObject *text = detail ? PyObject_Str(detail) : NULL;
    const char *d = text ? PyUnicode_AsUTF8(text) : NULL;
    snprintf(out->detail, sizeof out->detail, "%s", d ? d : "");
    Py_XDECREF(text);
    return PyErr_Occurred() ? pyc_fail_exception(ctx, "check") : 0;
}

int pyc_check(harness_ctx *ctx, void *state, harness_check *out)
{
    py_instance *s = state;
    PyGILState_STATE gil = enter(ctx);
    PyObject *verdict = pyc_call("_check", Py_BuildValue("(OO)", s->instance, s->ctx));
    int rc = verdict ? fill_check(ctx, verdict, out) : pyc_fail_exception(ctx, "check");
    Py_XDECREF(verdict);
    return leave(gil, rc);
}

/* close() if the class has one, then the memory ctx.alloc gave is freed. */
void pyc_destroy(harness_ctx *ctx, void *state)
{
    py_instance *s = state;
    PyGILState_STATE gil = enter(ctx);
    PyObject *r = pyc_call("_destroy", Py_BuildValue("(OO)", s->instance, s->ctx));
    if (!r)
        pyc_fail_exception(ctx, "close");
    Py_XDECREF(r);
    release(s);
    leave(gil, 0);
}

static const harness_param params[] = {
    HARNESS_STRING_PARAM("callable", NULL, "the class: FILE.py:Class or module:Class"),
    HARNESS_STRING_PARAM("params", "{}", "the component's own parameters: a JSON object, handed to the class"),
    HARNESS_STRING_PARAM("python", "", "a virtual environment's python whose sys.path to use (same version)"),
};

static const harness_variant cpu_variant = {
    .size = sizeof(harness_variant), .key = "python/cpu", .family = "python", .device = "cpu",
    .summary = "a component written in Python (docs/guide/python.md)",
    .params = params, .n_params = sizeof params / sizeof params[0],
    .create = create_cpu, .step = pyc_step, .check = pyc_check, .destroy = pyc_destroy, .validate = validate,
    .step_cost = pyc_step_cost,
};

#ifdef HAVE_CUDA
static int create_cuda(harness_ctx *ctx, void **state)
{
    pyc_class c = class_of(ctx);
    return pyc_create_class(ctx, state, "cuda", &c);
}

/* Steps on the harness's stream (ctx.stream); never captured into a CUDA
 * graph unless the config asks (schedule.cuda_graph), as for C variants. */
static const harness_variant cuda_variant = {
    .size = sizeof(harness_variant), .key = "python/cuda", .family = "python", .device = "cuda",
    .summary = "a component written in Python, on the harness's CUDA stream (docs/guide/python.md)",
    .params = params, .n_params = sizeof params / sizeof params[0],
    .create = create_cuda, .step = pyc_step, .check = pyc_check, .destroy = pyc_destroy, .validate = validate,
    .step_cost = pyc_step_cost,
};
#endif

int pyc_register_python(const harness_services *svc, harness_ctx *ctx)
{
    int rc = svc->register_variant(ctx, &cpu_variant);
#ifdef HAVE_CUDA
    if (rc == 0)
        rc = svc->register_variant(ctx, &cuda_variant);
#endif
    return rc;
}
