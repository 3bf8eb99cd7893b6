#!/bin/sh
# OpenBLAS's thread pool stays asleep: loaded with the transformer_block
# plugin at startup, its pthread build starts a thread per core that spins
# for about 0.1 s, on the cores a run's first steps are measured on
# (harness/plugin/registry.c). The harness sets OPENBLAS_NUM_THREADS=1
# unless the user did: a run then has fewer threads than one where the user
# asked OpenBLAS for 2, which the harness leaves as it is.
. "$top_builddir/tests/setup"

# most_threads [ENV=VALUE]: the most threads one 0.7 s run had at once.
most_threads() {
    env ${1:+"$1"} "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --quiet --set component.config.duration_ns=10000000 \
        --set schedule.measurement_steps=70 --set profiling.trace=false --set profiling.memory=false \
        --output-dir "$SCRATCH/run_$$_${1:-default}" >/dev/null 2>&1 </dev/null &
    pid=$!
    most=0
    while kill -0 $pid 2>/dev/null; do
        n=$(ls /proc/$pid/task 2>/dev/null | wc -l)
        [ "$n" -gt "$most" ] && most=$n
        sleep 0.05
    done
    wait $pid || most=0     # a failed run counts as none
    echo "$most"
}

[ -d /proc/self/task ] || { echo "skip: no /proc/PID/task here"; exit 77; }
asleep=$(unset OPENBLAS_NUM_THREADS; most_threads)
pool=$(most_threads OPENBLAS_NUM_THREADS=2)
[ "$asleep" -gt 0 ] && [ "$pool" -gt "$asleep" ] &&
    pass "no OpenBLAS pool by default ($asleep threads; $pool with OPENBLAS_NUM_THREADS=2)" ||
    fail "threads: $asleep by default, $pool with OPENBLAS_NUM_THREADS=2 (the pool should be the difference)"
finish
