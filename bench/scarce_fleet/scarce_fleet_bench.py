"""Benchmark of a GPU fleet when capacity is scarce: 24 instances requested at once where the
capacity is split across three locations and released over time, under the production rate
limits.

Production ratios: the emulator runs the ``realistic`` timing profile (an instance runs 160 s
after its deploy) and the production rate limits, both scaled by window / 60 (``--window``,
default 30: every quota and step duration halved), and so is the schedule below. The
capacity of ``1H100.80S.30V`` starts as the first step of a schedule and grows at later steps
(``PUT /_emulator/capacity`` with ``schedule``, on the emulator clock, which here runs with the
wall clock). One play over one inventory host per instance, all forks at once:
``cloudcompute.cloud.instance`` with ``placement`` over the three locations and
``on_no_capacity: wait`` deploys the host's instance wherever capacity appears and waits until it
runs; a second play deletes them all with one bulk request (not timed against the floor).

The floor is what no client can beat: the earliest moment the schedule has released enough
capacity for every instance, plus the provisioning time of the last one. Targets: wall time of
the deploy play <= 1.15x the floor, no failed task, and no deploy answered 503 except true
races (a deploy sent because availability said yes, whose unit another instance of the fleet
took in between). Each 503 is checked against the request log, which names the connection of
every request (``client_address``; a module keeps its connection between its availability read
and its deploy): the same connection's latest availability read before the 503, whether the
process deployed elsewhere since (then the 503 was sent on a stale read), and whether any deploy
was accepted between that read and the 503. A 503 with no read before it on its connection is
reported as unattributable, not guessed.

Usage: bench/scarce_fleet/run [--instances 24] [--window 30] [--scale 1.0] [--keep DIR]
  --scale multiplies the schedule's times once more (0.5 halves them; the floor follows).
"""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from datetime import datetime

import requests

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import _common  # noqa: E402  pylint: disable=wrong-import-position
from cloudcompute_emulator import timing  # noqa: E402  pylint: disable=wrong-import-position

WALL_TARGET = 1.15
PROFILE = "realistic"
INSTANCE_TYPE = "1H100.80S.30V"
# location -> [(seconds from the start, units released then)]: 24 units in all, the last ones
# two minutes in. Each step adds units to what is free then.
SCHEDULE = {
    "FIN-01": [(0, 4), (60, 4)],
    "FIN-03": [(0, 0), (30, 4), (90, 4)],
    "ICE-01": [(0, 2), (120, 6)],
}

PLAYBOOK = """
- name: Deploy the fleet where capacity appears, one host per instance
  hosts: fleet
  gather_facts: false
  tasks:
    - name: Deploy the instance in any of the three locations, waiting for capacity, until it runs
      cloudcompute.cloud.instance:
        hostname: "{{ inventory_hostname }}"
        image: ubuntu-24.04-cuda-12.8-open-docker
        ssh_keys: ["{{ ssh_key_id }}"]
        placement:
          locations: [FIN-01, FIN-03, ICE-01]
          instance_types: [%(type)s]
        on_no_capacity: wait
        wait_timeout: 900
        state: running
      register: placed

    # one task for the whole fleet: a copy per host would add its own start-up to the timed play
    - name: Keep where each instance landed
      ansible.builtin.copy:
        dest: "{{ report_dir }}/placements.json"
        content: "{{ ansible_play_hosts_all | map('extract', hostvars) | map(attribute='placed.placement', default=None) | to_json }}"
        mode: "0600"
      delegate_to: localhost
      run_once: true
""" % {"type": INSTANCE_TYPE}

TEARDOWN = """
- name: Delete the fleet
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Delete every instance in one bulk request
      cloudcompute.cloud.instance_state:
        instances: "{{ groups['fleet'] }}"
        state: absent
        delete_permanently: true
"""


def scaled(schedule, scale):
    return dict((location, [(after * scale, units) for after, units in steps]) for location, steps in schedule.items())


