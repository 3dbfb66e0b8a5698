"""The emulator's --state-file under a fleet run: killed with SIGKILL in the middle of it and
restarted on the same port, it has every change it had acknowledged, and a re-run of the
playbook converges to the declared state with nothing duplicated.

To know exactly what was acknowledged before the kill, the API is frozen first (every new
request waits in an injected latency) and its state read through the control API; then it is
killed. The frozen requests see their connection reset, like any request in flight when a
server dies, and the client retries them once the emulator is back.
"""

import time

from cloudcompute_emulator.testing import run_emulator
from conftest import PLAYBOOKS, BackgroundPlaybook, EmulatorView, report, run_playbook

FLEET_SIZE = 8
PREFIX = "durable"
KINDS = ("instances", "volumes", "ssh_keys", "tags")


def snapshot(control):
    """id -> (name, status) of every stored record of the kinds that matter here."""
    return dict(
        (
            kind,
            dict(
                (
                    record["id"],
                    (record.get("hostname") or record.get("name") or record.get("key"), record.get("removed_at")),
                )
                for record in control.resources(kind)
            ),
        )
        for kind in KINDS
    )


def acknowledged_deploys(control):
    return [
        entry for entry in control.requests(method="POST", path="/v1/instances")["requests"] if entry["status"] == 202
    ]


def test_kill_and_restart_in_the_middle_of_a_fleet_run(tmp_path):
    state_file = str(tmp_path / "state.sqlite")
    hostnames = ["%s-%02d" % (PREFIX, number) for number in range(1, FLEET_SIZE + 1)]
    variables = {"fleet_prefix": PREFIX, "fleet_size": FLEET_SIZE, "fleet_phases": ["create"]}
    with run_emulator(profile="test", state_file=state_file) as first:
        run = BackgroundPlaybook(PLAYBOOKS / "fleet.yml", first, tmp_path / "first", extra_vars=variables)
        deadline = time.monotonic() + 120
        while len(acknowledged_deploys(first.control)) < FLEET_SIZE // 2 and run.process.poll() is None:
            assert time.monotonic() < deadline, "the fleet run made no progress"
            time.sleep(0.05)
        assert run.process.poll() is None, "the fleet run ended before the kill"
        first.control.add_fault(method="*", path="/v1/*", latency_ms=60000)  # freeze the API
        time.sleep(0.5)
        before = snapshot(first.control)
        acknowledged = len(acknowledged_deploys(first.control))
        first.kill()
        with run_emulator(profile="test", state_file=state_file, port=first.port) as second:
            after_restart = snapshot(second.control)
            interrupted = run.finish()
            rerun = run_playbook(PLAYBOOKS / "fleet.yml", second, tmp_path / "rerun", extra_vars=variables)
            view = EmulatorView(second.control)

    lost = dict((kind, sorted(set(before[kind].items()) - set(after_restart[kind].items()))) for kind in KINDS)
    duplicates = view.duplicates(hostnames, [f"{name}-data" for name in hostnames])
    report(
        "durability",
        "killed after %d of %d deploys were acknowledged, %d records stored; lost after the "
        "restart: %d; the interrupted run %s; re-run %s in %.0f s; duplicates: %d"
        % (
            acknowledged,
            FLEET_SIZE,
            sum(len(records) for records in before.values()),
            sum(len(records) for records in lost.values()),
            "ended ok" if interrupted.returncode == 0 else "failed %d task(s)" % len(interrupted.failed),
            "converged" if rerun.returncode == 0 and not rerun.failed else "FAILED",
            rerun.seconds,
            len(duplicates),
        ),
    )

    assert all(records == [] for records in lost.values()), lost
    assert rerun.returncode == 0 and not rerun.failed, rerun.describe_failures()
    assert duplicates == []
    running = [item for item in view.live_instances() if item["hostname"] in hostnames]
    assert sorted(item["hostname"] for item in running) == hostnames
    assert set(item["status"] for item in running) == {"running"}
    assert all(len(view.volumes_named(f"{name}-data")) == 1 for name in hostnames)
