#!/usr/bin/env bash
# The whole test suite, stage by stage, with a timing line per stage (README: `make test`).
# Every stage runs even when an earlier one failed; the exit status is non-zero if any failed.
# Usage: tools/test.sh [stage ...]   (default: all stages, in order)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The version matrix (CONTRIBUTING.md, "The version matrix"): sanity and unit tests on every
# ansible-core release from the floor to the ceiling; integration and molecule on the ceiling and
# again on the floor; everything else on the ceiling.
MATRIX_STAGES=()
for release in floor "${MIDDLE_CORES[@]}" ceiling; do MATRIX_STAGES+=("sanity-$release"); done
for release in floor "${MIDDLE_CORES[@]}" ceiling; do MATRIX_STAGES+=("units-$release"); done
ALL_STAGES=("${MATRIX_STAGES[@]}" emulator integration integration-floor reliability eda lint molecule molecule-floor
            release awx docs)
# Integration on the floor: the targets whose behaviour depends on ansible-core (argument
# handling, check mode and diff, loops and registered results, the inventory plugin and its
# templating), not every target again (CONTRIBUTING.md, "The version matrix").
FLOOR_INTEGRATION_TESTS=(tests/integration/test_inventory_ssh.py)
for target in ssh_key instance instance_state inventory tag; do
    FLOOR_INTEGRATION_TESTS+=("tests/integration/test_targets.py::test_target[$target]")
done
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=("${ALL_STAGES[@]}")

# pytest on the staged collection: tests import ansible_collections.cloudcompute.cloud.* and run
# playbooks with ANSIBLE_COLLECTIONS_PATH pointing at the same copy.
run_pytest() {
    local venv=$1 suite=$2
    shift 2
    (
        cd "$STAGED_COLLECTION"
        PATH="$venv/bin:$PATH" PYTHONPATH="$COLLECTIONS_ROOT" ANSIBLE_COLLECTIONS_PATH="$COLLECTIONS_ROOT" \
            "$venv/bin/python" -m pytest -p no:cacheprovider "$suite" "$@"
    )
}

run_ansible_lint() {
    (
        cd "$STAGED_COLLECTION"
        PATH="$CEILING_VENV/bin:$PATH" ANSIBLE_COLLECTIONS_PATH="$COLLECTIONS_ROOT" \
            "$CEILING_VENV/bin/ansible-lint" --profile production
    )
}

run_emulator_tests() {
    [ -d "$REPO/emulator/tests" ] || { log "no emulator tests yet"; return 0; }
    (cd "$REPO/emulator" && "$CEILING_VENV/bin/python" -m pytest -p no:cacheprovider tests)
}

run_molecule() {
    local venv=$1 scenarios
    scenarios=$(find "$STAGED_COLLECTION/roles" -path '*/molecule/*/molecule.yml' 2>/dev/null | sort)
    [ -n "$scenarios" ] || { log "no molecule scenarios yet"; return 0; }
    local molecule_yml role_dir scenario status=0
    for molecule_yml in $scenarios; do
        scenario=$(basename "$(dirname "$molecule_yml")")
        role_dir=$(dirname "$(dirname "$(dirname "$molecule_yml")")")
        (
            cd "$role_dir"
            PATH="$venv/bin:$PATH" ANSIBLE_COLLECTIONS_PATH="$COLLECTIONS_ROOT" \
                "$venv/bin/molecule" test --scenario-name "$scenario"
        ) || status=1
    done
    return $status
}

# The documentation site is built by the command users run (`make docs`), then checked:
# antsibull-docs' own lint of the collection docs (extra docs included), and the built pages in
# headless Chromium. First, the extra docs pages must be the guides as they are now: `make docs`
# regenerates them, and a guide edited without committing the result would ship an old page.
run_docs_tests() {
    "$CEILING_VENV/bin/python" "$REPO/tools/guides_rst.py" --check "$REPO" &&
        "$REPO/tools/docs.sh" && run_pytest "$CEILING_VENV" tests/docs
}

run_stage bootstrap "$REPO/tools/bootstrap.sh" all
[ "$FAILED_STAGES" -eq 0 ] || { print_stage_summary; exit 1; }
stage_collection

for stage in "${stages[@]}"; do
    case $stage in
        sanity-*) run_stage "$stage" "$REPO/tools/sanity.sh" "${stage#sanity-}" ;;
        units-*) run_stage "$stage" run_pytest "$(core_venv "${stage#units-}")" tests/unit ;;
        emulator) run_stage "$stage" run_emulator_tests ;;
        # Two workers, each with its own emulator: a target is mostly ansible-playbook start-up
        # and waiting on the emulator clock, so two at once use the two cores.
        integration) run_stage "$stage" run_pytest "$CEILING_VENV" tests/integration -n 2 ;;
        integration-floor) run_stage "$stage" run_pytest "$FLOOR_VENV" "${FLOOR_INTEGRATION_TESTS[@]}" -n 2 ;;
        # Two workers too: the scenarios wait on the emulator clock and its injected faults.
        reliability) run_stage "$stage" run_pytest "$CEILING_VENV" tests/reliability -n 2 ;;
        # ansible-rulebook runs the collection's rulebooks against an emulator (tests/eda).
        eda) run_stage "$stage" run_pytest "$CEILING_VENV" tests/eda ;;
        lint) run_stage "$stage" run_ansible_lint ;;
        molecule) run_stage "$stage" run_molecule "$CEILING_VENV" ;;
        molecule-floor) run_stage "$stage" run_molecule "$FLOOR_VENV" ;;
        release) run_stage "$stage" run_pytest "$CEILING_VENV" tests/release ;;
        awx) run_stage "$stage" run_pytest "$CEILING_VENV" tests/awx ;;
        docs) run_stage "$stage" run_docs_tests ;;
        *) die "unknown stage $stage (known: ${ALL_STAGES[*]})" ;;
    esac
    # sanity leaves tests/output behind in the copy; later stages want a clean tree.
    stage_collection
done

print_stage_summary
[ "$FAILED_STAGES" -eq 0 ]
