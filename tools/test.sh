#!/usr/bin/env bash
# The whole test suite, stage by stage, with a timing line per stage (README: `make test`).
# Every stage runs even when an earlier one failed; the exit status is non-zero if any failed.
# Usage: tools/test.sh [stage ...]   (default: all stages, in two lanes at once; see below)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The version matrix (CONTRIBUTING.md, "The version matrix"): sanity and unit tests on every
# ansible-core release from the floor to the ceiling; integration and molecule on the ceiling and
# again on the floor; everything else on the ceiling.
MATRIX_STAGES=()
for release in floor "${MIDDLE_CORES[@]}" ceiling; do MATRIX_STAGES+=("sanity-$release"); done
for release in floor "${MIDDLE_CORES[@]}" ceiling; do MATRIX_STAGES+=("units-$release"); done
# A full run is two lanes at once, each with its own copy of the collection (CONTRIBUTING.md,
# "Two lanes"): most stages wait on an emulator's clock or on ansible-playbook start-up and
# leave a core idle, which the other lane's static checks use. The lanes are balanced by the
# stages' measured times; both molecule stages stay in one lane (molecule keeps a scenario's
# state in one place per user, whatever the ansible-core).
STATIC_LANE=("${MATRIX_STAGES[@]}" lint release docs awx integration-floor)
EMULATOR_LANE=(emulator integration reliability eda molecule molecule-floor)
ALL_STAGES=("${STATIC_LANE[@]}" "${EMULATOR_LANE[@]}")
# Integration on the floor: the targets whose behaviour depends on ansible-core (argument
# handling, check mode and diff, loops and registered results, the inventory plugin and its
# templating), not every target again (CONTRIBUTING.md, "The version matrix").
FLOOR_INTEGRATION_TESTS=(tests/integration/test_inventory_ssh.py)
for target in ssh_key instance instance_state inventory tag; do
    FLOOR_INTEGRATION_TESTS+=("tests/integration/test_targets.py::test_target[$target]")
done
# The API client, its rate-limit sharing and its locks import nothing from Ansible: their
# (slow, clock-bound) unit tests run on the floor and the ceiling, not on each release between.
CLIENT_UNIT_TESTS=(tests/unit/plugins/module_utils/test_api.py tests/unit/plugins/module_utils/test_api_security.py
                   tests/unit/plugins/module_utils/test_quota.py tests/unit/plugins/module_utils/test_locks.py)
stages=("$@")

