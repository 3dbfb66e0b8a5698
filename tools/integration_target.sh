#!/usr/bin/env bash
# Integration targets through ansible-test, as an Ansible contributor runs them: `ansible-test
# integration <target> --local` in the collection tree (the staged copy, see tools/lib.sh), with
# the ceiling's ansible-core. Each target's runme.sh starts an emulator for it and stops it at the
# end (tests/integration/targets/setup_emulator/files/ansible_test_target.py). --local, not
# --venv: the emulator and the modules' requests must be importable, and they are in .venv.
# Usage: tools/integration_target.sh TARGET... [ansible-test integration options, e.g. -v]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -gt 0 ] || die "usage: $0 TARGET... [ansible-test integration options, e.g. -v]"
[ -x "$CEILING_VENV/bin/ansible-test" ] || die "$CEILING_VENV has no ansible-test; run tools/bootstrap.sh ceiling"

stage_collection
cd "$STAGED_COLLECTION"
PATH="$CEILING_VENV/bin:$PATH" "$CEILING_VENV/bin/ansible-test" integration --local --color no "$@"
