#!/bin/sh
# The results database under CI load and in bad shape (issue 38):
# - 16 `harness record` at once into one database, 200k-sample runs, while
#   history reads it: every record lands (rows counted after), no reader fails;
# - a record waits out another process's lock (and says so), and one past
#   --db-timeout / HARNESS_DB_TIMEOUT is exit 3 naming the file and the wait;
# - history and compare --baseline-db open read-only: a read-only file and
#   folder work, and the file's bytes never change (a rollback-journal
#   database stays one); an older schema is refused, not upgraded;
# - damaged databases and bad schema versions are exit 2 naming the file
#   and what is wrong, for readers and for record (which stores nothing);
# - hostile paths and states: a folder, a symlink loop, a symlink, a device,
#   a missing folder, an empty file, a hot journal of a crashed writer, a
#   WAL writer killed, a file-size limit, a reader under an exclusive lock,
#   a record killed while it waits, a full disk.
. "$top_builddir/tests/setup"
TOOLS="$top_srcdir/tests/tools"
db="$SCRATCH/load.sqlite"

sha() { sha256sum "$1" | cut -d' ' -f1; }
# rows TABLE [DB]: the table's row count
rows() {
    python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM ' + sys.argv[2]).fetchone()[0])" \
        "${2:-$db}" "$1"
}
# sql DB STATEMENT...: run statements on a copy made for one case
sql() {
    f=$1; shift
    python3 - "$f" "$@" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
for s in sys.argv[2:]:
    c.execute(s)
c.close()
PY
}
# bad CODE TEXT DESC ARGS...: harness ARGS exits CODE and says TEXT
bad() {
    code=$1; text=$2; desc=$3; shift 3
    expect_exit "$code" "$desc" "$HARNESS" "$@"
    expect_err "$text" "$desc: the message"
}

# One real run of 200k steps (spin of 100 ns: well under a second), then 17
# folders of it whose summaries differ (env.started_at), so each is a run of
# its own: 200k samples each, in the run's binary samples file.
big=$("$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/run" --quiet \
    --set component.config.duration_ns=100 --set schedule.measurement_steps=200000 \
    --set profiling.trace=false --set profiling.memory=false 2>/dev/null) || fail "a 200k-step run"
python3 - "$big" "$SCRATCH/copies" <<'PY' || fail "copying the run"
import json, os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
for i in range(17):
    d = os.path.join(dst, "2026-01-01__00-00-%02d_%08x" % (i, i))
    shutil.copytree(src, d)
    p = os.path.join(d, "summary_ranks_1_rank_0.json")
    s = json.load(open(p))
    s["env"]["started_at"] = "2026-01-01T00:00:%02dZ" % i
    json.dump(s, open(p, "w"))
