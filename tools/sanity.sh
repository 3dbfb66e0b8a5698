#!/usr/bin/env bash
# ansible-test sanity on the staged collection. Usage: tools/sanity.sh floor|ceiling
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:?floor or ceiling} in
    floor) venv=$FLOOR_VENV python_version=3.11 ;;
    ceiling) venv=$CEILING_VENV python_version=3.13 ;;
    *) die "usage: $0 floor|ceiling" ;;
esac

"$venv/bin/python" "$REPO/tools/ansible_test_pip_bootstrap.py" 2>&1 | grep -v 'neither a file nor a directory' >&2 || true
stage_collection
cd "$STAGED_COLLECTION"
# ansible-test looks python$version up on PATH; the venv's interpreter is the real one (no shim).
PATH="$venv/bin:$PATH" "$venv/bin/ansible-test" sanity --venv --python "$python_version" --color no
