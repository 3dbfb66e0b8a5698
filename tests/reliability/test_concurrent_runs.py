"""Overlapping runs (an AWX schedule meeting a manual launch, two execution nodes): two or four
``ansible-playbook`` processes started together converge the same instances with data volumes,
one SSH key and one startup script. On one machine (a shared token cache) the per-name create
locks keep them apart; on several machines (a cache each) the after-create duplicate check
settles every name on one winner. Either way, with or without the fault mix of test_faults:
no failed task, no duplicate left, no volume of a winner lost."""

import datetime
import json
import time

import pytest
from cloudcompute_emulator.testing import run_emulator
from conftest import PLAYBOOKS, BackgroundPlaybook, api_requests, report, run_playbook
from test_faults import RATE_LIMITS, Bursts, steady_faults

FLEET_SIZE = 20
# forks per run: the runs share the machine's two cores
FORKS = 5


def seconds(timestamp):
    return datetime.datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()


def live(records):
    return [record for record in records if not record.get("removed_at") and record.get("status") not in ("deleted",)]


def duplicate_seconds(records, name_field, names):
    """How long each resource a losing run created existed: [seconds]."""
    spans = []
    for name in names:
        named = [record for record in records if record.get(name_field) == name]
        for record in named:
            if record.get("removed_at"):
                spans.append(seconds(record["removed_at"]) - seconds(record["created_at"]))
    return spans


# (runs, one machine, faults): every dimension covered without the whole cross product
SCENARIOS = [
    (2, True, False),
    (4, False, False),
    (2, False, True),
    (4, True, True),
]


@pytest.mark.parametrize(
    "runs,one_machine,faults",
    SCENARIOS,
    ids=[
        "%d-runs-%s%s" % (runs, "one-machine" if one else "several-machines", "-faults" if faults else "")
        for runs, one, faults in SCENARIOS
    ],
)
def test_concurrent_runs_converge_without_duplicates(tmp_path, runs, one_machine, faults):
    prefix = "race%d%s%s" % (runs, "o" if one_machine else "s", "f" if faults else "")
    hostnames = ["%s-%02d" % (prefix, number) for number in range(1, FLEET_SIZE + 1)]
    extra_vars = {"concurrent_prefix": prefix, "concurrent_size": FLEET_SIZE}
    with run_emulator(profile="test", rate_limits=RATE_LIMITS) as emulator:
        control = emulator.control
        bursts = None
        if faults:
            steady_faults(control)
            bursts = Bursts(control)
            bursts.start()
        try:
            # one machine: the runs share one token cache (and so the create locks beside it)
            shared = {"CLOUDCOMPUTE_TOKEN_CACHE": str(tmp_path / "tokens")} if one_machine else None
            started = [
                BackgroundPlaybook(
                    PLAYBOOKS / "concurrent.yml",
                    emulator,
                    tmp_path / ("run%d" % number),
                    extra_vars=extra_vars,
                    forks=FORKS,
                    env=shared,
                )
                for number in range(runs)
            ]
            finished = [run.finish(timeout=900) for run in started]
        finally:
            if bursts:
                bursts.stopped.set()
                bursts.join()
            control.clear_faults()
        instances = control.resources("instances")
        volumes = control.resources("volumes")
        scripts = control.resources("scripts")
        ssh_keys = control.resources("ssh_keys")
        log = api_requests(control)

    for number, run in enumerate(finished):
        (tmp_path / ("run%d" % number) / "output.txt").write_text(run.stdout + run.stderr)
        (tmp_path / "requests.json").write_text(json.dumps(log, indent=1))
        assert run.returncode == 0 and not run.failed, f"{run.describe_failures()} (outputs in {tmp_path})"
    warnings = sum(
        run.stdout.count("another run created") + run.stderr.count("another run created") for run in finished
    )

    # no duplicate left: every name carried by exactly one live resource
    for hostname in hostnames:
        [instance] = [item for item in live(instances) if item["hostname"] == hostname]
        assert instance["status"] == "running", instance
        # the winner's data volume is there and attached to it
        [data] = [item for item in live(volumes) if item["name"] == hostname + "-data"]
        assert data["id"] in instance["volume_ids"], (instance, data)
        assert instance["startup_script_id"] and instance["ssh_key_ids"]
    [key] = [item for item in live(ssh_keys) if item["name"] == prefix + "-key"]
    [script] = [item for item in live(scripts) if item["name"] == prefix + "-init"]
    for instance in [item for item in live(instances) if item["hostname"] in hostnames]:
        assert instance["ssh_key_ids"] == [key["id"]] and instance["startup_script_id"] == script["id"], instance
    # what a losing run created is gone for good: no volume left in the trash or attached
    lost_volumes = [item for item in volumes if item["name"].startswith(prefix) and item not in live(volumes)]
    assert all(item.get("is_permanently_deleted") for item in lost_volumes), lost_volumes

    # a create whose connection was dropped after it took effect counts too
    created = [
        entry
        for entry in log
        if entry["method"] == "POST"
        and (entry["handler_status"] or entry["status"] or 999) < 300
        and entry["path"].rstrip("/") in ("/v1/instances", "/v1/ssh-keys", "/v1/scripts")
    ]
    instance_spans = duplicate_seconds(instances, "hostname", hostnames)
    script_spans = duplicate_seconds(scripts, "name", [prefix + "-init"])
    key_spans = duplicate_seconds(ssh_keys, "name", [prefix + "-key"])
    spans = instance_spans + script_spans + key_spans
    scenario = "concurrent runs: %d runs, %s%s" % (
        runs,
        "one machine" if one_machine else "several machines",
        ", faults" if faults else "",
    )
    report(
        scenario,
        "%d instances + 1 SSH key + 1 script converged by each run in %s s; 0 failed tasks, "
        "0 duplicates left" % (FLEET_SIZE, ", ".join(f"{run.seconds:.0f}" for run in finished)),
    )
    report(
        scenario,
        "creates sent: %d (%d resources wanted); resources discarded by losing runs: %d instances, %d scripts, "
        "%d SSH keys; adoption warnings: %d"
        % (len(created), FLEET_SIZE + 2, len(instance_spans), len(script_spans), len(key_spans), warnings),
    )
    report(scenario, f"duplicate-seconds: {sum(spans):.1f} in all, longest {max(spans or [0]):.1f} s")
    if one_machine and not faults:
        # the create locks leave nothing to settle
        assert not spans and len(created) == FLEET_SIZE + 2


