#!/bin/sh
# Download, on a machine with Debian's package lists, the .deb files that
# tests/gpu/run.sh needs on a GPU machine that reaches no package registry:
# build headers and runtime libraries of harness's dependencies. Carry DIR
# there; run.sh unpacks it (dpkg -x) into a private prefix.
#   usage: tests/gpu/fetch_deps.sh DIR
set -eu
dir=${1:?usage: tests/gpu/fetch_deps.sh DIR}
mkdir -p "$dir"
cd "$dir"
# Runtime libraries and their -dev packages (headers, .so links, .pc files);
# OpenBLAS is left out: only CPU benchmarks use it.
apt-get download \
    libyaml-0-2 libyaml-dev libcjson1 libcjson-dev libltdl7 libltdl-dev libsqlite3-0 libsqlite3-dev \
    libcmocka0 libcmocka-dev 2>&1 | grep -v '^W: Download is performed unsandboxed' || true
echo "tests/gpu/fetch_deps.sh: $(ls -1 ./*.deb | wc -l) packages in $dir"
