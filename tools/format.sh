#!/usr/bin/env bash
# One Python dialect for plugins/ and tests/: ruff's fixes (pyupgrade to Python 3.9, imports
# sorted, ...) and ruff format, configured in pyproject.toml. The Python 2 boilerplate
# (`from __future__ import ...`, `__metaclass__ = type`) goes first: ruff has no rule for the
# second, and removing both here leaves no empty lines behind.
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
        # the Python 2 boilerplate, each line with the blank line after it
        git ls-files -z -- "${paths[@]/%//*.py}" | xargs -0 --no-run-if-empty perl -0pi -e \
            's/^from __future__ import absolute_import, division, print_function\n\n?//m; s/^__metaclass__ = type\n\n?//m'
        # printf-style formatting to str.format (f-strings in the next pass): ruff calls this
        # rewrite unsafe, as `"%s" % value` means something else when value is a tuple; the tests
        # run after it say whether it was. The configuration leaves the rule out of the check.
        "$ruff" check --fix --unsafe-fixes --select UP031 --config "lint.ignore = []" --exit-zero --quiet "${paths[@]}"
        # fixes first, then the formatter lays out what they changed
        "$ruff" check --fix --exit-zero --quiet "${paths[@]}"
        "$ruff" format "${paths[@]}"
        "$ruff" check "${paths[@]}"
        ;;
    *) die "usage: $0 [--check]" ;;
esac
