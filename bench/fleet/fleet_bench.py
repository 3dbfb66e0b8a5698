"""Benchmark of a fleet at production ratios: deploy N instances, wait until they run, and
delete them all, against the floor the rate limits and the provisioning time allow.

Production ratios: the emulator runs the ``realistic`` timing profile (an instance runs 160 s
after its deploy: ordered 10 s + provisioning 150 s; deleting 30 s) and the production rate
limits of the spec (section 8: 500 requests per project, 60 per method and path, 120 for
``GET /v1/instances``, per 60 s), both scaled by window / 60 (``--window``: every quota and
every step duration times that factor), so waiting weighs against the quota as it does in
production and the run still takes minutes. ``--quota-factor F`` multiplies every quota once
more (F times the production rate: a 1,000-instance fleet then needs the windows 1,000 / F
instances need in production, and the run takes minutes instead of a quarter of an hour).

Two patterns (``--pattern``):

- ``hosts``: a play over one inventory host per instance, ``--forks`` forks:
  ``cloudcompute.cloud.instance`` deploys the host's instance and waits until it runs (what a
  user writes for a fleet); then a play on localhost: ``cloudcompute.cloud.instance_state``
  deletes the whole fleet with one bulk ``PUT /v1/instances`` and waits until it is gone.
- ``role``: one play on localhost: the ``cloudcompute.cloud.fleet`` role converges the fleet,
  then tears it down (``fleet_state: absent``, one bulk delete).

The floor is what no client can beat, at most tightened by the pattern's own bound. Every
instance needs its own ``POST /v1/instances``, one method and path, whose windows (fixed, each
opening at the first request after the last one closed) let ``q`` deploys through per window:
N deploys need ceil(N / q) windows, so the last one cannot be sent before (ceil(N / q) - 1)
windows have passed. Its instance then takes the provisioning time to run, and the delete that
follows its deleting time. The project quota would bind if the fewest requests the job needs
(the N deploys, one list to find none exists, one to see them all run, the bulk delete, one
list to see them gone) did not fit in as many windows; the token endpoint is not rate-limited.
The ``hosts`` pattern is also bound by its forks: each fork waits for its instance before it
takes the next host, so its floor is ceil(N / forks) x provisioning + the rate limits + the
delete (the fork-bound floor).

With ``--playbooks 2`` the fleet is split in two, each half its own ``ansible-playbook``
process (with ``--forks`` forks each), both started at the same moment: two jobs of one AWX node
sharing the project's quota. The floor is that of the whole fleet.

Also measured, as a reference for the start-up part: the same playbooks (same hosts, forks and
processes) with one ``ansible.builtin.uri`` GET per host instead of the fleet, rate limits off;
the time until its first request is what starting the forks and a module costs Ansible itself,
whatever the collection (``hosts`` pattern only).

Targets: no failed task, wall time <= ``--target`` x the floor (1.10 by default), at most 2% of
the requests answered 429 (each one waited out and sent again: quota wasted), at most
``--requests-target`` requests per instance (the deploy included; 8 for the role, 10 for one
host per instance). Also reported: every request by method and path, and the peak request rate
the emulator saw (what bench/emulator must sustain with room to spare). Exit status 1 when a
target is missed.

Usage: bench/fleet/run [--pattern hosts|role] [--instances 100] [--forks 25] [--playbooks 1]
                       [--window 6] [--quota-factor 1] [--target 1.10] [--keep DIR]
"""

import argparse
import collections
import concurrent.futures
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from datetime import datetime

import requests

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import _common  # noqa: E402  pylint: disable=wrong-import-position
from cloudcompute_emulator import timing  # noqa: E402  pylint: disable=wrong-import-position

RATE_LIMITED_TARGET = 0.02
REQUESTS_TARGET = {"hosts": 10, "role": 8}
PROFILE = "realistic"

PLAYBOOKS = {"hosts": """
- name: Deploy the fleet, one host per instance
  hosts: fleet
  gather_facts: false
  tasks:
    - name: Deploy the instance and wait until it runs
      cloudcompute.cloud.instance:
        hostname: "{{ inventory_hostname }}"
        instance_type: CPU.4V.16G
        image: ubuntu-24.04
        location_code: FIN-01
        ssh_keys: ["{{ ssh_key_id }}"]
        state: running

- name: Delete the fleet
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Delete every instance of the fleet in one bulk request and wait until they are gone
      cloudcompute.cloud.instance_state:
        instances: "{{ groups['fleet'] }}"
        state: absent
        delete_permanently: true
""", "role": """
- name: Deploy the fleet with the fleet role, then delete it
  hosts: localhost
  gather_facts: false
  tasks:
    # fleet_instances comes from the extra variables: one entry per instance
    - name: Converge the fleet
      ansible.builtin.include_role:
        name: cloudcompute.cloud.fleet

    - name: Delete the fleet
      ansible.builtin.include_role:
        name: cloudcompute.cloud.fleet
      vars:
        fleet_state: absent
        fleet_delete_permanently: true
"""}