def floor_seconds(instances, schedule, window):
    """The earliest moment the schedule has released ``instances`` units, plus provisioning."""
    released, enough_at = 0, None
    for after, units in sorted(step for steps in schedule.values() for step in steps):
        released += units
        if released >= instances:
            enough_at = after
            break
    if enough_at is None:
        raise SystemExit("the schedule releases %d units, fewer than %d instances" % (released, instances))
    provisioning = (timing.step_seconds("instance.ordered", PROFILE)
                    + timing.step_seconds("instance.provisioning", PROFILE)) * _common.timing_scale(window)
    return enough_at + provisioning, {"capacity released": enough_at, "provisioning": provisioning}


def failed_tasks(output):
    return sum(int(failed) + int(unreachable) for unreachable, failed in
               re.findall(r"\bunreachable=(\d+)\s+failed=(\d+)", output))


def timestamp(entry):
    return datetime.fromisoformat(entry["timestamp"].replace("Z", "+00:00")).timestamp()


DEPLOY = ("POST", "/v1/instances")
AVAILABILITY = ("GET", "/v1/instance-availability")


def request_of(entry):
    return entry["method"], entry["path"]


def races(log):
    """The deploys answered 503, as ``{"true races": n, "on a stale read": n, "not races": n,
    "unattributable": n}`` (see ``refusal``)."""
    counts = {"true races": 0, "on a stale read": 0, "not races": 0, "unattributable": 0}
    since_read = {}  # client_address -> {"index": of its latest availability read, "deploys": since}
    for index, entry in enumerate(log):
        connection = entry["client_address"]
        if request_of(entry) == AVAILABILITY and connection:
            since_read[connection] = {"index": index, "deploys": 0}
        elif request_of(entry) == DEPLOY:
            read = since_read.get(connection)
            if entry["status"] == 503:
                counts[refusal(log, index, read)] += 1
            if read:
                read["deploys"] += 1
    return counts


def refusal(log, index, read):
    """What the 503 of ``log[index]`` was, given its connection's latest availability read
    (``read``: its index and the deploys the process sent since, or None).

    Unattributable without a read before it on its connection. On a stale read when the process
    deployed since that read (its first 503 had already shown the read out of date). A true race
    when some deploy was accepted after the read began and before the 503 (one still being
    answered when the read began counts too: the emulator serves requests interleaved). The log
    keeps no bodies, so that deploy may have gone to another location: with a fleet reading the
    same candidates, an upper bound on the races, but from each process's own read."""
    if read is None:
        return "unattributable"
    if read["deploys"]:
        return "on a stale read"
    read_began = timestamp(log[read["index"]])
    accepted = any(
        request_of(item) == DEPLOY
        and item["status"] == 202
        and (position > read["index"] or timestamp(item) + item["duration_ms"] / 1000 >= read_began)
        for position, item in enumerate(log[:index])
    )
    return "true races" if accepted else "not races"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--instances", type=int, default=24, help="instances in the fleet (default 24)")
    parser.add_argument("--window", type=int, default=30,
                        help="rate-limit window in seconds, the quotas, step durations and schedule scaled to it "
                        "(default 30; production: 60)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the schedule's times (default 1.0)")
    parser.add_argument("--keep", metavar="DIR", help="keep the playbook, inventory, output and request log in DIR")
    arguments = parser.parse_args()
    schedule = scaled(SCHEDULE, arguments.scale * _common.timing_scale(arguments.window))
    floor, parts = floor_seconds(arguments.instances, schedule, arguments.window)

    workdir = arguments.keep or tempfile.mkdtemp(prefix="cloudcompute-scarce-bench-")
    os.makedirs(workdir, exist_ok=True)
    report_dir = os.path.join(workdir, "placements")
    os.makedirs(report_dir, exist_ok=True)
    print(_common.load_line())
    try:
        with _common.run_emulator(profile=PROFILE, timing_scale=_common.timing_scale(arguments.window),
                                  rate_limits=_common.production_rate_limits(arguments.window)) as emulator:
            token = {"Authorization": "Bearer %s" % emulator.access_token()}
            response = requests.post("%s/ssh-keys" % emulator.api_url, timeout=10, headers=token, json={
                "name": "scarce-bench", "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q bench"})
            response.raise_for_status()
            ssh_key_id = response.text.strip().strip('"')
            paths = {}
            for name, text in (("fleet.yml", PLAYBOOK), ("teardown.yml", TEARDOWN)):
                paths[name] = os.path.join(workdir, name)
                with open(paths[name], "w") as handle:
                    handle.write(text)
            inventory = os.path.join(workdir, "fleet.ini")
            with open(inventory, "w") as handle:
                handle.write("[fleet]\n" + "".join("gpu-%02d\n" % number for number in range(1, arguments.instances + 1)))
            environment = _common.ansible_environment(emulator, workdir)
            for location, steps in schedule.items():
                emulator.control._call("PUT", "/capacity", {
                    "instance_type": INSTANCE_TYPE, "location_code": location,
                    "schedule": [{"after_seconds": after, "available": units} for after, units in steps]})
            _common.api_calls(emulator)
            print("%d instances, capacity %s..." % (arguments.instances, json.dumps(schedule)), end=" ", flush=True)
            run = _common.run_playbook(paths["fleet.yml"], environment, "-i", inventory, "--forks", str(arguments.instances),
                                       "-e", "ssh_key_id=%s" % ssh_key_id, "-e", "report_dir=%s" % report_dir,
                                       emulator=emulator, check=False)
            print("%.1f s" % run["wall"], flush=True)
            log = _common.api_calls(emulator)
            placements = []
            if os.path.exists(os.path.join(report_dir, "placements.json")):
                with open(os.path.join(report_dir, "placements.json")) as handle:
                    placements = [placement for placement in json.load(handle) if placement]
            _common.run_playbook(paths["teardown.yml"], environment, "-i", inventory, emulator=emulator, check=False)
            with open(os.path.join(workdir, "output.txt"), "w") as handle:
                handle.write(run["output"])
            with open(os.path.join(workdir, "requests.json"), "w") as handle:
                json.dump(log, handle, indent=0)
    finally:
        if not arguments.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print(_common.load_line())
    return 0 if report(arguments, floor, parts, run, log, placements) else 1


