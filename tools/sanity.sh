#!/usr/bin/env bash
# ansible-test sanity on the staged collection with one ansible-core of the matrix, on the Python
# tools/lib.sh pairs with it. Usage: tools/sanity.sh floor|ceiling|<release, e.g. 2.18>
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

release=$(core_release "${1:?floor, ceiling or an ansible-core release of the matrix}")
venv=$(core_venv "$release")
python_version=${CORE_PYTHON[$release]}
[ -x "$venv/bin/ansible-test" ] || die "$venv has no ansible-test; run tools/bootstrap.sh all"

"$venv/bin/python" "$REPO/tools/ansible_test_pip_bootstrap.py" 2>&1 | grep -v 'neither a file nor a directory' >&2 || true
stage_collection
cd "$STAGED_COLLECTION"
# ansible-test looks python$version up on PATH; the venv's interpreter is the real one (no shim).
PATH="$venv/bin:$PATH" "$venv/bin/ansible-test" sanity --venv --python "$python_version" --color no
