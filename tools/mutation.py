#!/usr/bin/env python3
"""Mutation score of the decision code (`make mutation`): cosmic-ray mutates one module at a
time in a staged copy of the collection of its own (never the checkout, never a test lane's
copy) and runs that module's unit tests against every mutant; a mutant the tests still pass
is a survivor: an operator, a constant or a branch that no test pins down.

Usage: tools/mutation.py [--output FILE] [MODULE ...]   (default: every module in MODULES)
Slow (minutes per module on this machine): it is a report, not a CI gate. tools/mutation.sh
stages the copy and calls this with the ceiling venv's Python.
"""

import argparse
import datetime
import json
import os
import pathlib
import platform
import shlex
import subprocess
import sys
import time

REPO = pathlib.Path(os.environ.get("REPO") or pathlib.Path(__file__).resolve().parent.parent)
UTILS = "plugins/module_utils"
UNIT = "tests/unit/plugins"
# The modules where a wrong branch costs money or data, and the unit tests that must notice.
MODULES = {
    "_api_retry": (
        f"{UTILS}/_api_retry.py",
        [f"{UNIT}/module_utils/test_retry.py", "tests/unit/properties/test_headers.py"],
    ),
    "_expiry": (
        f"{UTILS}/_expiry.py",
        [
            f"{UNIT}/module_utils/test_expiry.py",
            "tests/unit/properties/test_times.py",
        ],
    ),
    "_tags": (f"{UTILS}/_tags.py", [f"{UNIT}/module_utils/test_tags.py"]),
    "_api_pacing": (
        f"{UTILS}/_api_pacing.py",
        [f"{UNIT}/module_utils/test_api.py", "tests/unit/properties/test_headers.py"],
    ),
    "_quota": (f"{UTILS}/_quota.py", [f"{UNIT}/module_utils/test_quota.py"]),
    "_locks": (f"{UTILS}/_locks.py", [f"{UNIT}/module_utils/test_locks.py"]),
    "_cost": (f"{UTILS}/_cost.py", [f"{UNIT}/module_utils/test_cost.py", f"{UNIT}/modules/test_instance_placement.py"]),
    "_placement": (f"{UTILS}/_placement.py", [f"{UNIT}/modules/test_instance_placement.py"]),
    "_resource": (f"{UTILS}/_resource.py", [f"{UNIT}/module_utils/test_resource.py"]),
}


def run(command, **kwargs):
    return subprocess.run(command, check=False, capture_output=True, text=True, **kwargs)


def mutate(name, staged, workdir):
    """Run cosmic-ray over module ``name`` in ``staged``; the per-mutant outcomes."""
    source, tests = MODULES[name]
    tests = [test for test in tests if (staged / test).exists()]
    env = dict(
        os.environ,
        PYTHONPATH=str(staged.parent.parent.parent),
        ANSIBLE_COLLECTIONS_PATH=str(staged.parent.parent.parent),
        # a mutant of the same size written within the same second must not run from a stale .pyc
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.pop("COVERAGE_PROCESS_START", None)
    pytest = [
        sys.executable,
        "-m",
        "pytest",
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
        # every mutant meets the same generated inputs the baseline passed
        "--hypothesis-seed=0",
        *tests,
    ]
    started = time.monotonic()
    baseline = run(pytest, cwd=staged, env=env)
    baseline_seconds = time.monotonic() - started
    if baseline.returncode != 0:
        raise SystemExit(f"{name}: the unit tests fail without any mutation:\n{baseline.stdout[-3000:]}")
    config = workdir / f"{name}.toml"
    session = workdir / f"{name}.sqlite"
    session.unlink(missing_ok=True)
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(str(staged / source))}\n"
        f"timeout = {max(30.0, baseline_seconds * 4):.0f}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(shlex.join(pytest))}\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
    )
    cosmic_ray = [str(pathlib.Path(sys.executable).parent / "cosmic-ray")]
    for step in (["init", str(config), str(session)], ["exec", str(config), str(session)]):
        done = run(cosmic_ray + step, cwd=staged, env=env)
        if done.returncode != 0:
            raise SystemExit(f"{name}: cosmic-ray {step[0]} failed:\n{done.stderr[-3000:]}")
    dump = run(cosmic_ray + ["dump", str(session)], cwd=staged, env=env).stdout
    outcomes = []
    for line in dump.splitlines():
        item, result = json.loads(line)
        mutation = item["mutations"][0]
        outcomes.append(
            {
                "line": mutation["start_pos"][0],
                "operator": mutation["operator_name"].split("/")[-1],
                "occurrence": mutation["occurrence"],
                "outcome": (result or {}).get("test_outcome") or "pending",
                "worker_outcome": (result or {}).get("worker_outcome"),
                "diff": "\n".join(
                    diff_line
                    for diff_line in ((result or {}).get("diff") or "").splitlines()
                    if diff_line.startswith(("+", "-")) and not diff_line.startswith(("+++", "---"))
                ),
            }
        )
    return {"module": name, "source": source, "tests": tests, "baseline_seconds": baseline_seconds, "mutants": outcomes}