def report(arguments, floor, parts, run, log, placements):
    ratio = run["wall"] / floor
    failed = failed_tasks(run["output"])
    if run["returncode"] != 0 and not failed:
        print(run["output"][-5000:])
        failed = 1
    refused = races(log)
    answered_503 = sum(refused.values())
    landed = {}
    for placement in placements:
        landed[placement["location_code"]] = landed.get(placement["location_code"], 0) + 1
    availability_reads = sum(1 for entry in log if request_of(entry) == AVAILABILITY)
    rate_limited = sum(1 for entry in log if entry["status"] == 429)
    wall_met = ratio <= WALL_TARGET
    failed_met = failed == 0 and len(placements) == arguments.instances
    races_met = answered_503 == refused["true races"]
    print()
    print("floor: %.1f s = %s" % (floor, " + ".join("%.1f s %s" % (seconds, name) for name, seconds in parts.items())))
    print("wall:  %.1f s (busy %.1f s)   %.2fx the floor   target <= %.2fx %s" % (
        run["wall"], run["busy"], ratio, WALL_TARGET, "ok" if wall_met else "MISSED"))
    print("landed: %s" % ", ".join("%s %d" % item for item in sorted(landed.items())))
    print("failed tasks: %d   target 0 %s" % (failed, "ok" if failed_met else "MISSED"))
    print("deploys answered 503: %d (%s)   target: only true races %s" % (
        answered_503, ", ".join("%s %d" % item for item in refused.items()), "ok" if races_met else "MISSED"))
    print("requests: %d (%d availability reads, %d deploys), %d answered 429" % (
        len(log), availability_reads, sum(1 for entry in log if request_of(entry) == DEPLOY),
        rate_limited))
    print("result: %d instances, %.1f s = %.2fx the floor of %.1f s (target <= %.2fx: %s); %d failed tasks; "
          "%d deploys answered 503 (%s)" % (
              arguments.instances, run["wall"], ratio, floor, WALL_TARGET, "ok" if wall_met else "MISSED", failed,
              answered_503, ", ".join("%s %d" % item for item in refused.items())))
    return wall_met and failed_met and races_met


if __name__ == "__main__":
    sys.exit(main())
