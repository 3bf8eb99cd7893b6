#!/bin/sh
# On this machine (package lists, autotools, a configured tree), make what a
# fresh GPU machine with no network needs to run tests/gpu/run.sh, in
# tests/gpu/carry/ (git-ignored, carried to it by name):
#   harness-VERSION.tar.gz  `make dist` of this tree: the generated configure,
#                           so the GPU machine needs no autotools
#   debs/*.deb              the build dependencies (tests/gpu/fetch_deps.sh),
#                           unpacked there into a private prefix by run.sh
#   SOURCE                  the commit and state of the tree the tarball was
#                           made from: run.sh --dry-run says when it is stale
# and print its size beside what else travels (the device tool's limit is
# 64 MiB for the working tree and the carried paths together).
#
#   usage: tests/gpu/prepare.sh      (from anywhere in the tree)
set -eu
cd "$(dirname "$0")/../.."
repo=$(pwd)
carry=$repo/tests/gpu/carry
. "$repo/tests/gpu/source_state.sh"

[ -f Makefile ] || { echo "tests/gpu/prepare.sh: configure the tree first (scripts/setup)" >&2; exit 2; }
rm -rf "$carry"
mkdir -p "$carry/debs"

# The tarball: `make dist` writes it at the top; it is moved into carry/.
make dist >"$carry/dist.log" 2>&1 || { tail -20 "$carry/dist.log" >&2; exit 1; }
for t in harness-*.tar.gz; do mv "$t" "$carry/"; done
rm -f "$carry/dist.log"

# The .deb files. apt-get download needs the package lists (apt-get update).
sh "$repo/tests/gpu/fetch_deps.sh" "$carry/debs" >/dev/null ||
    { echo "tests/gpu/prepare.sh: apt-get download failed (apt-get update first?)" >&2; exit 1; }

source_state >"$carry/SOURCE"

kib() { du -sk "$1" | cut -f1; }
tree_kib=$(git ls-files -z -co --exclude-standard | xargs -0 du -ck 2>/dev/null | tail -1 | cut -f1)
carry_kib=$(kib "$carry")
echo "tests/gpu/prepare.sh: tests/gpu/carry: $(ls "$carry"/*.tar.gz | xargs -n1 basename)," \
    "$(ls "$carry"/debs/*.deb | wc -l) .debs; $((carry_kib / 1024)).$((carry_kib % 1024 * 10 / 1024)) MiB," \
    "the working tree $((tree_kib / 1024)) MiB, together $(((carry_kib + tree_kib) / 1024)) MiB of the 64 allowed"
[ $((carry_kib + tree_kib)) -lt $((64 * 1024)) ] || { echo "tests/gpu/prepare.sh: over 64 MiB" >&2; exit 1; }
