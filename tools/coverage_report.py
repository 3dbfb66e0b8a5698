#!/usr/bin/env python3
"""Line and branch coverage of plugins/ and extensions/ from the measured stages (tools/test.sh,
CONTRIBUTING.md "Coverage"): combines every process's data file (both lanes' staged copies and
the modules' AnsiballZ payloads, mapped back to the repository's files by pyproject.toml's
[tool.coverage.paths]), prints the totals and the least-covered files, and with --check fails
below the floors of [tool.cloudcompute.coverage].

Usage: tools/coverage_report.py DATA_DIR [--check] [--html]
"""

import argparse
import json
import os
import pathlib
import sys

import coverage
import tomllib

REPO = pathlib.Path(__file__).resolve().parent.parent
CONFIG = REPO / "pyproject.toml"
LEAST_COVERED = 10
MEASURED = ("plugins", "extensions")
INCLUDE = ["plugins/*", "extensions/*"]


def floors():
    settings = tomllib.loads(CONFIG.read_text())["tool"]["cloudcompute"]["coverage"]
    return float(settings["line_floor"]), float(settings["branch_floor"])


def percent(part, whole):
    return 100.0 * part / whole if whole else 100.0


def data_files(data_dir):
    """Every data file a process wrote: coverage's own (.coverage.<host>.<pid>...) and those of
    the AnsiballZ hook (<output>=python-X.Y=coverage.<host>.<pid>...)."""
    return sorted(
        str(path)
        for path in data_dir.iterdir()
        if path.is_file() and (path.name.startswith(".coverage.") or "=coverage." in path.name)
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=pathlib.Path)
    parser.add_argument("--check", action="store_true", help="fail below the floors")
    parser.add_argument("--html", action="store_true", help="also write the HTML report")
    args = parser.parse_args()
    os.chdir(REPO)  # [tool.coverage.paths] maps to the repository's relative paths
    os.environ["COVERAGE_DATA_DIR"] = str(args.data_dir)
    files = data_files(args.data_dir)
    cov = coverage.Coverage(config_file=str(CONFIG), data_file=str(args.data_dir / ".coverage"))
    if files:
        cov.load()  # add to what an earlier report combined, never replace it
        cov.combine(files, strict=False, keep=False)
        cov.save()
    cov.load()
    data = cov.get_data()
    if not data.measured_files():
        print("coverage: no data collected", file=sys.stderr)
        return 1
    # a file no test ever imported counts, at 0%
    measured = set(data.measured_files())
    never_run = [
        str(path)
        for top in MEASURED
        for path in sorted((REPO / top).rglob("*.py"))
        if str(path) not in measured and "doc_fragments" not in path.parts
    ]
    data.touch_files(never_run)
    report = args.data_dir / "coverage.json"
    cov.json_report(outfile=str(report), include=INCLUDE)
    report_data = json.loads(report.read_text())
    totals = report_data["totals"]
    lines = percent(totals["covered_lines"], totals["num_statements"])
    branches = percent(totals["covered_branches"], totals["num_branches"])

    def file_percent(item):
        summary = item[1]["summary"]
        return percent(summary["covered_lines"], summary["num_statements"]), item[0]

    print(f"\ncoverage of plugins/ and extensions/ ({len(files)} process data files combined):")
    print(f"  lines    {lines:5.1f}%  ({totals['covered_lines']}/{totals['num_statements']})")
    print(f"  branches {branches:5.1f}%  ({totals['covered_branches']}/{totals['num_branches']})")
    print(f"the {LEAST_COVERED} least-covered files (lines, branches, missing lines):")
    for name, item in sorted(report_data["files"].items(), key=file_percent)[:LEAST_COVERED]:
        summary = item["summary"]
        file_branches = percent(summary["covered_branches"], summary["num_branches"])
        print(f"  {file_percent((name, item))[0]:5.1f}%  {file_branches:5.1f}%  {summary['missing_lines']:4d}  {name}")
    if args.html:
        cov.html_report(include=INCLUDE)
        print(f"HTML report: {REPO / cov.config.html_dir / 'index.html'}")
    if args.check:
        line_floor, branch_floor = floors()
        below = [
            f"{what} {value:.1f}% < floor {floor:g}%"
            for what, value, floor in (("lines", lines, line_floor), ("branches", branches, branch_floor))
            if value < floor
        ]
        if below:
            print("coverage below the floor (pyproject.toml, tool.cloudcompute.coverage): " + ", ".join(below))
            return 1
        print(f"floors held: lines >= {line_floor:g}%, branches >= {branch_floor:g}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
