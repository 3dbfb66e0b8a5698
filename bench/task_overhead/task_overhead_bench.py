"""Benchmark of one no-op ``cloudcompute.cloud.instance`` task against the floor of an
``ansible.builtin.uri`` GET of the same instance.

A running instance is seeded into an emulator (test timing profile, rate limits off: this
measures what a task costs, not how it paces). Three playbooks run on localhost with a local
connection, one fork:

- ``empty``: no task, the start-up every playbook pays;
- ``instance``: N tasks ``cloudcompute.cloud.instance: {id: ..., state: running}``, each finding
  the instance already running (a no-op, with the token cache warm);
- ``uri`` (the floor): N tasks ``ansible.builtin.uri`` GET ``/v1/instances/<id>`` with a bearer
  token obtained once, beforehand.

The wall seconds of one task are (playbook - empty) / N. Variants are interleaved round by round
and each is represented by the median of its rounds, so load from other processes on the
machine touches them alike. Targets: instance task <= 1.10 x the uri task, and per task exactly
1 read and 0 token exchanges (from the emulator's request log of a warm round). Exit status 1
when one is missed.

Usage: bench/task_overhead/run [--tasks 20] [--rounds 5] [--keep DIR]
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import _common  # noqa: E402  pylint: disable=wrong-import-position

RATIO_TARGET = 1.10
VARIANTS = ("empty", "instance", "uri")
PLAY = "- name: %s\n  hosts: localhost\n  gather_facts: false\n  tasks:%s\n"
INSTANCE_TASK = """
    - name: Instance %(number)d, already running
      cloudcompute.cloud.instance:
        id: "{{ instance_id }}"
        state: running"""
URI_TASK = """
    - name: GET instance %(number)d
      ansible.builtin.uri:
        url: "{{ api_url }}/instances/{{ instance_id }}"
        headers:
          Authorization: "Bearer {{ token }}"
        return_content: true"""


def write_playbooks(workdir, tasks):
    playbooks = {}
    for variant, task in zip(VARIANTS, (None, INSTANCE_TASK, URI_TASK)):
        body = " []" if task is None else "".join(task % {"number": number} for number in range(1, tasks + 1))
        playbooks[variant] = os.path.join(workdir, variant + ".yml")
        with open(playbooks[variant], "w") as handle:
            handle.write(PLAY % (variant, body))
    return playbooks


def requests_per_task(log, tasks):
    """Reads, token exchanges and other requests per task, from one playbook's request log."""
    tokens = sum(1 for entry in log if _common.is_token_exchange(entry))
    reads = sum(1 for entry in log if entry["method"] == "GET" and not _common.is_token_exchange(entry))
    return {"reads": reads / tasks, "token_exchanges": tokens / tasks, "others": (len(log) - reads - tokens) / tasks,
            "calls": sorted({"%s %s" % (entry["method"], entry["path"]) for entry in log})}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--tasks", type=int, default=20, help="tasks per timed playbook (default 20)")
    parser.add_argument("--rounds", type=int, default=5, help="timed runs of each playbook (default 5)")
    parser.add_argument("--keep", metavar="DIR", help="keep the playbooks and the token cache in DIR")
    arguments = parser.parse_args()

    workdir = arguments.keep or tempfile.mkdtemp(prefix="cloudcompute-task-overhead-bench-")
    os.makedirs(workdir, exist_ok=True)
    print(_common.load_line())
    runs = {variant: [] for variant in VARIANTS}
    requests = {}
    try:
        with _common.run_emulator(profile="test", rate_limits={"enabled": False}) as emulator:
            (instance_id,) = emulator.control.seed(instances=1, status="running", hostname_prefix="bench")["instance_ids"]
            environment = _common.ansible_environment(emulator, workdir)
            playbooks = write_playbooks(workdir, arguments.tasks)
            variables = ["-e", "instance_id=%s" % instance_id, "-e", "api_url=%s" % emulator.api_url,
                         "-e", "token=%s" % emulator.access_token()]
            # Warm-up, untimed: the token cache gets its token, the OS its file caches.
            for variant in VARIANTS:
                _common.run_playbook(playbooks[variant], environment, *variables)
            _common.api_calls(emulator)
            for number in range(arguments.rounds):
                print("round %d/%d..." % (number + 1, arguments.rounds), end=" ", flush=True)
                for variant in VARIANTS:
                    runs[variant].append(_common.run_playbook(playbooks[variant], environment, *variables, emulator=emulator))
                    requests[variant] = requests_per_task(_common.api_calls(emulator), arguments.tasks)
                print("%.1f s" % sum(runs[variant][-1]["wall"] for variant in VARIANTS), flush=True)
    finally:
        if not arguments.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print(_common.load_line())
    return 0 if report(runs, requests["instance"], arguments.tasks) else 1


def per_task_seconds(runs, tasks, measure):
    """Median seconds of one task of each variant: (playbook - empty playbook) / tasks."""
    medians = {variant: statistics.median(run[measure] for run in variant_runs) for variant, variant_runs in runs.items()}
    return {variant: (medians[variant] - medians["empty"]) / tasks for variant in ("instance", "uri")}, medians["empty"]


def report(runs, instance_requests, tasks):
    wall, wall_empty = per_task_seconds(runs, tasks, "wall")
    busy, busy_empty = per_task_seconds(runs, tasks, "busy")
    ratio = wall["instance"] / wall["uri"]
    ratio_met = ratio <= RATIO_TARGET
    requests_met = (instance_requests["reads"] == 1 and instance_requests["token_exchanges"] == 0
                    and instance_requests["others"] == 0)
    print()
    print("seconds, median of %d rounds; busy: CPU time of ansible-playbook, its modules and the emulator" % len(runs["empty"]))
    print("  %-36s %9s %9s %7s" % ("", "wall", "busy", "ratio"))
    print("  %-36s %9.2f %9.2f" % ("playbook start-up (no task)", wall_empty, busy_empty))
    print("  %-36s %9.3f %9.3f" % ("ansible.builtin.uri GET, per task", wall["uri"], busy["uri"]))
    print("  %-36s %9.3f %9.3f %6.2fx   target <= %.2fx (wall) %s" % (
        "instance no-op, per task", wall["instance"], busy["instance"], ratio, RATIO_TARGET, "ok" if ratio_met else "MISSED"))
    print("  busy ratio: %.2fx" % (busy["instance"] / busy["uri"]))
    print("API requests per no-op instance task, warm: %g reads, %g token exchanges, %g others (%s); "
          "target 1 read, 0 token exchanges: %s" % (
              instance_requests["reads"], instance_requests["token_exchanges"], instance_requests["others"],
              ", ".join(instance_requests["calls"]), "ok" if requests_met else "MISSED"))
    print("result: no-op instance task %.2fx the uri GET in wall time (%.2fx busy; target <= %.2fx: %s); "
          "%g read + %g token exchanges per task (target 1 + 0: %s)" % (
              ratio, busy["instance"] / busy["uri"], RATIO_TARGET, "ok" if ratio_met else "MISSED",
              instance_requests["reads"], instance_requests["token_exchanges"], "ok" if requests_met else "MISSED"))
    return ratio_met and requests_met


if __name__ == "__main__":
    sys.exit(main())
