# tests/gpu/source_state.sh - sourced by prepare.sh and slices.sh: one line
# naming the state of the source tree, so that run.sh --dry-run can tell a
# carried tarball made from another state (a commit since, or an edit) from
# one of this tree (the tree at $repo). Outside a git checkout (an unpacked tarball) it says so.

source_state() {
    if commit=$(git -C "$repo" rev-parse HEAD 2>/dev/null); then
        # Edits to tracked files and untracked ones that are not ignored (names
        # and contents): what `make dist` would have packed differently.
        edits=$( (cd "$repo" && git diff HEAD && git ls-files -o --exclude-standard |
            while read -r f; do echo "$f"; cat "$f"; done) | sha256sum | cut -c1-12)
        echo "commit $commit edits $edits"
    else
        echo "commit none edits none"
    fi
}
