"""What every benchmark shares: this checkout's emulator, the collection where Ansible finds it,
the environment of the ansible commands a benchmark times, and a few measures.

A benchmark script imports it after putting ``bench/`` on ``sys.path``:

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import _common
"""

import os
import platform
import shutil
import subprocess
import sys
import time

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EMULATOR_SOURCE = os.path.join(REPOSITORY, "emulator", "src")

# Measure this checkout's emulator, whichever emulator the virtualenv has installed: the
# emulator subprocess inherits PYTHONPATH, and this process imports its helpers from there too.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (EMULATOR_SOURCE, os.environ.get("PYTHONPATH"))))
sys.path.insert(0, EMULATOR_SOURCE)

from cloudcompute_emulator.testing import run_emulator  # noqa: E402  pylint: disable=wrong-import-position

__all__ = ["run_emulator"]

BIN = os.path.dirname(sys.executable)


PRODUCTION_WINDOW = 60


def production_rate_limits(window, quota_factor=1):
    """The production rate limits (the emulator's defaults: spec section 8), every quota scaled
    to a window of ``window`` seconds (times window / 60, so each allows the production rate) and
    multiplied by ``quota_factor``."""
    from cloudcompute_emulator.settings import RateLimitSettings  # pylint: disable=import-outside-toplevel

    production = RateLimitSettings()
    assert production.window_seconds == PRODUCTION_WINDOW

    def scale(quota):
        return max(1, quota * window * quota_factor // PRODUCTION_WINDOW)

    return {"enabled": True, "window_seconds": window, "project_quota": scale(production.project_quota),
            "endpoint_quota": scale(production.endpoint_quota),
            "overrides": {route: scale(quota) for route, quota in production.overrides.items()}}


def timing_scale(window):
    """The factor of every step of the ``realistic`` timing profile that keeps production's ratio
    of waiting to a rate-limit window of ``window`` seconds: the quotas' own (window / 60)."""
    return window / PRODUCTION_WINDOW


def collections_path(workdir):
    """A collections directory in ``workdir`` where ``cloudcompute.cloud`` is this checkout
    (a symlink: ansible-playbook and ansible-inventory accept it, unlike ansible-test)."""
    collections = os.path.join(workdir, "collections")
    shutil.rmtree(collections, ignore_errors=True)  # from an earlier run in the same directory
    namespace = os.path.join(collections, "ansible_collections", "cloudcompute")
    os.makedirs(namespace)
    os.symlink(REPOSITORY, os.path.join(namespace, "cloud"))
    return collections


def ansible_environment(emulator, workdir, **extra):
    """The environment of an ansible command run against ``emulator``: the collection found in
    ``workdir``, the emulator's credentials, a token cache of the benchmark's own, and modules run
    by this Python (so no interpreter discovery is timed)."""
    return dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=collections_path(workdir),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
        ANSIBLE_LOCALHOST_WARNING="0",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="0",
        CLOUDCOMPUTE_API_URL=emulator.api_url,
        CLOUDCOMPUTE_CLIENT_ID=emulator.client_id,
        CLOUDCOMPUTE_CLIENT_SECRET=emulator.client_secret,
        CLOUDCOMPUTE_TOKEN_CACHE=os.path.join(workdir, "tokens"),
        **extra,
    )


def run_playbook(playbook, environment, *arguments, emulator=None, check=True):
    """Run ``ansible-playbook``; SystemExit with its output when it fails, unless ``check`` is
    false (then ``returncode`` tells). Returns its ``wall`` seconds, its ``busy`` seconds (CPU
    time of ansible-playbook and its modules, plus that of ``emulator`` meanwhile: the wall time
    of an otherwise idle machine, where client and emulator take turns; far less disturbed by
    other load than the wall time), its ``output`` and its ``returncode``."""
    command = [os.path.join(BIN, "ansible-playbook"), playbook, "-i", "localhost,", "-c", "local"] + list(arguments)
    before, emulator_before = os.times(), cpu_seconds(emulator.process.pid) if emulator else 0.0
    started = time.perf_counter()
    result = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after, emulator_after = os.times(), cpu_seconds(emulator.process.pid) if emulator else 0.0
    if check and result.returncode != 0:
        raise SystemExit("ansible-playbook %s failed:\n%s\n%s" % (playbook, result.stdout[-20000:], result.stderr[-5000:]))
    client = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return {"wall": wall, "busy": client + emulator_after - emulator_before, "output": result.stdout,
            "returncode": result.returncode}


def cpu_seconds(pid):
    """CPU seconds a process has used (all its threads), from /proc."""
    with open("/proc/%d/stat" % pid) as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def api_calls(emulator):
    """The ``/v1`` requests logged since the last call, and clear the log."""
    log = emulator.control.requests()["requests"]
    emulator.control.clear_requests()
    return log


def is_token_exchange(entry):
    return entry["path"].endswith("/oauth2/token")


def load_line():
    return "load average %.2f %.2f %.2f on %d CPUs" % (os.getloadavg() + (os.cpu_count(),))


def machine():
    """The machine and versions a result was measured on, for bench/results.md."""
    with open("/proc/meminfo") as handle:
        memory_kb = int(handle.readline().split()[1])
    try:
        from ansible.release import __version__ as ansible_version  # pylint: disable=import-outside-toplevel
    except ImportError:
        ansible_version = "not installed"
    model = ""
    try:
        with open("/proc/cpuinfo") as handle:
            model = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), "")
    except OSError:
        pass
    return {
        "cpus": "%d (%s)" % (os.cpu_count(), model or platform.machine()),
        "memory": "%.1f GiB" % (memory_kb / 1024 / 1024),
        "system": "%s %s" % (platform.system(), platform.release()),
        "python": platform.python_version(),
        "ansible-core": ansible_version,
    }
