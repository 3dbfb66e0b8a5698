#!/usr/bin/env bash
# Mutation score of the decision code (`make mutation`, tools/mutation.py): on a staged copy of
# its own (a lane of its own, as tools/test.sh's lanes have), niced, since it runs the unit tests
# once per mutant. Usage: tools/mutation.sh [MODULE ...]
TEST_LANE=mutation
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
stage_collection
exec nice -n 10 "$CEILING_VENV/bin/python" "$REPO/tools/mutation.py" --staged "$STAGED_COLLECTION" "$@"
