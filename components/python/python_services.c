/* python_services.c - the builtin module `_harness`: the host's services
 * (plugin.h) for the instance whose callback runs now (pyc_ctx), called by
 * harness.py's Context. Addresses cross as ints, sizes as element counts
 * with harness_dtype codes, as the services take them. A service that
 * refuses has recorded its message with the host already (the first message
 * is kept); the harness.HarnessError raised here only unwinds the Python side. */
#include "python_component.h"

#include <stdint.h>

HARNESS_HIDDEN_ harness_ctx *pyc_ctx;

/* harness.HarnessError; the message the host recorded is the run's error. */
static PyObject *refused(const char *what)
{
    PyObject *type = PyObject_GetAttrString(pyc_harness_module(), "HarnessError");
    PyErr_Format(type ? type : PyExc_RuntimeError, "the harness refused %s (its message is the run's error)", what);
    Py_XDECREF(type);
    return NULL;
}

static int known_dtype(int code)
{
    if (code >= HARNESS_DTYPE_F32 && code <= HARNESS_DTYPE_I32)
        return 1;
    PyErr_Format(PyExc_ValueError, "harness_dtype %d is not one the harness knows", code);
    return 0;
}

/* (nbytes, tag) of alloc and device_alloc, nbytes at least 1: 0, or -1 with
 * the exception set. */
static int size_and_tag(PyObject *args, const char *service, Py_ssize_t *nbytes, const char **tag)
{
    if (!PyArg_ParseTuple(args, "ns", nbytes, tag))
        return -1;
    if (*nbytes <= 0) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes; expected at least 1", service, *nbytes);
        return -1;
    }
    return 0;
}

/* alloc(nbytes, tag) -> (address, writable memoryview of the bytes) */
static PyObject *svc_alloc(PyObject *self, PyObject *args)
{
    Py_ssize_t nbytes;
    const char *tag;
    (void)self;
    if (size_and_tag(args, "alloc", &nbytes, &tag) != 0)
        return NULL;
    void *p = harness_host->alloc(pyc_ctx, (size_t)nbytes, tag);
    if (!p)
        return refused("alloc");
    PyObject *view = PyMemoryView_FromMemory(p, nbytes, PyBUF_WRITE);
    return view ? Py_BuildValue("(KN)", (unsigned long long)(uintptr_t)p, view) : NULL;
}

/* free(address): memory alloc gave */
static PyObject *svc_free(PyObject *self, PyObject *args)
{
    unsigned long long address;
    (void)self;
    if (!PyArg_ParseTuple(args, "K", &address))
        return NULL;
    harness_host->free(pyc_ctx, (void *)(uintptr_t)address);
    Py_RETURN_NONE;
}

/* address(buffer) -> the address of a contiguous buffer's first byte */
static PyObject *svc_address(PyObject *self, PyObject *obj)
{
    Py_buffer view;
    (void)self;
    if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) != 0)
        return NULL;
    uintptr_t address = (uintptr_t)view.buf;
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLongLong(address);
}

typedef int (*buffer_service)(harness_ctx *, void *, size_t, harness_dtype);

static PyObject *on_buffer(PyObject *args, buffer_service service, const char *what)
{
    unsigned long long address;
    Py_ssize_t count;
    int code;
    if (!PyArg_ParseTuple(args, "Kni", &address, &count, &code) || !known_dtype(code))
        return NULL;
    if (count < 0)
        return PyErr_Format(PyExc_ValueError, "%s: a count of %zd elements", what, count);
    if (service(pyc_ctx, (void *)(uintptr_t)address, (size_t)count, (harness_dtype)code) != 0)
        return refused(what);
    Py_RETURN_NONE;
}

/* fill(address, count, dtype) */
static PyObject *svc_fill(PyObject *self, PyObject *args)
{
    (void)self;
    return on_buffer(args, harness_host->fill, "fill");
}

