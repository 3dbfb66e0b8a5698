"""Fixtures shared by the suites.

The ``emulator`` and ``emulator_reset`` fixtures (a real emulator subprocess on a free loopback
port, and that emulator reset to a clean state) come from the emulator package's pytest plugin.

``collection_tarball`` and ``installed_collection`` are the collection as users get it: built by
``ansible-galaxy collection build`` from the checkout (tools/test.sh exports its path as
``REPO``) and installed from that tarball. ``ansible_env`` is an environment for ansible
commands that inherits nothing Ansible- or Cloud-Compute-specific from the test run. ``sshd``
(tests/local_sshd.py) answers SSH for the emulator's loopback instances.
"""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

# a local sshd standing in for the instances, for the suites that reach them over SSH
from local_sshd import sshd  # noqa: F401  pylint: disable=unused-import

BIN = pathlib.Path(sys.executable).parent

# Files a developer's checkout has beside the git-visible ones. The tarball must leave them out
# (galaxy.yml build_ignore); they are planted into the build source to prove it.
DEVELOPMENT_LEFTOVERS = (
    ".venv/bin/python",
    ".venv-floor/lib/site.py",
    ".tmp/demo/emulator.log",
    ".cache/anything",
    "dist/cloudcompute-cloud.tar.gz",
    "docs/site/index.html",
    "tests/output/junit/sanity.xml",
    "tests/integration/inventory",
    "bench/output/run.json",
    "changelogs/.plugin-cache.yaml",
)


@pytest.fixture
def control(emulator_reset):
    """The control API (``cloudcompute_emulator.control.EmulatorControl``) of a reset emulator."""
    yield emulator_reset.control
    emulator_reset.control.clear_faults()


def clean_environment(**extra):
    """os.environ without ANSIBLE_*, CLOUDCOMPUTE_* and PYTHONPATH, plus ``extra``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ANSIBLE_", "CLOUDCOMPUTE_")) and key != "PYTHONPATH"
    }
    env.update({key: str(value) for key, value in extra.items()})
    return env


@pytest.fixture(scope="session")
def ansible_env():
    """``ansible_env(**extra)``: a clean environment (see ``clean_environment``) for ansible commands."""
    return clean_environment


@pytest.fixture(scope="session")
def checkout():
    """The repository checkout (tools/test.sh exports it as REPO)."""
    repo = os.environ.get("REPO")
    if not repo or not (pathlib.Path(repo) / "galaxy.yml").is_file():
        pytest.fail("REPO must name the repository checkout; run the suite with tools/test.sh")
    return pathlib.Path(repo)


def git_visible_files(repo):
    """Paths (relative) git tracks or would track: what a clone plus local edits contain."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout
    return sorted({path for path in listing.decode().split("\0") if path and (repo / path).is_file()})


@pytest.fixture(scope="session")
def collection_source(checkout, tmp_path_factory):
    """A copy of the checkout's git-visible files plus typical development leftovers."""
    source = tmp_path_factory.mktemp("collection-source") / "cloud"
    for path in git_visible_files(checkout):
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(checkout / path, source / path)
    for path in DEVELOPMENT_LEFTOVERS:
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        (source / path).write_text("development leftover\n")
    return source


@pytest.fixture(scope="session")
def collection_tarball(collection_source, tmp_path_factory):
    """The collection tarball, built with ansible-galaxy from ``collection_source``."""
    output = tmp_path_factory.mktemp("collection-build")
    subprocess.run(
        [str(BIN / "ansible-galaxy"), "collection", "build", "--output-path", str(output), str(collection_source)],
        env=clean_environment(),
        capture_output=True,
        text=True,
        check=True,
    )
    (tarball,) = output.glob("cloudcompute-cloud-*.tar.gz")
    return tarball


@pytest.fixture(scope="session")
def installed_collection(collection_tarball, tmp_path_factory):
    """A collections directory with only the tarball installed in it (offline, no Galaxy)."""
    collections = tmp_path_factory.mktemp("installed") / "collections"
    # Only the target directory counts as a collections path: a copy installed in ~/.ansible by
    # anything else must not make ansible-galaxy answer "already installed".
    subprocess.run(
        [
            str(BIN / "ansible-galaxy"),
            "collection",
            "install",
            "--offline",
            "--force",
            "--collections-path",
            str(collections),
            str(collection_tarball),
        ],
        env=clean_environment(ANSIBLE_COLLECTIONS_PATH=collections),
        capture_output=True,
        text=True,
        check=True,
    )
    assert (collections / "ansible_collections" / "cloudcompute" / "cloud" / "MANIFEST.json").is_file()
    return collections
