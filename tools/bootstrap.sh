#!/usr/bin/env bash
# Create or refresh the development virtualenvs and the system tools the tests need.
# Idempotent: a venv is rebuilt only when its requirements, the emulator's pyproject.toml or the
# interpreter changed.  Usage: tools/bootstrap.sh [ceiling|floor|matrix|demo|all]
# (matrix: the venvs of the ansible-core releases between the floor and the ceiling; all: every
# venv and the system packages).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

# shellcheck: ansible-test's shellcheck sanity test passes silently without it.
# openssh-server: the inventory end-to-end test and the demo's configuration play reach
# emulated hosts through a local sshd.  Usage: install_system_packages [ssh-only]
# chromium, chromium-driver: the docs stage opens the built site in headless Chromium (WebDriver).
# openjdk-17-jre-headless: ansible-rulebook (the eda stage) needs a Java runtime.
# pandoc: `make docs` turns the Markdown guides into the collection's extra docs pages (RST).
install_system_packages() {
    local missing=()
    [ -x /usr/sbin/sshd ] || missing+=(openssh-server)
    command -v ssh >/dev/null || missing+=(openssh-client)
    if [ "${1:-}" != ssh-only ]; then
        command -v shellcheck >/dev/null || missing+=(shellcheck)
        [ -x /usr/bin/chromium ] || missing+=(chromium)
        [ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
        # the eda stage: ansible-rulebook's rules engine (Drools) runs in a JVM
        command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
        command -v pandoc >/dev/null || missing+=(pandoc)
    fi
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        sudo -n true 2>/dev/null || { log "cannot install ${missing[*]} (not root, no sudo); what needs them will fail or fall back"; return 0; }
        sudo=(sudo -n)
    fi
    log "installing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq >/dev/null || true
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
        log "could not install ${missing[*]}; what needs them will fail or fall back"
}

# This machine's pip configuration names local indexes that may be absent; pip warns once per
# package about them. Keep real errors, drop that noise.
quiet_pip() {
    local venv=$1
    shift
    "$venv/bin/python" -m pip -q "$@" 2>&1 | grep -v 'is neither a file nor a directory' >&2 || true
    return "${PIPESTATUS[0]}"
}

# ensure_venv DIR PYTHON_VERSION REQUIREMENTS_FILE [EXTRA_REQUIREMENT ...]
ensure_venv() {
    local venv=$1 version=$2 requirements=$3 python stamp_file wanted
    shift 3
    python=$(find_python "$version") || die "Python $version not found (tried python$version and pyenv versions)"
    stamp_file="$venv/.bootstrap-stamp"
    # requirements-dev-matrix.txt is included by the floor's file and used by the middle venvs
    wanted=$( { echo "$python" "$@"; cat "$REPO/$requirements" "$REPO/requirements-dev-matrix.txt";
                cat "$REPO/emulator/pyproject.toml" 2>/dev/null || true; } | sha256sum | cut -d' ' -f1)
    if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$wanted" ] && [ -x "$venv/bin/python" ]; then
        return 0
    fi
    log "building $venv with $python ($requirements)"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    quiet_pip "$venv" install -r "$REPO/$requirements" "$@"
    if [ -f "$REPO/emulator/pyproject.toml" ]; then
        quiet_pip "$venv" install -c "$REPO/$requirements" -e "$REPO/emulator"
    fi
    echo "$wanted" > "$stamp_file"
}

# The middle releases' venvs: built one after another (two cores; pip is mostly CPU here).
ensure_matrix_venvs() {
    local release
    for release in "${MIDDLE_CORES[@]}"; do
        ensure_venv "$REPO/.venv-$release" "${CORE_PYTHON[$release]}" requirements-dev-matrix.txt \
            "ansible-core==${MIDDLE_CORE_PIN[$release]}"
    done
}

case ${1:-all} in
    ceiling) ensure_venv "$CEILING_VENV" "${CORE_PYTHON[$CEILING_CORE]}" requirements-dev.txt ;;
    # make demo: the ceiling venv, and sshd for the configuration play (it falls back without)
    demo)
        install_system_packages ssh-only
        ensure_venv "$CEILING_VENV" "${CORE_PYTHON[$CEILING_CORE]}" requirements-dev.txt
        ;;
    floor) ensure_venv "$FLOOR_VENV" "${CORE_PYTHON[$FLOOR_CORE]}" requirements-dev-floor.txt ;;
    matrix) ensure_matrix_venvs ;;
    all)
        install_system_packages
        ensure_venv "$CEILING_VENV" "${CORE_PYTHON[$CEILING_CORE]}" requirements-dev.txt
        ensure_venv "$FLOOR_VENV" "${CORE_PYTHON[$FLOOR_CORE]}" requirements-dev-floor.txt
        ensure_matrix_venvs
        ;;
    *) die "usage: $0 [ceiling|floor|matrix|demo|all]" ;;
esac
