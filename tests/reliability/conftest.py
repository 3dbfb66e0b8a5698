"""What the reliability tests share: playbook runs against an emulator with every task result
recorded, the emulator's view of what exists (removed and deleted records included), and the
figures each scenario reports, printed at the end of the run.

The suite runs as the ``reliability`` stage of tools/test.sh, from the staged collection (the
collection is importable as ``ansible_collections.cloudcompute.cloud`` and
``ANSIBLE_COLLECTIONS_PATH`` points at the same copy).
"""

import collections
import json
import os
import pathlib
import subprocess
import sys
import time

import pytest

HERE = pathlib.Path(__file__).parent
PLAYBOOKS = HERE / "playbooks"
CALLBACK_PLUGINS = HERE / "callback_plugins"
# Parallel forks for the fleet scenarios: enough to keep both cores busy, as a user with many
# hosts would run.
FORKS = 10
MUTATING_METHODS = ("POST", "PUT", "PATCH", "DELETE")

# scenario -> lines, printed by pytest_terminal_summary
FIGURES = collections.OrderedDict()


def report(scenario, line):
    """A figure for the end-of-run summary (and the test's own output)."""
    FIGURES.setdefault(scenario, []).append(line)
    print(f"{scenario}: {line}")


# Under pytest-xdist the scenarios run in workers: each sends its figures to the controller,
# which prints them all.
def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["reliability_figures"] = dict(FIGURES)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    for scenario, lines in getattr(node, "workeroutput", {}).get("reliability_figures", {}).items():
        FIGURES.setdefault(scenario, []).extend(lines)


def pytest_terminal_summary(terminalreporter):
    if not FIGURES:
        return
    terminalreporter.section("reliability figures")
    for scenario, lines in sorted(FIGURES.items()):
        terminalreporter.write_line(scenario)
        for line in lines:
            terminalreporter.write_line("    " + line)


def ansible_command(name):
    """An Ansible CLI of the interpreter running the tests (the ceiling venv)."""
    return os.path.join(os.path.dirname(sys.executable), name)


class PlaybookRun:
    """A finished ``ansible-playbook`` run: exit status, output and every task result."""

    def __init__(self, process, results_file, seconds):
        self.returncode = process.returncode
        self.stdout = process.stdout
        self.stderr = process.stderr
        self.seconds = seconds
        self.results = read_results(results_file)

    @property
    def module_tasks(self):
        """The results of the collection's module tasks that ran (skipped ones left out)."""
        return [
            entry
            for entry in self.results
            if entry["action"].startswith("cloudcompute.cloud.") and entry["outcome"] != "skipped"
        ]

    @property
    def failed(self):
        return [entry for entry in self.results if entry["outcome"] in ("failed", "unreachable", "item_failed")]

    def describe_failures(self):
        lines = []
        for entry in self.failed[:10]:
            result = entry["result"]
            lines.append("{} | {} | {}".format(entry["host"], entry["task"], result.get("msg") or result))
        return "\n".join(lines) or "(no failed result recorded)\n" + self.stdout[-5000:] + self.stderr[-3000:]


def read_results(path):
    if not os.path.exists(path):
        return []
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def playbook_environment(emulator, workdir, extra=None):
    """The environment of a playbook run against ``emulator``: credentials from CLOUDCOMPUTE_*,
    a token cache of its own, the result recorder on, and no noise from the implicit
    localhost."""
    workdir = pathlib.Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    env = dict(
        os.environ,
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
        ANSIBLE_LOCALHOST_WARNING="0",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="0",
        # one process per module run instead of a temporary file and several shell commands
        ANSIBLE_PIPELINING="1",
        ANSIBLE_CALLBACK_PLUGINS=str(CALLBACK_PLUGINS),
        ANSIBLE_CALLBACKS_ENABLED="reliability_results",
        RELIABILITY_RESULTS_FILE=str(workdir / "results.jsonl"),
        CLOUDCOMPUTE_TOKEN_CACHE=str(workdir / "tokens"),
    )
    if emulator is not None:
        env.update(
            CLOUDCOMPUTE_API_URL=emulator.api_url,
            CLOUDCOMPUTE_CLIENT_ID=emulator.client_id,
            CLOUDCOMPUTE_CLIENT_SECRET=emulator.client_secret,
        )
    env.update(extra or {})
    return env


def playbook_command(playbook, extra_vars=None, forks=FORKS, args=()):
    command = [
        ansible_command("ansible-playbook"),
        str(playbook),
        "-i",
        "localhost,",
        "-c",
        "local",
        "--forks",
        str(forks),
    ]
    if extra_vars:
        command += ["-e", json.dumps(extra_vars)]
    return command + list(args)


class BackgroundPlaybook:
    """An ``ansible-playbook`` run going on while the test does something else."""

    def __init__(self, playbook, emulator, workdir, extra_vars=None, forks=FORKS, env=None):
        environment = playbook_environment(emulator, workdir, env)
        self.results_file = environment["RELIABILITY_RESULTS_FILE"]
        if os.path.exists(self.results_file):
            os.unlink(self.results_file)
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            playbook_command(playbook, extra_vars, forks),
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def finish(self, timeout=600):
        stdout, stderr = self.process.communicate(timeout=timeout)
        return PlaybookRun(
            subprocess.CompletedProcess(self.process.args, self.process.returncode, stdout, stderr),
            self.results_file,
            time.monotonic() - self.started,
        )


def run_playbook(playbook, emulator, workdir, extra_vars=None, forks=FORKS, env=None, args=(), timeout=600):
    environment = playbook_environment(emulator, workdir, env)
    results_file = environment["RELIABILITY_RESULTS_FILE"]
    if os.path.exists(results_file):
        os.unlink(results_file)
    started = time.monotonic()
    process = subprocess.run(
        playbook_command(playbook, extra_vars, forks, args),
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return PlaybookRun(process, results_file, time.monotonic() - started)


class EmulatorView:
    """What the emulator stores, read through its control API, removed rows included: the
    ground truth a test compares the declared state with."""

    def __init__(self, control):
        self.control = control
        self.instances = control.resources("instances")
        self.volumes = control.resources("volumes")

    def instances_named(self, hostname):
        """Every instance ever created with this hostname, gone ones included."""
        return [item for item in self.instances if item.get("hostname") == hostname]

    def live_instances(self):
        return [item for item in self.instances if not item.get("removed_at")]

    def volumes_named(self, name):
        return [item for item in self.volumes if item.get("name") == name]

    def duplicates(self, hostnames, volume_names):
        """Hostnames and volume names that more than one record ever carried."""
        found = [name for name in hostnames if len(self.instances_named(name)) > 1]
        found += [name for name in volume_names if len(self.volumes_named(name)) > 1]
        return found


def api_requests(control, since=0):
    """The request log's ``/v1`` entries after sequence number ``since``."""
    return control.requests(since=since)["requests"]


def mutating(entries):
    """Requests that could change something (the token exchange changes nothing that matters)."""
    return [
        entry
        for entry in entries
        if entry["method"] in MUTATING_METHODS and not entry["path"].endswith("/oauth2/token")
    ]