PY
set -- "$SCRATCH"/copies/*
first=$1
expect_exit 0 "the first record creates the database" "$HARNESS" record "$first" --db "$db" --branch main
[ "$(rows samples)" = 200000 ] || fail "a run's 200000 samples stored (got $(rows samples))"

# ---- 16 records at once, and readers meanwhile ------------------------------
# Another process holds the write lock for the first 6 s, so every record
# waits longer than the 5 s SQLite busy timeout that lost records before.
python3 - "$db" "$SCRATCH/held" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
time.sleep(6)
c.execute("ROLLBACK")
PY
holder=$!
n=0
while [ ! -e "$SCRATCH/held" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
shift
pids=
i=0
for d in "$@"; do
    i=$((i + 1))
    "$HARNESS" record "$d" --db "$db" --branch main >"$SCRATCH/rec$i.out" 2>"$SCRATCH/rec$i.err" &
    pids="$pids $!"
done
readers_failed=0
r=0
while [ $r -lt 6 ]; do             # history (a reader) while they write: never blocked, never fails
    "$HARNESS" history --db "$db" >/dev/null 2>"$SCRATCH/reader.err" ||
        { readers_failed=$((readers_failed + 1)); sed 's/^/  reader: /' "$SCRATCH/reader.err"; }
    r=$((r + 1))
done
i=0
landed=0
for p in $pids; do
    i=$((i + 1))
    if wait "$p"; then landed=$((landed + 1)); else sed "s/^/  record $i: /" "$SCRATCH/rec$i.err"; fi
done
wait "$holder"
[ "$landed" = 16 ] && pass "16 parallel records all exit 0" || fail "16 parallel records: $landed exit 0"
[ "$(grep -l "^harness: waited [0-9.]* s for the database lock of $db" "$SCRATCH"/rec*.err | wc -l)" = 16 ] &&
    pass "each of the 16 says how long it waited" || fail "not every record said it waited"
[ "$readers_failed" = 0 ] && pass "history while 16 records write" || fail "history failed $readers_failed times"
[ "$(rows runs)" = 17 ] && pass "17 runs stored" || fail "runs stored: $(rows runs), expected 17"
[ "$(rows samples)" = 3400000 ] && pass "17 x 200000 samples stored" || fail "samples: $(rows samples)"
expect_exit 0 "history of the 17 runs" "$HARNESS" history --db "$db"
grep -q ": 17 runs," "$SCRATCH/out" || fail "history shows the 17 runs"

# ---- waiting for a lock, and giving up ---------------------------------------
# hold LOCK_S COMMAND...: run COMMAND while another connection holds the
# write lock for LOCK_S seconds (then lets go); exit code and stderr as usual.
hold() {
    python3 - "$db" "$@" <<'PY'
import sqlite3, subprocess, sys, threading, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, check_same_thread=False)
c.execute("BEGIN EXCLUSIVE")
hold = float(sys.argv[2])
t = threading.Timer(hold, lambda: c.execute("ROLLBACK"))
t.daemon = True                 # a command that gave up does not wait for the release
t.start()
r = subprocess.run(sys.argv[3:], stdout=open("out", "w"), stderr=open("err", "w"))
sys.exit(r.returncode)
PY
}
more=$(python3 - "$first" "$SCRATCH/more" <<'PY'
import json, os, shutil, sys
d = os.path.join(sys.argv[2], "2026-02-01__00-00-00_0000abcd")
shutil.copytree(sys.argv[1], d)
p = os.path.join(d, "summary_ranks_1_rank_0.json")
s = json.load(open(p)); s["env"]["started_at"] = "2026-02-01T00:00:00Z"; json.dump(s, open(p, "w"))
print(d)
PY
)
before=$(rows runs)
hold 3 "$HARNESS" record "$more" --db "$db" --branch main
got=$?
[ $got = 0 ] && pass "a record waits out a lock held 3 s" || { fail "record under a 3 s lock: exit $got"; cat err; }
grep -q "^harness: waited [2-9]\.[0-9] s for the database lock of $db" err && pass "the wait is said" ||
    { fail "no 'waited N s' line"; cat err; }
[ "$(rows runs)" = $((before + 1)) ] || fail "the waiting record landed"
hold 5 "$HARNESS" record "$first" --db "$db" --db-timeout 0.5
got=$?
[ $got = 3 ] || fail "record past --db-timeout 0.5: exit $got, expected 3"
grep -q "^harness: $db: recording: database is locked: waited 0\.5 s for the lock (the limit, --db-timeout or \
HARNESS_DB_TIMEOUT, is 0\.5 s) while another process held it; nothing recorded" err &&
    pass "a lock past --db-timeout: exit 3 naming the file and the wait" || { fail "timeout message"; cat err; }
HARNESS_DB_TIMEOUT=0.3 hold 5 "$HARNESS" record "$more" --db "$db"
got=$?
[ $got = 3 ] && grep -q "waited 0\.3 s" err && pass "HARNESS_DB_TIMEOUT=0.3" || { fail "HARNESS_DB_TIMEOUT: $got"; cat err; }
# --db-timeout 0: no wait at all
hold 5 "$HARNESS" record "$more" --db "$db" --db-timeout 0
[ $? = 3 ] && grep -q "waited 0\.0 s" err && pass "--db-timeout 0 does not wait" || { fail "--db-timeout 0"; cat err; }
[ "$(rows runs)" = $((before + 1)) ] || fail "nothing recorded by the records that timed out"
for v in -1 abc 1e9 nan ""; do
    bad 2 "--db-timeout '$v' is not a number of seconds from 0 to 86400" "--db-timeout '$v'" \
        record "$more" --db "$db" --db-timeout "$v"
done
HARNESS_DB_TIMEOUT=soon expect_exit 2 "HARNESS_DB_TIMEOUT=soon" "$HARNESS" history --db "$db"
expect_err "HARNESS_DB_TIMEOUT 'soon' is not a number of seconds" "HARNESS_DB_TIMEOUT=soon: the message"

# ---- readers never write -------------------------------------------------------
# a clean copy of the database (the backup API folds the WAL in), in a
# folder of its own; JOURNAL: the copy's journal mode
copy_db() {
    python3 - "$db" "$1" "$2" <<'PY'
import sqlite3, sys
src, dst = sqlite3.connect(sys.argv[1]), sqlite3.connect(sys.argv[2])
src.backup(dst)
dst.execute("PRAGMA journal_mode = " + sys.argv[3])
dst.close()
PY
}
# reads DESC DB: history and compare --baseline-db succeed on DB, whose bytes stay
reads() {
    before=$(sha "$2")
    expect_exit 0 "$1: history" "$HARNESS" history --db "$2"
    "$HARNESS" compare --baseline-db "$2" --baseline-branch main "$more" >"$SCRATCH/out" 2>"$SCRATCH/err"
    got=$?
    [ $got = 0 ] || [ $got = 1 ] && pass "$1: compare --baseline-db (exit $got)" ||
        { fail "$1: compare --baseline-db: exit $got"; sed 's/^/  stderr: /' "$SCRATCH/err"; }
    [ "$(sha "$2")" = "$before" ] && pass "$1: the file's bytes unchanged" || fail "$1: the file changed"
}
for mode in wal delete; do
    mkdir "$SCRATCH/ro_$mode"
    copy_db "$SCRATCH/ro_$mode/r.sqlite" $mode || fail "copying the database ($mode)"
    chmod 444 "$SCRATCH/ro_$mode/r.sqlite"
    chmod 555 "$SCRATCH/ro_$mode"
    reads "read-only $mode database" "$SCRATCH/ro_$mode/r.sqlite"
done
# a rollback-journal database stays one (history used to convert it to WAL)
python3 -c "import sys; b = open(sys.argv[1], 'rb').read(20); assert b[18] == 1 and b[19] == 1, b[18:20]" \
    "$SCRATCH/ro_delete/r.sqlite" && pass "a rollback-journal database stays one" || fail "history changed the journal"
# root ignores file modes: the same as a user who really cannot write
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
    chmod 755 "$SCRATCH"
    for mode in wal delete; do
        mkdir "$SCRATCH/nobody_$mode"
        copy_db "$SCRATCH/nobody_$mode/r.sqlite" $mode
        chmod 444 "$SCRATCH/nobody_$mode/r.sqlite"
        chmod 555 "$SCRATCH/nobody_$mode"
        before=$(sha "$SCRATCH/nobody_$mode/r.sqlite")
        expect_exit 0 "read-only $mode database, as nobody: history" \
            setpriv --reuid=65534 --regid=65534 --clear-groups "$HARNESS" history --db "$SCRATCH/nobody_$mode/r.sqlite"
        [ "$(sha "$SCRATCH/nobody_$mode/r.sqlite")" = "$before" ] || fail "nobody's history changed the file"
        [ "$(ls "$SCRATCH/nobody_$mode")" = r.sqlite ] || fail "files appeared beside a read-only $mode database"
    done
    chmod 755 "$SCRATCH"/nobody_*
fi
chmod 755 "$SCRATCH"/ro_*
# writable: still nothing written
mkdir "$SCRATCH/rw"
copy_db "$SCRATCH/rw/r.sqlite" delete
reads "a writable rollback-journal database" "$SCRATCH/rw/r.sqlite"
[ ! -e "$SCRATCH/rw/r.sqlite-wal" ] || fail "history turned a rollback-journal database into WAL"

# an older schema: readers refuse it and say how to upgrade; record upgrades it
copy_db "$SCRATCH/v2.sqlite" delete
sql "$SCRATCH/v2.sqlite" "ALTER TABLE runs DROP COLUMN energy_j_per_step" "ALTER TABLE runs DROP COLUMN watts" \
    "ALTER TABLE windows DROP COLUMN energy_j_per_step" "UPDATE schema_version SET version = 2" ||
    fail "making a schema-2 database"
before=$(sha "$SCRATCH/v2.sqlite")
bad 2 "$SCRATCH/v2.sqlite: schema version 2, older than this harness's 3; history and compare only read a database \
and never upgrade it: run harness record into it once (with write access) to upgrade it" "history of schema 2" \
    history --db "$SCRATCH/v2.sqlite"
[ "$(sha "$SCRATCH/v2.sqlite")" = "$before" ] || fail "history changed a schema-2 database"
expect_exit 0 "record upgrades schema 2" "$HARNESS" record "$more" --db "$SCRATCH/v2.sqlite" --branch main
expect_exit 0 "history after the upgrade" "$HARNESS" history --db "$SCRATCH/v2.sqlite"

# ---- bad schema versions and damaged files -----------------------------------
small=$(mktemp -d "$SCRATCH/small.XXXX")
"$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$small" --quiet --set profiling.trace=false \
    --set profiling.memory=false >/dev/null 2>&1 || fail "a small run"
"$HARNESS" record "$small" --db "$SCRATCH/good.sqlite" >/dev/null || fail "a small database"
# case NAME TEXT SQL...: a copy of the good database changed by SQL; history,
# compare --baseline-db and record each exit 2 naming it and saying TEXT;
# record stores nothing
case_db() {
    cname=$1; ctext=$2; shift 2
    cf="$SCRATCH/$cname.sqlite"
    python3 -c "import sqlite3, sys; s = sqlite3.connect(sys.argv[1]); d = sqlite3.connect(sys.argv[2]); s.backup(d)" \
        "$SCRATCH/good.sqlite" "$cf"
    sql "$cf" "$@"
    sum=$(sha "$cf")
    bad 2 "$cf: $ctext" "$cname: history" history --db "$cf"
    bad 2 "$cf: $ctext" "$cname: compare --baseline-db" compare --baseline-db "$cf" "$more"
    bad 2 "$cf: $ctext" "$cname: record" record "$more" --db "$cf"
    expect_err "nothing recorded" "$cname: record says nothing recorded"
    [ "$(sha "$cf")" = "$sum" ] || fail "$cname: the file changed"
}
case_db version-5 "schema version -5 is out of range (one row holding the schema's version, 1 to 3, is expected)" \
    "UPDATE schema_version SET version = -5"
case_db version0 "schema version 0 is out of range" "UPDATE schema_version SET version = 0"
case_db version_empty "the schema_version table is empty" "DELETE FROM schema_version"
case_db version_2rows "the schema_version table holds 2 rows" "INSERT INTO schema_version VALUES (3)"
case_db version_future "written by a newer harness (schema version 1099511627776; this harness reads up to 3)" \
    "UPDATE schema_version SET version = 1099511627776"
case_db version_text "the schema version is text 'three', not an integer" "UPDATE schema_version SET version = 'three'"
case_db version_column "the schema_version table cannot be read (no such column: version)" \
    "ALTER TABLE schema_version RENAME COLUMN version TO v"
case_db no_version "an SQLite database without harness's schema_version table" "DROP TABLE schema_version"

# damage NAME HOW TEXT: the good database with a part changed by Python
# (HOW); readers and record exit 2 naming it and saying TEXT
damage() {
    name=$1; dtext=$3
    f="$SCRATCH/$name.sqlite"
    python3 -c "import sqlite3, sys; s = sqlite3.connect(sys.argv[1]); d = sqlite3.connect(sys.argv[2]); s.backup(d)
d.execute('PRAGMA journal_mode = DELETE')" "$SCRATCH/good.sqlite" "$f"
    python3 - "$f" "$2" <<'PY'
import sys
p, how = sys.argv[1], sys.argv[2]
b = bytearray(open(p, "rb").read())
page = int.from_bytes(b[16:18], "big")
if how == "garbage":            # pages 2 to the end overwritten
    for i in range(page, len(b)):
        b[i] = 0xA5
elif how == "truncated":        # the last pages gone
    b = b[:len(b) // 2]
elif how == "header":           # the magic string damaged
    b[0:16] = b"not SQLite form\0"
open(p, "wb").write(b)
PY
    sum=$(sha "$f")
    bad 2 "$f: " "$name: history" history --db "$f"
    expect_err "$dtext" "$name: says $dtext"
    bad 2 "$f: " "$name: record" record "$more" --db "$f"
    expect_err "$dtext" "$name: record says $dtext"
    expect_err "nothing recorded" "$name: record says nothing recorded"
    [ "$(sha "$f")" = "$sum" ] || fail "$name: the file changed"
}
damage garbage garbage "malformed; the database is damaged: restore it from a backup"
damage truncated truncated "the database is damaged"
damage header header "file is not a database; not a harness results database, or a damaged one"

# ---- hostile paths and states ---------------------------------------------------
# 8 records at once into a database that does not exist yet: one creates
# the schema, the others wait for it and land
python3 - "$small" "$SCRATCH/fresh" <<'PY' || fail "copying the small run"
import json, os, shutil, sys
src = [os.path.join(sys.argv[1], d) for d in os.listdir(sys.argv[1])][0]
for i in range(8):
    d = os.path.join(sys.argv[2], "2026-03-01__00-00-%02d_%08x" % (i, i))
    shutil.copytree(src, d)
    p = os.path.join(d, "summary_ranks_1_rank_0.json")
    s = json.load(open(p)); s["env"]["started_at"] = "2026-03-01T00:00:%02dZ" % i; json.dump(s, open(p, "w"))
PY
pids=
for d in "$SCRATCH"/fresh/*; do
    "$HARNESS" record "$d" --db "$SCRATCH/fresh.sqlite" >/dev/null 2>>"$SCRATCH/fresh.err" & pids="$pids $!"
done
landed=0
for p in $pids; do wait "$p" && landed=$((landed + 1)); done
[ "$landed" = 8 ] && [ "$(rows runs "$SCRATCH/fresh.sqlite")" = 8 ] && pass "8 records create one database at once" ||
    { fail "8 records into a new database: $landed landed"; cat "$SCRATCH/fresh.err"; }

mkdir "$SCRATCH/adir.sqlite"
bad 2 "$SCRATCH/adir.sqlite: not a file (a folder)" "--db a folder: record" record "$more" --db "$SCRATCH/adir.sqlite"
bad 2 "$SCRATCH/adir.sqlite: not a file (a folder)" "--db a folder: history" history --db "$SCRATCH/adir.sqlite"
ln -s loop2 "$SCRATCH/loop1"; ln -s loop1 "$SCRATCH/loop2"
bad 2 "$SCRATCH/loop1: Too many levels of symbolic links" "--db a symlink loop" record "$more" --db "$SCRATCH/loop1"
bad 3 "$SCRATCH/nowhere/x.sqlite: cannot open: unable to open database file; check that its folder exists" \
    "--db in a missing folder" record "$more" --db "$SCRATCH/nowhere/x.sqlite"
: >"$SCRATCH/empty.sqlite"
bad 2 "$SCRATCH/empty.sqlite: an empty database (no runs recorded); record runs into it first" \
    "history of an empty file" history --db "$SCRATCH/empty.sqlite"
[ ! -s "$SCRATCH/empty.sqlite" ] || fail "history wrote into an empty file"
expect_exit 0 "record into an empty file" "$HARNESS" record "$small" --db "$SCRATCH/empty.sqlite"

# a crashed writer's hot journal (rollback mode): readers cannot roll it
# back and say who can; record does, then everything reads
python3 -c "import sqlite3, sys; s = sqlite3.connect(sys.argv[1]); d = sqlite3.connect(sys.argv[2]); s.backup(d)
d.execute('PRAGMA journal_mode = DELETE')" "$SCRATCH/good.sqlite" "$SCRATCH/hot.sqlite"
python3 - "$SCRATCH/hot.sqlite" <<'PY' || fail "making a hot journal"
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("CREATE TABLE ballast (x BLOB)")     # pages enough that the change spills to the file
c.execute("INSERT INTO ballast SELECT zeroblob(1000) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
          "SELECT i + 1 FROM n WHERE i < 2000) SELECT i FROM n)")
c.execute("PRAGMA cache_size = 1")
c.execute("BEGIN IMMEDIATE")
c.execute("UPDATE ballast SET x = randomblob(1000)")
c.execute("DELETE FROM samples")
os._exit(0)                     # the writer dies mid-transaction
PY
[ -s "$SCRATCH/hot.sqlite-journal" ] || fail "no hot journal left"
bad 3 "a writer was interrupted and left a hot journal ($SCRATCH/hot.sqlite-journal)" "history of a hot journal" \
    history --db "$SCRATCH/hot.sqlite"
expect_exit 0 "record rolls a hot journal back" "$HARNESS" record "$more" --db "$SCRATCH/hot.sqlite" --branch main
[ "$(rows samples "$SCRATCH/hot.sqlite")" = $(( $(rows samples "$SCRATCH/good.sqlite") + 200000 )) ] ||
    fail "the crashed writer's deletion was rolled back"

# a WAL writer killed mid-record: the runs it had not committed are not
# there, the rest reads
python3 - "$db" <<'PY' || fail "killing a WAL writer"
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
c.execute("DELETE FROM samples")
os._exit(0)
PY
expect_exit 0 "history after a WAL writer died" "$HARNESS" history --db "$db"
[ "$(rows samples)" = $(( $(rows runs) * 200000 )) ] || fail "a dead WAL writer's deletion is not seen"

# a file-size limit reached while writing: exit 3 saying so (not a silent
# SIGXFSZ), nothing recorded, the database reads
cp "$SCRATCH/good.sqlite" "$SCRATCH/limited.sqlite"
before=$(rows runs "$SCRATCH/limited.sqlite")
(ulimit -f 1000; exec "$HARNESS" record "$more" --db "$SCRATCH/limited.sqlite") >"$SCRATCH/out" 2>"$SCRATCH/err"
got=$?
[ $got = 3 ] && pass "record past ulimit -f: exit 3" || fail "record past ulimit -f: exit $got, expected 3"
expect_err "$SCRATCH/limited.sqlite: storing a run's samples: disk I/O error (File too large: the file-size limit, \
ulimit -f, was reached)" "ulimit -f: the message"
expect_err "nothing recorded" "ulimit -f: nothing recorded"
[ "$(rows runs "$SCRATCH/limited.sqlite")" = "$before" ] || fail "ulimit -f: the database changed"

# --db through a symlink: recorded into the file it names, the WAL beside it
ln -s good.sqlite "$SCRATCH/link.sqlite"
expect_exit 0 "--db a symlink to the database" "$HARNESS" record "$more" --db "$SCRATCH/link.sqlite"
[ "$(rows runs "$SCRATCH/good.sqlite")" = $((before + 1)) ] || fail "a symlinked --db: recorded into its target"
bad 2 "/dev/null: not a file (a device, pipe or socket)" "--db /dev/null" history --db /dev/null

# a reader of a rollback-journal database waits for a writer's exclusive
# lock like a writer, and gives up at HARNESS_DB_TIMEOUT with exit 3
copy_db "$SCRATCH/excl.sqlite" delete
python3 - "$SCRATCH/excl.sqlite" "$HARNESS" <<'PY' || fail "a reader under an exclusive lock"
import os, sqlite3, subprocess, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
r = subprocess.run([sys.argv[2], "history", "--db", sys.argv[1]], capture_output=True, text=True,
                   env=dict(os.environ, HARNESS_DB_TIMEOUT="0.5"))
assert r.returncode == 3, (r.returncode, r.stderr)
assert "database is locked: waited 0.5 s for the lock" in r.stderr and "nothing recorded" not in r.stderr, r.stderr
PY

# a record killed (SIGTERM) while it waits for the lock: nothing recorded,
# and the next record lands
before=$(rows runs)
python3 - "$db" "$HARNESS" "$more" <<'PY' || fail "a record killed while waiting"
import signal, sqlite3, subprocess, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
p = subprocess.Popen([sys.argv[2], "record", sys.argv[3], "--db", sys.argv[1], "--branch", "killed"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.5)
p.send_signal(signal.SIGTERM)
p.wait()
c.execute("ROLLBACK")
PY
[ "$(rows runs)" = "$before" ] || fail "a killed record stored something"

# a full disk: exit 3 naming the file, nothing recorded, the database reads
disk="$SCRATCH/disk"
mkdir "$disk"
if mount -t tmpfs -o size=600k tmpfs "$disk" 2>/dev/null; then
    trap 'umount "$disk" 2>/dev/null; rm -rf "$SCRATCH"' EXIT
    "$HARNESS" record "$small" --db "$disk/full.sqlite" >/dev/null || fail "a small record on the small disk"
    bad 3 "database or disk is full; free space on its file system" "record on a full disk" \
        record "$more" --db "$disk/full.sqlite"
    expect_err "harness: $disk/full.sqlite: " "full disk: the message names the file"
    expect_err "nothing recorded" "full disk: nothing recorded"
    expect_exit 0 "history after a full disk" "$HARNESS" history --db "$disk/full.sqlite"
    [ "$(rows runs "$disk/full.sqlite")" = 1 ] || fail "full disk: the database keeps its one run"
    umount "$disk"
else
    echo "skip: the full disk (cannot mount a tmpfs here)"
fi
finish