STARTUP_REFERENCE_PLAYBOOK = """
- name: The fleet's shape with one ansible.builtin.uri GET per host
  hosts: fleet
  gather_facts: false
  tasks:
    - name: GET the instance types
      ansible.builtin.uri:
        url: "{{ api_url }}/instance-types"
        headers:
          Authorization: "Bearer {{ token }}"
"""


def step(name, window):
    return timing.step_seconds(name, PROFILE) * _common.timing_scale(window)


def floor_seconds(instances, limits, pattern="role", forks=1):
    """The floor (see the module docstring) and what it is made of."""
    window = limits["window_seconds"]
    deploy_quota = limits["overrides"].get("POST /v1/instances", limits["endpoint_quota"])
    fewest_requests = instances + 4
    windows = max(math.ceil(instances / deploy_quota), math.ceil(fewest_requests / limits["project_quota"]))
    provisioning = step("instance.ordered", window) + step("instance.provisioning", window)
    parts = {
        "rate limits": (windows - 1) * window,
        "provisioning": provisioning if pattern == "role" else math.ceil(instances / forks) * provisioning,
        "deleting": step("instance.deleting", window),
    }
    return sum(parts.values()), parts


def failed_tasks(output):
    """failed + unreachable over every host of the PLAY RECAP."""
    return sum(int(failed) + int(unreachable) for unreachable, failed in
               re.findall(r"\bunreachable=(\d+)\s+failed=(\d+)", output))


def timestamp(entry):
    return datetime.fromisoformat(entry["timestamp"].replace("Z", "+00:00")).timestamp()


def peak_rate(log):
    """The most requests the emulator received in one second (any second of the run)."""
    return max(collections.Counter(int(timestamp(entry)) for entry in log).values(), default=0)


def wall_parts(run, log):
    """The wall time cut where the floor's parts begin and end: until the first request (Ansible
    starting the forks and their modules), from the first to the last accepted deploy (the
    floor's rate-limit part), and after it (provisioning, the delete, Ansible's end)."""
    deploys = [timestamp(entry) for entry in log if (entry["method"], entry["path"], entry["status"]) == (
        "POST", "/v1/instances", 202)]
    if not log or not deploys:
        return {}
    first = min(timestamp(entry) for entry in log)
    return {"start-up": first - run["started"], "deploys": deploys[-1] - first,
            "after the last deploy": run["started"] + run["wall"] - deploys[-1]}


def run_together(playbook, inventories, environment, emulator, forks, *variables):
    """Run ``playbook`` once per inventory, every ``ansible-playbook`` started at the same moment."""
    started = time.time()  # the emulator's request log has the same clock (no clock/advance here)
    # CPU measured around the whole group: each run's own figure would count the other's
    # processes too (children's CPU is this process's, whichever thread waits for them)
    before, emulator_before = os.times(), _common.cpu_seconds(emulator.process.pid)

    def run_one(inventory):
        extra = [argument for variable in variables for argument in ("-e", variable)]
        extra += ["-e", "@" + inventory[: -len(".ini")] + ".json"]  # fleet_instances, for the role
        return _common.run_playbook(playbook, environment, "-i", inventory, "--forks", str(forks), *extra,
                                    emulator=emulator, check=False)

    with concurrent.futures.ThreadPoolExecutor(len(inventories)) as pool:
        runs = list(pool.map(run_one, inventories))
    after, emulator_after = os.times(), _common.cpu_seconds(emulator.process.pid)
    busy = (after.children_user - before.children_user + after.children_system - before.children_system
            + emulator_after - emulator_before)
    return {"started": started, "wall": time.time() - started, "busy": busy,
            "output": "\n".join(one["output"] for one in runs), "returncode": max(one["returncode"] for one in runs)}


