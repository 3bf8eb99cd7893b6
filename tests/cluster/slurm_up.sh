# tests/cluster/slurm_up.sh - sourced: a one-node Slurm cluster of this
# host, private to the caller. Needs $SCRATCH (an empty directory that the
# caller removes). Sets SLURM_CONF for srun/sbatch/scancel/squeue, and a trap
# that stops the daemons it started. slurm_up returns 0, or prints why and
# returns 77 (Slurm or munge absent, not root) or 1 (the cluster did not come up).

# slurm_free_port: a TCP port nobody listens on, from the kernel.
slurm_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])'
}

slurm_down() {
    for pid in ${slurm_pids-}; do kill "$pid" 2>/dev/null; done
    for pid in ${slurm_pids-}; do
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -KILL "$pid" 2>/dev/null
    done
    slurm_pids=
}

slurm_up() {
    for tool in munged slurmctld slurmd srun sbatch scancel sinfo; do
        command -v "$tool" >/dev/null 2>&1 || { echo "skip: $tool not installed (scripts/setup --with-slurm)"; return 77; }
    done
    [ -d /usr/lib/x86_64-linux-gnu/slurm-wlm ] && [ ! -e /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix.so ] &&
        { echo "skip: Slurm's PMIx plugin (mpi_pmix.so) not installed"; return 77; }
    [ "$(id -u)" -eq 0 ] || { echo "skip: slurmd launches jobs only as root"; return 77; }
    [ -r /etc/munge/munge.key ] || { echo "skip: no munge key (/etc/munge/munge.key)"; return 77; }
    d="$SCRATCH/slurm"
    mkdir -p "$d/state" "$d/spool" "$d/munge"
    chmod 700 "$d/munge"
    cp /etc/munge/munge.key "$d/munge/key"
    chmod 400 "$d/munge/key"
    host=$(hostname -s)
    cpus=$(nproc)
    [ "$cpus" -ge 4 ] || cpus=4    # -n 4 on a small machine: the node says 4 (config_overrides)
    : >"$d/plugstack.conf"
    cat >"$d/slurm.conf" <<EOF
ClusterName=harnesstest
SlurmctldHost=$host
SlurmctldPort=$(slurm_free_port)
SlurmdPort=$(slurm_free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/socket
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
PlugStackConfig=$d/plugstack.conf
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=pmix
KillWait=5
MinJobAge=5
ReturnToService=2
SchedulerType=sched/builtin
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
    SLURM_CONF="$d/slurm.conf"
    export SLURM_CONF
    trap 'slurm_down; rm -rf "$SCRATCH"' EXIT
    munged --foreground --force --socket="$d/munge/socket" --key-file="$d/munge/key" \
        --pid-file="$d/munge/pid" --log-file="$d/munge/log" --seed-file="$d/munge/seed" \
        >"$d/munged.out" 2>&1 &
    slurm_pids="$!"
    i=0
    while [ ! -S "$d/munge/socket" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    [ -S "$d/munge/socket" ] || { echo "munged did not start:"; cat "$d/munged.out" "$d/munge/log" 2>/dev/null; return 1; }
    slurmctld -D -i >"$d/slurmctld.out" 2>&1 &
    slurm_pids="$slurm_pids $!"
    slurmd -D -N "$host" >"$d/slurmd.out" 2>&1 &
    slurm_pids="$slurm_pids $!"
    # The node registers within seconds; "idle" once slurmctld has it.
    i=0
    while [ $i -lt 300 ]; do
        state=$(sinfo -h -n "$host" -o %t 2>/dev/null)
        [ "$state" = idle ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    echo "the node never became idle (state '${state-}'); the daemons' logs:"
    tail -n 20 "$d/slurmctld.log" "$d/slurmd.log" "$d/slurmctld.out" "$d/slurmd.out" 2>/dev/null
    return 1
}
