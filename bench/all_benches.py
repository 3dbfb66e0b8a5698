"""Run every benchmark and write bench/results.md: the machine, the versions, each benchmark's
figures and whether its targets were met (``make bench``).

Each benchmark is ``bench/<name>/<name>_bench.py``, run with this Python; its output is shown as
it comes and kept whole in the results, its last ``result:`` line in the summary table. Exit
status 1 when any benchmark missed a target.

Usage: bench/run [--quick] [--only task_overhead,fleet] [--output bench/results.md]
"""

import argparse
import datetime
import os
import subprocess
import sys
import time

import _common

# In the order they run: the emulator first, since the others rely on it keeping up.
BENCHMARKS = ("emulator", "task_overhead", "fleet", "fleet_role", "fleet_2_playbooks", "fleet_1000", "scarce_fleet",
              "inventory")
# Runs of another benchmark's script with other arguments: the fleet role; the fleet split over
# two ansible-playbook processes started together, sharing one quota; 1,000 instances with the
# fleet role.
SCRIPT = {"fleet_role": "fleet", "fleet_2_playbooks": "fleet", "fleet_1000": "fleet"}
# 1,000 instances at the production rate would take 17 minutes of deploys alone: the quotas are
# four times production's, so the run takes the windows 250 instances take in production.
FLEET_1000 = ["--pattern", "role", "--instances", "1000", "--quota-factor", "4", "--target", "1.15"]
# The full run: each benchmark's defaults, but the inventory's with 3 rounds and without the
# static YAML reference, which alone takes minutes at 10,000 hosts and has no target.
FULL_ARGUMENTS = {
    "fleet_role": ["--pattern", "role"],
    "fleet_2_playbooks": ["--playbooks", "2"],
    "fleet_1000": FLEET_1000,
    "inventory": ["--rounds", "3", "--no-static"],
}
# --quick: a few minutes in all, smaller sizes and fewer rounds; the targets stay the same.
QUICK_ARGUMENTS = {
    "emulator": ["--seconds", "2"],
    "task_overhead": ["--tasks", "10", "--rounds", "3"],
    # The fleet keeps its size: its fixed costs (Ansible starting 25 forks) would weigh on a
    # smaller floor, and the production rate limits make its time proportional to its size.
    "fleet": [],
    "fleet_role": ["--pattern", "role"],
    "fleet_2_playbooks": ["--playbooks", "2"],
    "fleet_1000": FLEET_1000,
    # capacity released over half the time
    "scarce_fleet": ["--scale", "0.5"],
    "inventory": ["--sizes", "1000", "--rounds", "3", "--no-static"],
}
HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_times():
    """(idle, total) jiffies of all CPUs since boot, from /proc/stat."""
    with open("/proc/stat") as handle:
        fields = [int(value) for value in handle.readline().split()[1:]]
    return fields[3] + fields[4], sum(fields)  # idle + iowait


def wait_until_quiet(limit=120, idle_share=0.9):
    """Wait until the CPUs are idle through a whole second (the last benchmark's processes have
    gone), for at most ``limit`` seconds: each benchmark starts on a quiet machine. The load
    average cannot tell: it decays over minutes after the load has ended."""
    started = time.time()
    while time.time() - started < limit:
        idle_before, total_before = cpu_times()
        time.sleep(1)
        idle_after, total_after = cpu_times()
        if idle_after - idle_before >= idle_share * max(1, total_after - total_before):
            break
    print("(waited %.0f s for idle CPUs)" % (time.time() - started), flush=True)


def run_benchmark(name, quick):
    """Run one benchmark, echoing its output; (passed, result line, output, seconds)."""
    wait_until_quiet()
    script = SCRIPT.get(name, name)
    command = [sys.executable, "-u", os.path.join(HERE, script, script + "_bench.py")] + (QUICK_ARGUMENTS if quick else FULL_ARGUMENTS).get(name, [])
    print("==> bench/%s %s" % (name, " ".join(command[3:])), flush=True)
    started = time.time()
    lines = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as process:
        for line in process.stdout:
            print(line, end="", flush=True)
            lines.append(line)
    seconds = time.time() - started
    result = next((line[len("result:"):].strip() for line in reversed(lines) if line.startswith("result:")),
                  "no result (exit status %d)" % process.returncode)
    return process.returncode == 0, result, "".join(lines), seconds


def write_results(path, quick, started, load, runs):
    machine = dict(_common.machine(), load=load)
    with open(path, "w") as handle:
        handle.write("# Benchmark results\n\n")
        handle.write("Written by `make bench%s` on %s UTC (%s). Each figure is a ratio against a floor measured or "
                     "computed in the same run; the scripts and their floors are described in their own "
                     "docstrings (`bench/<name>/run --help`).\n\n" % (
                         " ARGS=--quick" if quick else "", started.strftime("%Y-%m-%d %H:%M"),
                         "quick mode: smaller sizes, fewer rounds" if quick else "full run"))
        handle.write("| machine | |\n|---|---|\n")
        for key, value in machine.items():
            handle.write("| %s | %s |\n" % (key, value))
        handle.write("\n| benchmark | targets | figures | seconds |\n|---|---|---|---|\n")
        for name, (passed, result, _output, seconds) in runs.items():
            handle.write("| `bench/%s` | %s | %s | %.0f |\n" % (name, "met" if passed else "**missed**", result, seconds))
        for name, (_passed, _result, output, _seconds) in runs.items():
            handle.write("\n## bench/%s\n\n```text\n%s```\n" % (name, output))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer rounds: a few minutes in all")
    parser.add_argument("--only", help="comma-separated benchmarks to run (default: %s)" % ",".join(BENCHMARKS))
    parser.add_argument("--output", default=os.path.join(HERE, "results.md"), help="where to write the results")
    arguments = parser.parse_args()
    names = arguments.only.split(",") if arguments.only else BENCHMARKS
    unknown = set(names) - set(BENCHMARKS)
    if unknown:
        parser.error("unknown benchmark %s (known: %s)" % (", ".join(sorted(unknown)), ", ".join(BENCHMARKS)))

    started, load = datetime.datetime.now(datetime.timezone.utc), _common.load_line() + " at the start"
    runs = {name: run_benchmark(name, arguments.quick) for name in names}
    write_results(arguments.output, arguments.quick, started, load, runs)
    print()
    for name, (passed, result, _output, seconds) in runs.items():
        print("%-18s %-7s %4.0f s  %s" % (name, "ok" if passed else "MISSED", seconds, result))
    print("written: %s" % arguments.output)
    return 0 if all(run[0] for run in runs.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