def reference_startup(workdir, inventories, environment, emulator, forks):
    """Seconds until the first request of the fleet's playbooks made of one uri GET per host."""
    playbook = os.path.join(workdir, "startup-reference.yml")
    with open(playbook, "w") as handle:
        handle.write(STARTUP_REFERENCE_PLAYBOOK)
    emulator.control.update_settings(rate_limits={"enabled": False})
    variables = ("api_url=%s" % emulator.api_url, "token=%s" % emulator.access_token())
    _common.api_calls(emulator)
    run = run_together(playbook, inventories, environment, emulator, forks, *variables)
    log = _common.api_calls(emulator)
    return min(timestamp(entry) for entry in log) - run["started"] if log else None


def create_ssh_key(emulator):
    response = requests.post("%s/ssh-keys" % emulator.api_url, timeout=10, headers={
        "Authorization": "Bearer %s" % emulator.access_token()}, json={
        "name": "fleet-bench", "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q bench"})
    response.raise_for_status()
    return response.text.strip().strip('"')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--pattern", choices=sorted(PLAYBOOKS), default="hosts",
                        help="hosts: one inventory host per instance; role: the fleet role (default hosts)")
    parser.add_argument("--instances", type=int, default=100, help="instances in the fleet (default 100)")
    parser.add_argument("--forks", type=int, default=25, help="ansible-playbook forks (default 25)")
    parser.add_argument("--playbooks", type=int, default=1,
                        help="split the fleet over this many ansible-playbook processes started together (default 1)")
    parser.add_argument("--window", type=int, default=6,
                        help="rate-limit window in seconds, the quotas and step durations scaled to it (default 6; "
                        "production: 60)")
    parser.add_argument("--quota-factor", type=int, default=1,
                        help="multiply every quota by this once more (default 1: the production rate)")
    parser.add_argument("--target", type=float, default=1.10, help="wall time target, x the floor (default 1.10)")
    parser.add_argument("--keep", metavar="DIR", help="keep the playbook, inventory, output and request log in DIR")
    arguments = parser.parse_args()

    workdir = arguments.keep or tempfile.mkdtemp(prefix="cloudcompute-fleet-bench-")
    os.makedirs(workdir, exist_ok=True)
    limits = _common.production_rate_limits(arguments.window, arguments.quota_factor)
    print(_common.load_line())
    try:
        with _common.run_emulator(profile=PROFILE, timing_scale=_common.timing_scale(arguments.window),
                                  rate_limits=limits) as emulator:
            ssh_key_id = create_ssh_key(emulator)
            playbook = os.path.join(workdir, "fleet.yml")
            with open(playbook, "w") as handle:
                handle.write(PLAYBOOKS[arguments.pattern])
            inventories = []
            for part in range(arguments.playbooks):
                hostnames = ["fleet-%d-%04d" % (part, number) for number in range(
                    1 + part, arguments.instances + 1, arguments.playbooks)]
                inventories.append(os.path.join(workdir, "fleet-%d.ini" % part))
                with open(inventories[-1], "w") as handle:
                    handle.write("[fleet]\n" + "".join(hostname + "\n" for hostname in hostnames)
                                 if arguments.pattern == "hosts" else "")
                with open(os.path.join(workdir, "fleet-%d.json" % part), "w") as handle:
                    json.dump({"fleet_instances": [{"hostname": hostname} for hostname in hostnames]}, handle)
            environment = _common.ansible_environment(emulator, workdir)
            emulator.control.update_settings(rate_limits=limits)  # every window starts afresh with the timed run
            _common.api_calls(emulator)
            print("%d instances, %s, %d playbooks of %d forks..." % (
                arguments.instances, arguments.pattern, arguments.playbooks, arguments.forks), end=" ", flush=True)
            # the role's instances take the key by its id, as the hosts' tasks do
            run = run_together(playbook, inventories, environment, emulator, arguments.forks,
                               "ssh_key_id=%s" % ssh_key_id, json.dumps({"fleet_ssh_keys": [ssh_key_id]}))
            print("%.1f s" % run["wall"], flush=True)
            log = _common.api_calls(emulator)
            # from the emulator's store, not GET /instances: the fleet may have used up that
            # endpoint's rate-limit window, and the error object would count as instances
            left = [record for record in emulator.control.resources("instances")
                    if not record.get("removed_at") and record.get("status") != "deleted"]
            with open(os.path.join(workdir, "output.txt"), "w") as handle:
                handle.write(run["output"])
            with open(os.path.join(workdir, "requests.json"), "w") as handle:
                json.dump(log, handle, indent=0)
            run["reference start-up"] = (reference_startup(workdir, inventories, environment, emulator, arguments.forks)
                                         if arguments.pattern == "hosts" else None)
    finally:
        if not arguments.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print(_common.load_line())
    return 0 if report(arguments, limits, run, log, left) else 1


