#!/usr/bin/env bash
# One Python dialect for plugins/ and tests/: ruff's fixes (pyupgrade to Python 3.9, imports
# sorted, ...) and ruff format, configured in pyproject.toml. ruff has no rule for the Python 2
# `__metaclass__ = type` line, so this script drops it first (pyupgrade's fixes drop the
# `from __future__` imports and the coding lines).
# Usage: tools/format.sh           rewrite the files
#        tools/format.sh --check   change nothing; fail if a file is not clean or not formatted
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ruff="$CEILING_VENV/bin/ruff"
[ -x "$ruff" ] || die "$CEILING_VENV has no ruff; run tools/bootstrap.sh ceiling"
cd "$REPO"
paths=(plugins tests)

case ${1:-} in
    --check)
        status=0
        "$ruff" check --no-fix "${paths[@]}" || status=1
        "$ruff" format --check "${paths[@]}" || status=1
        exit "$status"
        ;;
    "")
        git ls-files -z -- "${paths[@]/%//*.py}" | xargs -0 --no-run-if-empty sed -i '/^__metaclass__ = type$/d'
        # fixes first, then the formatter lays out what they changed
        "$ruff" check --fix --exit-zero --quiet "${paths[@]}"
        "$ruff" format "${paths[@]}"
        "$ruff" check "${paths[@]}"
        ;;
    *) die "usage: $0 [--check]" ;;
esac