LOCK_RELEASE_PLAYBOOK = """
- name: Converge one instance
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Register the SSH key
      cloudcompute.cloud.ssh_key:
        name: lock-release-key
        public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q lock@test

    - name: Deploy it
      cloudcompute.cloud.instance:
        hostname: lock-release
        instance_type: CPU.4V.16G
        image: ubuntu-24.04
        location_code: FIN-01
        ssh_keys: [lock-release-key]
        wait: "{{ wait_for_it }}"
        wait_timeout: 300
"""
# instance.provisioning lasts 2.5 s in the demo profile: 30 s here, far longer than a run's start-up
PROVISIONING_SCALE = 12


def test_the_create_lock_is_released_once_the_create_is_confirmed(tmp_path):
    """A task that waits for the instance it created holds the create lock of its name only until
    the create is confirmed: another run on the machine converging the same name meanwhile finds
    the instance and goes on, rather than waiting out the first task's whole wait."""
    playbook = tmp_path / "one.yml"
    playbook.write_text(LOCK_RELEASE_PLAYBOOK)
    shared = {"CLOUDCOMPUTE_TOKEN_CACHE": str(tmp_path / "tokens")}
    with run_emulator(profile="demo", timing_scale=PROVISIONING_SCALE) as emulator:
        waiting = BackgroundPlaybook(playbook, emulator, tmp_path / "waiting", {"wait_for_it": True}, env=shared)
        try:
            deadline = time.monotonic() + 120
            while not [
                item for item in emulator.control.resources("instances") if item.get("hostname") == "lock-release"
            ]:
                if waiting.process.poll() is not None:
                    pytest.fail(
                        "the first run ended before it created the instance:\n" + waiting.finish().stdout[-3000:]
                    )
                assert time.monotonic() < deadline, "the first run never created the instance"
                time.sleep(0.5)
            second = run_playbook(
                playbook, emulator, tmp_path / "second", {"wait_for_it": False}, env=shared, timeout=120
            )
            still_waiting = waiting.process.poll() is None
            first = waiting.finish(timeout=400)
        finally:
            if waiting.process.poll() is None:
                waiting.process.kill()
        instances = [item for item in emulator.control.resources("instances") if item.get("hostname") == "lock-release"]
    assert second.returncode == 0, second.stdout[-3000:]
    assert first.returncode == 0, first.stdout[-3000:]
    assert still_waiting, f"the second run took {second.seconds:.0f} s: it waited for the first run's whole wait"
    assert [item["status"] for item in instances] == ["running"]
