"""Provide ansible-test's pip bootstrap script offline.

Every virtualenv ansible-test builds (sanity tests, ``--venv`` units and integration) starts by
running a get-pip script it downloads from a host this network cannot reach. ansible-test reads
``~/.ansible/test/cache/get_pip_<X_Y>.py`` instead when it exists, so we write that file: a
small script that installs pip from the pip wheel we fetch from PyPI, taking the same arguments.
Run it with the Python of the virtualenv that holds ansible-test.
"""

import pathlib
import re
import subprocess
import sys

import ansible_test

GET_PIP_TEMPLATE = '''\
"""Stand-in for get-pip.py written by tools/ansible_test_pip_bootstrap.py: installs pip from a wheel."""
import runpy
import sys

# get-pip.py accepts these; pip itself does not, and we install nothing but pip anyway.
arguments = [argument for argument in sys.argv[1:] if argument not in ("--no-setuptools", "--no-wheel")]
sys.path.insert(0, {wheel!r})
sys.argv = ["pip", "install", "--find-links", {wheel_dir!r}] + arguments
runpy.run_module("pip", run_name="__main__", alter_sys=True)
'''


def pinned_pip_version() -> str:
    source = pathlib.Path(ansible_test.__file__).parent / "_internal" / "python_requirements.py"
    match = re.search(r"pip='([0-9.]+)'", source.read_text())
    if not match:
        sys.exit(f"cannot find ansible-test's pinned pip version in {source}")
    return match.group(1)


def main() -> None:
    version = pinned_pip_version()
    cache = pathlib.Path.home() / ".ansible" / "test" / "cache"
    script = cache / f"get_pip_{version.replace('.', '_')}.py"
    wheel_dir = cache / "pip-wheels"
    wheel = wheel_dir / f"pip-{version}-py3-none-any.whl"
    if not wheel.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
             "--dest", str(wheel_dir), f"pip=={version}"],
            check=True,
        )
    script.write_text(GET_PIP_TEMPLATE.format(wheel=str(wheel), wheel_dir=str(wheel_dir)))
    print(f"ansible-test pip {version} bootstrap: {script}")


if __name__ == "__main__":
    main()
