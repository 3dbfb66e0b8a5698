"""Run every integration target (tests/integration/targets/<name>/, a role shaped prepare ->
test -> cleanup) with ansible-playbook against the emulator, over real HTTP.

Each target runs in a fresh emulator state with its own token cache. The role gets
``emulator_url`` (control API base) and ``resource_prefix`` (a per-run name prefix).

A target that needs several plays (e.g. many inventory hosts run in parallel forks) ships its
own ``playbook.yml`` instead of ``tasks/main.yml``; it gets the same variables, runs with
``FORKS`` forks, and may use the helper roles.
"""

import os
import pathlib
import subprocess
import sys
import uuid

import pytest

TARGETS = pathlib.Path(__file__).parent / "targets"
# Roles used by other targets, not targets themselves.
HELPER_ROLES = {"setup_emulator"}
FORKS = 10


def target_names():
    return sorted(
        path.name
        for path in TARGETS.iterdir()
        if ((path / "tasks" / "main.yml").exists() or (path / "playbook.yml").exists())
        and path.name not in HELPER_ROLES
    )


def target_command(name, emulator, workdir):
    """The ansible-playbook command that runs target ``name`` against ``emulator``, and its environment.

    ``workdir`` (a directory of the caller's) receives the play and the token cache. ansible-test
    runs a target the same way (setup_emulator/files/ansible_test_target.py).
    """
    playbook = TARGETS / name / "playbook.yml"
    if not playbook.exists():
        playbook = workdir / "play.yml"
        playbook.write_text(
            f"- name: Integration target {name}\n"
            "  hosts: localhost\n"
            "  gather_facts: false\n"
            "  roles:\n"
            f"    - role: {name}\n"
        )
    env = dict(
        os.environ,
        ANSIBLE_ROLES_PATH=str(TARGETS),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
        ANSIBLE_LOCALHOST_WARNING="0",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="0",
        CLOUDCOMPUTE_API_URL=emulator.api_url,
        CLOUDCOMPUTE_CLIENT_ID=emulator.client_id,
        CLOUDCOMPUTE_CLIENT_SECRET=emulator.client_secret,
        CLOUDCOMPUTE_TOKEN_CACHE=str(workdir / "tokens"),
    )
    command = [
        os.path.join(os.path.dirname(sys.executable), "ansible-playbook"),
        str(playbook),
        "-i",
        "localhost,",
        "-c",
        "local",
        "--forks",
        str(FORKS),
        "-e",
        f"emulator_url={emulator.base_url}",
        "-e",
        f"resource_prefix=it-{uuid.uuid4().hex[:8]}",
    ]
    return command, env


def run_target(name, emulator, tmp_path):
    command, env = target_command(name, emulator, tmp_path)
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800, check=False)


@pytest.mark.parametrize("name", target_names())
def test_target(name, emulator, control, tmp_path):
    result = run_target(name, emulator, tmp_path)
    assert result.returncode == 0, f"target {name} failed:\n{result.stdout[-20000:]}\n{result.stderr[-5000:]}"


def test_every_target_runs_under_ansible_test():
    """`ansible-test integration <target>` runs a target through its runme.sh, which starts an
    emulator for it; the alias makes ansible-test copy the setup target that does so."""
    runme = (TARGETS / "ssh_key" / "runme.sh").read_text()
    for name in target_names():
        target = TARGETS / name
        assert (target / "runme.sh").read_text() == runme, name
        assert os.access(target / "runme.sh", os.X_OK), name
        assert "needs/target/setup_emulator" in (target / "aliases").read_text().split(), name
