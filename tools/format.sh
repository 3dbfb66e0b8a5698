#!/usr/bin/env bash
# One Python dialect for plugins/ and tests/: ruff's fixes (pyupgrade to Python 3.9, imports
# sorted, ...) and ruff format, configured in pyproject.toml. The Python 2 boilerplate
# (`from __future__ import ...`, `__metaclass__ = type`) goes first: ruff has no rule for the
# second, and removing both here leaves no empty lines behind.
# Usage: tools/format.sh [--check] [DIR]
#   rewrite the files of plugins/ and tests/ in DIR (default: this checkout; another tree laid out
#   the same way, e.g. tools/code_metrics.py --formatted measuring an older revision);
#   --check: change nothing, fail if a file is not clean or not formatted.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ruff=("$CEILING_VENV/bin/ruff")
[ -x "${ruff[0]}" ] || die "$CEILING_VENV has no ruff; run tools/bootstrap.sh ceiling"
ruff+=(--config "$REPO/pyproject.toml")
check=false
[ "${1:-}" = --check ] && { check=true; shift; }
[ $# -le 1 ] || die "usage: $0 [--check] [DIR]"
cd "${1:-$REPO}"
paths=()
for path in plugins tests; do [ -d "$path" ] && paths+=("$path"); done
[ ${#paths[@]} -gt 0 ] || die "no plugins/ or tests/ in $PWD"

if $check; then
    status=0
    "${ruff[@]}" check --no-fix "${paths[@]}" || status=1
    "${ruff[@]}" format --check "${paths[@]}" || status=1
    exit "$status"
fi

# the Python 2 boilerplate, each line with the blank line after it
find "${paths[@]}" -name '*.py' -print0 | xargs -0 --no-run-if-empty perl -0pi -e \
    's/^from __future__ import absolute_import, division, print_function\n\n?//m; s/^__metaclass__ = type\n\n?//m'
# printf-style formatting to str.format (f-strings in the next pass): ruff calls this rewrite
# unsafe, as `"%s" % value` means something else when value is a tuple; the tests run after it say
# whether it was. The configuration leaves the rule out of the check (ruff cannot rewrite %d, %r).
"${ruff[@]}" check --fix --unsafe-fixes --select UP031 --config "lint.ignore = []" --exit-zero --quiet "${paths[@]}"
# fixes first, then the formatter lays out what they changed
"${ruff[@]}" check --fix --exit-zero --quiet "${paths[@]}"
"${ruff[@]}" format --quiet "${paths[@]}"
"${ruff[@]}" check "${paths[@]}"
