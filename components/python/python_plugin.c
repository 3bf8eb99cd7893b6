/* python_plugin.c - the python component's entry point: python/cpu (and
 * python/cuda), then the PyTorch peers of the C variants. */
#include "python_component.h"

HARNESS_PLUGIN_INIT(python_component, svc, ctx)
{
    int rc = pyc_register_python(svc, ctx);
    return rc == 0 ? pyc_register_peers(svc, ctx) : rc;
}