/* input(address, count, dtype): fill and declare (host or device memory) */
static PyObject *svc_input(PyObject *self, PyObject *args)
{
    (void)self;
    return on_buffer(args, harness_host->input, "input");
}

static int output_service(harness_ctx *ctx, void *buf, size_t count, harness_dtype dtype)
{
    return harness_host->output(ctx, buf, count, dtype);
}

/* output(address, count, dtype) */
static PyObject *svc_output(PyObject *self, PyObject *args)
{
    (void)self;
    return on_buffer(args, output_service, "output");
}

/* device_alloc(nbytes, tag) -> address */
static PyObject *svc_device_alloc(PyObject *self, PyObject *args)
{
    Py_ssize_t nbytes;
    const char *tag;
    (void)self;
    if (size_and_tag(args, "device_alloc", &nbytes, &tag) != 0)
        return NULL;
    void *p = harness_host->device_alloc(pyc_ctx, (size_t)nbytes, tag);
    return p ? PyLong_FromUnsignedLongLong((uintptr_t)p) : refused("device_alloc");
}

/* device_fill(address, count, dtype) */
static PyObject *svc_device_fill(PyObject *self, PyObject *args)
{
    (void)self;
    return on_buffer(args, harness_host->device_fill, "device_fill");
}

static PyObject *svc_synchronize(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    if (harness_host->device_synchronize(pyc_ctx) != 0)
        return refused("synchronize");
    Py_RETURN_NONE;
}

static PyObject *svc_region_push(PyObject *self, PyObject *args)
{
    const char *name;
    (void)self;
    if (!PyArg_ParseTuple(args, "s", &name))
        return NULL;
    harness_host->region_push(pyc_ctx, name);
    Py_RETURN_NONE;
}

static PyObject *svc_region_pop(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    harness_host->region_pop(pyc_ctx);
    Py_RETURN_NONE;
}

static PyObject *svc_note(PyObject *self, PyObject *args)
{
    const char *key, *value;
    (void)self;
    if (!PyArg_ParseTuple(args, "ss", &key, &value))
        return NULL;
    harness_host->note(pyc_ctx, key, value);
    Py_RETURN_NONE;
}

static PyObject *svc_log(PyObject *self, PyObject *args)
{
    int level;
    const char *message;
    (void)self;
    if (!PyArg_ParseTuple(args, "is", &level, &message))
        return NULL;
    harness_host->log(pyc_ctx, level, "%s", message);
    Py_RETURN_NONE;
}

static PyMethodDef services[] = {
    {"alloc", svc_alloc, METH_VARARGS, "alloc(nbytes, tag) -> (address, memoryview)"},
    {"free", svc_free, METH_VARARGS, "free(address)"},
    {"address", svc_address, METH_O, "address(buffer) -> int"},
    {"fill", svc_fill, METH_VARARGS, "fill(address, count, dtype)"},
    {"input", svc_input, METH_VARARGS, "input(address, count, dtype)"},
    {"output", svc_output, METH_VARARGS, "output(address, count, dtype)"},
    {"device_alloc", svc_device_alloc, METH_VARARGS, "device_alloc(nbytes, tag) -> address"},
    {"device_fill", svc_device_fill, METH_VARARGS, "device_fill(address, count, dtype)"},
    {"synchronize", svc_synchronize, METH_NOARGS, "wait for the stream"},
    {"region_push", svc_region_push, METH_VARARGS, "region_push(name)"},
    {"region_pop", svc_region_pop, METH_NOARGS, "region_pop()"},
    {"note", svc_note, METH_VARARGS, "note(key, value)"},
    {"log", svc_log, METH_VARARGS, "log(level, message)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef services_module = {
    PyModuleDef_HEAD_INIT, "_harness", "the harness's services for the instance running now", -1, services,
    NULL, NULL, NULL, NULL,
};

PyObject *pyc_services_init(void)
{
    return PyModule_Create(&services_module);
}
