"""A fleet taken through create -> stop -> start -> delete while the API misbehaves: 10 % of all
requests answered 5xx, 5 % of the changes committed and then their connection dropped, and
bursts of 429 and 503 now and then. Every task must end ok, the final state must be the one
declared, and nothing may be duplicated or lost."""

import collections
import json
import threading

from cloudcompute_emulator.testing import run_emulator
from conftest import PLAYBOOKS, EmulatorView, api_requests, report, run_playbook

FLEET_SIZE = 20
PREFIX = "faulty"
# Every BURST_EVERY seconds, the API answers every request with 429 (or 503, alternately) for
# BURST_SECONDS, with Retry-After: 1.
BURST_EVERY = 4.0
BURST_SECONDS = 1.5

# The real rate limiter stays on, with room for a 20-fork fleet: the injected 429 bursts are
# what this scenario is about (tests/integration's instance_fleet runs the production quotas).
RATE_LIMITS = {
    "project_quota": 5000,
    "endpoint_quota": 600,
    "overrides": {"GET /v1/instances": 1200, "GET /v1/volumes": 1200},
}


def steady_faults(control):
    """The background failure rate: 10 % 5xx on every request, then 5 % of the mutating
    requests dropped after their change was committed (faults add up in this order)."""
    control.add_fault(method="*", path="/v1/*", status=500, probability=0.05)
    control.add_fault(method="*", path="/v1/*", status=502, probability=0.05)
    for method in ("POST", "PUT", "DELETE"):
        control.add_fault(method=method, path="/v1/*", drop_connection=True, after_commit=True, probability=0.05)


class Bursts(threading.Thread):
    """Every few seconds, for a second and a half, every request gets 429 (or 503), as when
    the API sheds load."""

    def __init__(self, control):
        super().__init__(daemon=True)
        self.control = control
        self.stopped = threading.Event()
        self.count = collections.Counter()
        self.hits = collections.Counter()

    def run(self):
        statuses = (429, 503)
        turn = 0
        while not self.stopped.wait(BURST_EVERY - BURST_SECONDS):
            status = statuses[turn % 2]
            turn += 1
            fault_id = self.control.add_fault(method="*", path="/v1/*", status=status, retry_after=1)
            self.stopped.wait(BURST_SECONDS)
            [fault] = [fault for fault in self.control.faults()["faults"] if fault["id"] == fault_id]
            self.control.delete_fault(fault_id)
            self.count[status] += 1
            self.hits[status] += fault["hits"]


def test_fleet_survives_faults(tmp_path):
    hostnames = ["%s-%02d" % (PREFIX, number) for number in range(1, FLEET_SIZE + 1)]
    with run_emulator(profile="test", rate_limits=RATE_LIMITS) as emulator:
        control = emulator.control
        steady_faults(control)
        bursts = Bursts(control)
        bursts.start()
        try:
            run = run_playbook(
                PLAYBOOKS / "fleet.yml",
                emulator,
                tmp_path,
                extra_vars={
                    "fleet_prefix": PREFIX,
                    "fleet_size": FLEET_SIZE,
                    "fleet_phases": ["create", "stop", "start", "delete"],
                },
            )
        finally:
            bursts.stopped.set()
            bursts.join()
        faults = control.faults()
        control.clear_faults()
        log = api_requests(control)
        view = EmulatorView(control)
    (tmp_path / "requests.json").write_text(json.dumps(log, indent=1))

    injected = collections.Counter(dict((f"{status} (bursts)", hits) for status, hits in bursts.hits.items()))
    for fault in faults["faults"]:
        kind = "dropped after commit" if fault["drop_connection"] else str(fault["status"])
        injected[kind] += fault["hits"]
    failed_requests = [
        entry for entry in log if entry["connection_dropped"] or (entry["status"] or 0) >= 500 or entry["status"] == 429
    ]
    data_names = [f"{name}-data" for name in hostnames]
    scratch_names = [f"{name}-scratch" for name in hostnames]
    duplicates = view.duplicates(hostnames, data_names + scratch_names)
    tasks = run.module_tasks
    report(
        "faults",
        "%d module tasks on %d hosts in %.0f s, %d API requests" % (len(tasks), FLEET_SIZE, run.seconds, len(log)),
    )
    report(
        "faults",
        "faults injected: %d (%s); %d bursts of %.1f s"
        % (
            faults["injected_total"],
            ", ".join("%s: %d" % item for item in sorted(injected.items())),
            sum(bursts.count.values()),
            BURST_SECONDS,
        ),
    )
    report("faults", "requests that failed and were retried or resolved by a lookup: %d" % len(failed_requests))
    report("faults", "tasks failed: %d, duplicates found: %d" % (len(run.failed), len(duplicates)))

    assert run.returncode == 0 and not run.failed, run.describe_failures()
    assert faults["injected_total"] >= 50, f"too few faults to prove anything: {faults}"
    assert duplicates == []
    # the declared end state: no instance; each host's data and scratch volumes kept, detached
    assert view.live_instances() == []
    for hostname in hostnames:
        assert len(view.instances_named(hostname)) == 1
        for name in (f"{hostname}-data", f"{hostname}-scratch"):
            [volume] = view.volumes_named(name)
            assert volume["status"] == "detached", "{} was {}".format(name, volume["status"])
    lost = [
        volume["name"]
        for volume in view.volumes
        if volume["name"] in data_names + scratch_names and volume["status"] == "deleted"
    ]
    assert lost == []
    report("faults", "data volumes lost: %d of %d" % (len(lost), 2 * FLEET_SIZE))
