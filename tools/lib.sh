# Shared shell helpers for the Makefile's scripts. Source it; it sets REPO, paths and functions.
# shellcheck shell=bash
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export REPO
CEILING_VENV="$REPO/.venv"
FLOOR_VENV="$REPO/.venv-floor"
# The collection must sit at .../ansible_collections/cloudcompute/cloud for ansible-test and for
# ANSIBLE_COLLECTIONS_PATH; a symlink does not satisfy ansible-test, so we copy (it is fast).
# The copy lives outside this checkout: inside it, ansible-test would ask git for the file list
# and find the copy git-ignored. One copy per checkout, so clones do not trample each other, and
# one per lane of a full run (tools/test.sh runs two lanes of stages at once).
COLLECTIONS_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/cloudcompute-cloud/$(printf '%s' "$REPO" | sha256sum | cut -c1-12)${TEST_LANE:+-$TEST_LANE}/collections"
STAGED_COLLECTION="$COLLECTIONS_ROOT/ansible_collections/cloudcompute/cloud"
export COLLECTIONS_ROOT STAGED_COLLECTION
# The ansible-core releases CI tests, each on a Python its controller supports here
# (CONTRIBUTING.md, "The version matrix"). The floor (.venv-floor, requirements-dev-floor.txt)
# and the ceiling (.venv, requirements-dev.txt) carry the toolchains of every stage; each release
# between them gets a small venv, .venv-<release>, with only what sanity and the unit tests need
# (requirements-dev-matrix.txt) and the ansible-core pinned here.
FLOOR_CORE=2.16
CEILING_CORE=2.21
MIDDLE_CORES=(2.17 2.18 2.19 2.20)
declare -A MIDDLE_CORE_PIN=([2.17]=2.17.14 [2.18]=2.18.19 [2.19]=2.19.14 [2.20]=2.20.10)
declare -A CORE_PYTHON=([2.16]=3.11 [2.17]=3.12 [2.18]=3.13 [2.19]=3.11 [2.20]=3.12 [2.21]=3.13)

# The release a matrix name stands for: floor, ceiling, or the release itself (2.18).
core_release() {
    case $1 in
        floor) echo "$FLOOR_CORE" ;;
        ceiling) echo "$CEILING_CORE" ;;
        *) [ -n "${CORE_PYTHON[$1]:-}" ] || die "ansible-core $1 is not in the matrix (${!CORE_PYTHON[*]})"
           echo "$1" ;;
    esac
}

# The venv of a matrix name or release.
core_venv() {
    local release
    release=$(core_release "$1")
    case $release in
        "$FLOOR_CORE") echo "$FLOOR_VENV" ;;
        "$CEILING_CORE") echo "$CEILING_VENV" ;;
        *) echo "$REPO/.venv-$release" ;;
    esac
}

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Print the real path of a Python interpreter of version $1 (e.g. 3.13). pyenv shims for
# non-global versions fail (and fail inside ansible-test), so resolve to the interpreter itself;
# and a virtualenv's python (first on PATH when it is activated, or inside tools/test.sh) to
# the base interpreter it links to, or bootstrap.sh would rebuild .venv from itself.
find_python() {
    local version=$1 candidate real
    local pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
    for candidate in "python$version" "$pyenv_root"/versions/"$version"*/bin/"python$version" \
                     /usr/local/bin/"python$version" /usr/bin/"python$version"; do
        real=$("$candidate" -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null) || continue
        [ -n "$real" ] && { printf '%s\n' "$real"; return 0; }
    done
    return 1
}

# Copy the collection's git-visible files (tracked, or untracked and not ignored) into the
# ansible_collections tree. Development tooling that is not collection content stays out, so
# sanity tests the collection users install.
stage_collection() {
    rm -rf "$STAGED_COLLECTION"
    mkdir -p "$STAGED_COLLECTION"
    (
        cd "$REPO"
        git ls-files -z --cached --others --exclude-standard |
            while IFS= read -r -d '' path; do
                case $path in emulator/*|bench/*|tools/*|.ci/*) continue ;; esac
                [ -e "$path" ] && printf '%s\0' "$path"
            done |
            xargs -0 --no-run-if-empty cp --parents -t "$STAGED_COLLECTION"
    )
}

# Run a command as a named, timed stage; the summary lines are printed at the end by
# print_stage_summary. A failing stage is recorded and the run goes on, so one run shows
# every broken stage.
STAGE_RESULTS=()
FAILED_STAGES=0
run_stage() {
    local name=$1 started status
    shift
    log "stage: $name"
    started=$(date +%s)
    if "$@"; then status=ok; else status=FAILED; FAILED_STAGES=$((FAILED_STAGES + 1)); fi
    STAGE_RESULTS+=("$(printf '%-28s %-6s %4ss' "$name" "$status" "$(( $(date +%s) - started ))")")
    log "stage: $name $status in $(( $(date +%s) - started ))s"
}

print_stage_summary() {
    printf '\n%-28s %-6s %5s\n' STAGE RESULT TIME
    printf '%s\n' "${STAGE_RESULTS[@]}"
}