# Coverage (CONTRIBUTING.md, "Coverage"): the stages whose runs are measured (pyproject.toml,
# tool.cloudcompute.coverage), always in a full run, and in named stages with COVERAGE=1. Every
# Python process of such a stage starts coverage (coverage's own .pth file in the ceiling venv
# reads COVERAGE_PROCESS_START), the modules through ansible-core's AnsiballZ coverage hook; the
# data of both lanes lands in one directory and tools/coverage_report.py combines it at the end.
COVERAGE_STAGES=(units-ceiling integration reliability eda awx)
COVERAGE_DATA_DIR=${COVERAGE_DATA_DIR:-$REPO/.tmp/coverage}
export COVERAGE_DATA_DIR
[ ${#stages[@]} -eq 0 ] && COVERAGE=${COVERAGE:-1}
COVERAGE=${COVERAGE:-0}
export COVERAGE

# Coverage's own .pth file starts it in every process that inherits COVERAGE_PROCESS_START; this
# one (tools/coverage_start.py says which processes and why) starts it only where it measures
# something.
install_coverage_hook() {
    local site
    site=$("$CEILING_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
    cp "$REPO/tools/coverage_start.py" "$site/cloudcompute_coverage_start.py.$$"
    mv "$site/cloudcompute_coverage_start.py.$$" "$site/cloudcompute_coverage_start.py"
    printf 'import cloudcompute_coverage_start\n' >"$site/cloudcompute_coverage.pth.$$"
    mv "$site/cloudcompute_coverage.pth.$$" "$site/cloudcompute_coverage.pth"
}

# Run a command with coverage on when its stage is measured.
measured() {
    local stage=$1
    shift
    if [ "$COVERAGE" != 1 ] || [[ " ${COVERAGE_STAGES[*]} " != *" $stage "* ]]; then
        "$@"
        return
    fi
    (
        export CLOUDCOMPUTE_COVERAGE_START="$REPO/pyproject.toml"
        # ansible-core's hook (what ansible-test sets): each AnsiballZ module process starts
        # coverage with this configuration and writes <output>=python-X.Y=coverage.<host>.<pid>.
        _ANSIBLE_ANSIBALLZ_COVERAGE_CONFIG=$(printf '{"config": "%s", "output": "%s"}' \
            "$REPO/pyproject.toml" "$COVERAGE_DATA_DIR/module-$stage")
        export _ANSIBLE_ANSIBALLZ_COVERAGE_CONFIG
        "$@"
    )
}

# Combine the measured stages' data; print the totals and the least-covered files; fail below
# the floors when every measured stage ran (a full run, `make coverage`).
run_coverage_report() {
    local options=() stage
    [ -z "${COVERAGE_HTML:-}" ] || options+=(--html)
    options+=(--check)
    for stage in "${COVERAGE_STAGES[@]}"; do
        [[ " $* " == *" $stage "* ]] || unset 'options[-1]'
        [[ " $* " == *" $stage "* ]] || break
    done
    "$CEILING_VENV/bin/python" "$REPO/tools/coverage_report.py" "$COVERAGE_DATA_DIR" "${options[@]}"
}

# pytest on the staged collection: tests import ansible_collections.cloudcompute.cloud.* and run
# playbooks with ANSIBLE_COLLECTIONS_PATH pointing at the same copy.
# A test still running after this many seconds is hung (the longest, a fleet target, takes a few
# minutes): its stack is printed and its process ends, so one hang costs one test, not the run.
TEST_HANG_LIMIT=${TEST_HANG_LIMIT:-900}
run_pytest() {
    local venv=$1 suite=$2
    shift 2
    (
        cd "$STAGED_COLLECTION"
        PATH="$venv/bin:$PATH" PYTHONPATH="$COLLECTIONS_ROOT" ANSIBLE_COLLECTIONS_PATH="$COLLECTIONS_ROOT" \
            "$venv/bin/python" -m pytest -p no:cacheprovider \
            -o faulthandler_timeout="$TEST_HANG_LIMIT" -o faulthandler_exit_on_timeout=true "$suite" "$@"
    )
}

# ansible-lint installs the collection it checks into ANSIBLE_HOME's collections and resolves
# modules there before ANSIBLE_COLLECTIONS_PATH: a copy another checkout or an earlier run left in
# ~/.ansible would be linted against instead of this one. Each lane gets an ANSIBLE_HOME of its own.
run_ansible_lint() {
    (
        cd "$STAGED_COLLECTION"
        PATH="$CEILING_VENV/bin:$PATH" ANSIBLE_COLLECTIONS_PATH="$COLLECTIONS_ROOT" \
            ANSIBLE_HOME="$COLLECTIONS_ROOT/../ansible-home" "$CEILING_VENV/bin/ansible-lint" --profile production
    )
}

# The floor's integration tests; then one cheap target through ansible-test on the ceiling, the way
# a contributor runs a target (tools/integration_target.sh), so that way keeps working.
run_integration_floor() {
    local status=0
    run_pytest "$FLOOR_VENV" "${FLOOR_INTEGRATION_TESTS[@]}" -n 2 || status=1
    "$REPO/tools/integration_target.sh" ssh_key || status=1
    return "$status"
}

# ansible-lint; then ruff's lint and formatting of plugins/ and tests/ (tools/format.sh --check).
run_lint() {
    local status=0
    run_ansible_lint || status=1
    "$REPO/tools/format.sh" --check || status=1
    return "$status"
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

run_lane() {
    local lane=$1
    shift
    TEST_LANE=$lane TESTS_BOOTSTRAPPED=1 PYTEST_DEBUG_TEMPROOT="$lane_tmp/$lane" "$REPO/tools/test.sh" "$@"
}

[ -n "${TESTS_BOOTSTRAPPED:-}" ] || run_stage bootstrap "$REPO/tools/bootstrap.sh" all
[ "$FAILED_STAGES" -eq 0 ] || { print_stage_summary; exit 1; }

if [ ${#stages[@]} -eq 0 ]; then
    # The full run: the static lane in the background (its output shown when it is done), the
    # emulator lane in the foreground.
    rm -rf "$COVERAGE_DATA_DIR" && mkdir -p "$COVERAGE_DATA_DIR"
    lane_tmp=$(mktemp -d)
    trap 'rm -rf "$lane_tmp"' EXIT
    mkdir -p "$lane_tmp/static" "$lane_tmp/emulator"
    run_lane static "${STATIC_LANE[@]}" >"$lane_tmp/static.log" 2>&1 &
    static_pid=$!
    emulator_status=0
    run_lane emulator "${EMULATOR_LANE[@]}" || emulator_status=$?
    static_status=0
    wait "$static_pid" || static_status=$?
    log "the static lane's output:"
    cat "$lane_tmp/static.log"
    coverage_status=0
    [ "$COVERAGE" = 1 ] && { run_coverage_report "${ALL_STAGES[@]}" || coverage_status=1; }
    print_stage_summary
    log "lanes: emulator $([ "$emulator_status" -eq 0 ] && echo ok || echo FAILED), static $([ "$static_status" -eq 0 ] && echo ok || echo FAILED); all stages in $SECONDS s"
    log "coverage: $([ "$coverage_status" -eq 0 ] && echo ok || echo "FAILED (below the floor)")"
    [ "$emulator_status" -eq 0 ] && [ "$static_status" -eq 0 ] && [ "$coverage_status" -eq 0 ]
    exit
fi

stage_collection
# Named stages measured on their own (COVERAGE=1) start from no data; the lanes of a full run
# share the directory its start emptied.
if [ "$COVERAGE" = 1 ] && [ -z "${TEST_LANE:-}" ]; then
    rm -rf "$COVERAGE_DATA_DIR" && mkdir -p "$COVERAGE_DATA_DIR"
fi
[ "$COVERAGE" != 1 ] || install_coverage_hook

for stage in "${stages[@]}"; do
    case $stage in
        sanity-*) run_stage "$stage" "$REPO/tools/sanity.sh" "${stage#sanity-}" ;;
        units-floor|units-ceiling) run_stage "$stage" measured "$stage" run_pytest "$(core_venv "${stage#units-}")" tests/unit -n 2 ;;
        units-*) run_stage "$stage" run_pytest "$(core_venv "${stage#units-}")" tests/unit -n 2 \
                     "${CLIENT_UNIT_TESTS[@]/#/--ignore=}" ;;
        emulator) run_stage "$stage" run_emulator_tests ;;
        # Two workers, each with its own emulator: a target is mostly ansible-playbook start-up
        # and waiting on the emulator clock, so two at once use the two cores.
        integration) run_stage "$stage" measured "$stage" run_pytest "$CEILING_VENV" tests/integration -n 2 ;;
        integration-floor) run_stage "$stage" run_integration_floor ;;
        # Two workers too: the scenarios wait on the emulator clock and its injected faults.
        reliability) run_stage "$stage" measured "$stage" run_pytest "$CEILING_VENV" tests/reliability -n 2 ;;
        # ansible-rulebook runs the collection's rulebooks against an emulator (tests/eda).
        eda) run_stage "$stage" measured "$stage" run_pytest "$CEILING_VENV" tests/eda ;;
        lint) run_stage "$stage" run_lint ;;
        molecule) run_stage "$stage" run_molecule "$CEILING_VENV" ;;
        molecule-floor) run_stage "$stage" run_molecule "$FLOOR_VENV" ;;
        release) run_stage "$stage" run_pytest "$CEILING_VENV" tests/release ;;
        awx) run_stage "$stage" measured "$stage" run_pytest "$CEILING_VENV" tests/awx ;;
        docs) run_stage "$stage" run_docs_tests ;;
        *) die "unknown stage $stage (known: ${ALL_STAGES[*]})" ;;
    esac
    # sanity leaves tests/output behind in the copy; later stages want a clean tree.
    stage_collection
done

# Named stages measured on their own: their report (the floors only hold for all of them).
if [ "$COVERAGE" = 1 ] && [ -z "${TEST_LANE:-}" ]; then
    run_stage coverage run_coverage_report "${stages[@]}"
fi

print_stage_summary
[ "$FAILED_STAGES" -eq 0 ]
