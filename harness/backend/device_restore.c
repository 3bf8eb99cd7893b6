/* The one pending device restore (backend/device_restore.h). */
#include "backend/device_restore.h"

#include <stdatomic.h>
#include <stdlib.h>

/* A lock-free pointer (asserted below), so the exchange is safe in a handler. */
static _Atomic(harness_device_restore_fn) pending;
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "the pending restore must be lock-free for signal handlers");

static void at_exit(void)
{
    harness_device_restore_now();
}

void harness_device_restore_set(harness_device_restore_fn fn)
{
    static int registered;
    if (fn && !registered)
        registered = atexit(at_exit) == 0;
    atomic_store(&pending, fn);
}

void harness_device_restore_now(void)
{
    harness_device_restore_fn fn = atomic_exchange(&pending, (harness_device_restore_fn)NULL);
    if (fn)
        fn();
}
