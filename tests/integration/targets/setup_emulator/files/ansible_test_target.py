"""How ``ansible-test integration <target>`` runs a target: against an emulator of its own.

ansible-test runs a target's ``runme.sh`` (which calls this script) from the target's directory,
with an environment of its own that carries no Cloud Compute settings. This script starts an
emulator on a free loopback port with the test timing profile, runs the target with
ansible-playbook exactly as the pytest runner does (tests/integration/test_targets.py: the
emulator's API URL and credentials in the CLOUDCOMPUTE_* variables, ``emulator_url`` and
``resource_prefix`` as extra variables), passes on ansible-test's arguments (``-v``), and stops
the emulator when the playbook ends, whatever its result.

It needs a Python with the emulator installed (``cloudcompute-emulator``), which is why
ansible-test runs with ``--local`` from the development virtualenv (tools/integration_target.sh).
"""

import pathlib
import signal
import subprocess
import sys
import tempfile

try:
    from cloudcompute_emulator.pytest_plugin import DEFAULT_SETTINGS
    from cloudcompute_emulator.testing import run_emulator
except ImportError as error:
    sys.exit(
        f"{error}: run ansible-test with --local from the development virtualenv, where the emulator is installed "
        "(tools/integration_target.sh does)"
    )

# tests/integration, where the pytest runner lives (the setup target's aliases make ansible-test
# copy it into its working tree)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from test_targets import target_command  # noqa: E402  pylint: disable=wrong-import-position


def main():
    # stopped with SIGTERM (a cancelled CI job, a timeout), stop the emulator too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    target = pathlib.Path.cwd().name
    with tempfile.TemporaryDirectory(prefix=f"ansible-test-{target}-") as workdir:
        with run_emulator(**DEFAULT_SETTINGS) as emulator:
            command, env = target_command(target, emulator, pathlib.Path(workdir))
            return subprocess.run(command + sys.argv[1:], env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
