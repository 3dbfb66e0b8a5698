"""Installed into the ceiling venv by tools/test.sh (with a .pth file that imports it): starts
coverage in each Python process of a measured stage.

A process measures when it inherits CLOUDCOMPUTE_COVERAGE_START (the configuration file), except
the emulator (it runs none of the collection's code, and tracing every request it serves doubled
a stage's time) and the modules, whose coverage ansible-core's AnsiballZ hook starts
(_ANSIBLE_ANSIBALLZ_COVERAGE_CONFIG). COVERAGE_PROCESS_START is set only for coverage's own
start-up in this process, so no child inherits it and each child decides again.

A module process imports requests before that hook starts coverage: on Python 3.12 and 3.13
coverage traces with sys.settrace, under which importing requests (never measured: it is not the
collection's code) took 0.85 s more per module run, most of a measured integration stage's extra
time."""

import os
import sys


def start():
    program = os.path.basename((sys.argv or [""])[0])
    if program.startswith("AnsiballZ_"):
        if os.environ.get("_ANSIBLE_ANSIBALLZ_COVERAGE_CONFIG"):
            try:
                import requests  # noqa: F401
            except ImportError:
                pass
        return
    config = os.environ.get("CLOUDCOMPUTE_COVERAGE_START")
    if not config or "cloudcompute_emulator" in sys.orig_argv:
        return
    import coverage

    os.environ["COVERAGE_PROCESS_START"] = config
    try:
        coverage.process_startup()
    finally:
        del os.environ["COVERAGE_PROCESS_START"]


start()