def report(arguments, limits, run, log, left):
    floor, parts = floor_seconds(arguments.instances, limits, arguments.pattern, arguments.forks)
    ratio = run["wall"] / floor
    per_instance = len(log) / arguments.instances
    requests_target = REQUESTS_TARGET[arguments.pattern]
    requests_met = per_instance <= requests_target
    wall_target = arguments.target
    failed = failed_tasks(run["output"])
    if run["returncode"] != 0 and not failed:
        print(run["output"][-5000:])
        failed = 1  # a failure the recap does not count (a syntax error, an interrupted run)
    rate_limited = sum(1 for entry in log if entry["status"] == 429)
    by_call = collections.Counter("%s %s" % (entry["method"], re.sub("/[0-9a-f-]{36}", "/{id}", entry["path"]))
                                  for entry in log)
    wall_met, failed_met = ratio <= wall_target, failed == 0 and not left
    share = rate_limited / max(1, len(log))
    rate_limited_met = share <= RATE_LIMITED_TARGET
    print()
    print("rate limits per %d s window (production scaled%s): project %d, endpoint %d, %s; timing profile %s x %.2f"
          % (limits["window_seconds"], " x %d" % arguments.quota_factor if arguments.quota_factor != 1 else "",
             limits["project_quota"], limits["endpoint_quota"],
             ", ".join("%s %d" % item for item in sorted(limits["overrides"].items())), PROFILE,
             _common.timing_scale(arguments.window)))
    print("pattern: %s" % ("one host per instance, %d forks" % arguments.forks if arguments.pattern == "hosts"
                           else "the fleet role"))
    print("floor: %.1f s = %s" % (floor, " + ".join("%.1f s %s" % (seconds, name) for name, seconds in parts.items())))
    print("wall:  %.1f s = %s (busy %.1f s)   %.2fx the floor   target <= %.2fx %s" % (
        run["wall"], " + ".join("%.1f s %s" % (seconds, name) for name, seconds in wall_parts(run, log).items()),
        run["busy"], ratio, wall_target, "ok" if wall_met else "MISSED"))
    if run["reference start-up"] is not None:
        print("       the same playbooks with one ansible.builtin.uri GET per host make their first request after "
              "%.1f s (Ansible starting %d forks and a module each)" % (run["reference start-up"],
                                                                        arguments.playbooks * arguments.forks))
    print("failed tasks: %d; instances left: %d%s   target 0 %s" % (
        failed, len(left), "".join(" (%s %s)" % (item.get("hostname"), item.get("status")) for item in left[:5]),
        "ok" if failed_met else "MISSED"))
    print("requests: %d, of which %d (%.1f%%) answered 429   target <= %.0f%% %s; peak %d requests/s" % (
        len(log), rate_limited, 100 * share, 100 * RATE_LIMITED_TARGET, "ok" if rate_limited_met else "MISSED",
        peak_rate(log)))
    print("requests per instance: %.1f (the deploy included)   target <= %d %s" % (
        per_instance, requests_target, "ok" if requests_met else "MISSED"))
    for call, count in sorted(by_call.items()):
        print("  %5d  %s (%d answered 429)" % (count, call, sum(
            1 for entry in log if entry["status"] == 429 and "%s %s" % (
                entry["method"], re.sub("/[0-9a-f-]{36}", "/{id}", entry["path"])) == call)))
    shape = ("%d playbooks of %d forks, one host per instance" % (arguments.playbooks, arguments.forks)
             if arguments.pattern == "hosts" else "the fleet role in %d playbooks" % arguments.playbooks)
    print("result: %d instances, %s, %.1f s = %.2fx the floor of %.1f s (target <= %.2fx: %s); "
          "%d failed tasks (target 0: %s); %d requests = %.1f per instance (target <= %d: %s), %d answered 429 = "
          "%.1f%% (target <= %.0f%%: %s), peak %d requests/s; %s" % (
              arguments.instances, shape, run["wall"], ratio, floor, wall_target,
              "ok" if wall_met else "MISSED", failed, "ok" if failed_met else "MISSED", len(log), per_instance,
              requests_target, "ok" if requests_met else "MISSED", rate_limited,
              100 * share, 100 * RATE_LIMITED_TARGET, "ok" if rate_limited_met else "MISSED", peak_rate(log),
              _common.load_line()))
    return wall_met and failed_met and rate_limited_met and requests_met


if __name__ == "__main__":
    sys.exit(main())