def score(report):
    mutants = report["mutants"]
    killed = sum(1 for mutant in mutants if mutant["outcome"] == "killed")
    # a mutant that does not even import is no test's merit: left out of the score
    incompetent = sum(1 for mutant in mutants if mutant["outcome"] == "incompetent")
    counted = len(mutants) - incompetent
    return killed, counted, incompetent


def markdown(reports):
    lines = [
        "# Mutation score of the decision code",
        "",
        f"Written by `make mutation` (tools/mutation.py, cosmic-ray) on {datetime.date.today()}, "
        f"{platform.python_implementation()} {platform.python_version()}, niced, on a machine shared with other runs.",
        "A survivor is a mutant the module's unit tests still pass. Target: >= 85% killed.",
        "",
        "| module | tests | mutants | killed | survived | score | minutes |",
        "|---|---|---|---|---|---|---|",
    ]
    for report in reports:
        killed, counted, _incompetent = score(report)
        percent = 100.0 * killed / counted if counted else 0.0
        tests = ", ".join(pathlib.Path(test).name for test in report["tests"])
        lines.append(
            f"| `{report['module']}` | {tests} | {counted} | {killed} | {counted - killed} | {percent:.1f}% | {report.get('minutes', 0):.0f} |"
        )
    for report in reports:
        survivors = [mutant for mutant in report["mutants"] if mutant["outcome"] not in ("killed", "incompetent")]
        lines += ["", f"## Survivors in `{report['source']}` ({len(survivors)})", ""]
        for mutant in sorted(survivors, key=lambda mutant: mutant["line"]):
            diff = " / ".join(part.strip() for part in mutant["diff"].splitlines()) or mutant["outcome"]
            lines.append(f"- line {mutant['line']}, {mutant['operator']}: `{diff}`")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="any of " + ", ".join(MODULES))
    parser.add_argument("--output", default=str(REPO / "bench" / "mutation.md"))
    parser.add_argument("--report-only", action="store_true", help="write the file from the last run of each module")
    parser.add_argument("--staged", required=True, help="the staged collection (tools/mutation.sh)")
    args = parser.parse_args()
    unknown = sorted(set(args.modules) - set(MODULES))
    if unknown:
        parser.error(f"unknown module {', '.join(unknown)} (known: {', '.join(MODULES)})")
    staged = pathlib.Path(args.staged)
    workdir = staged.parent.parent.parent.parent / "mutation"
    workdir.mkdir(parents=True, exist_ok=True)
    reports = []
    if args.report_only:
        # the results of earlier runs, one module each, in one file
        reports = [
            json.loads((workdir / f"{name}.json").read_text())
            for name in args.modules or list(MODULES)
            if (workdir / f"{name}.json").exists()
        ]
    for name in [] if args.report_only else args.modules or list(MODULES):
        print(f"==> mutating {name}", file=sys.stderr, flush=True)
        module_started = time.monotonic()
        report = mutate(name, staged, workdir)
        killed, counted, _incompetent = score(report)
        print(f"==> {name}: {killed}/{counted} mutants killed", file=sys.stderr, flush=True)
        report["minutes"] = (time.monotonic() - module_started) / 60
        (workdir / f"{name}.json").write_text(json.dumps(report, indent=1))
        reports.append(report)
    pathlib.Path(args.output).write_text(markdown(reports))
    print(f"==> written to {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
