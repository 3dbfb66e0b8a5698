"""The sources find the collection when ansible-rulebook runs them from their file (runpy, no
collection on sys.path), also through a collections path that links to a checkout."""

import os
import pathlib
import subprocess
import sys

import pytest

SOURCES = ("audit_log", "instances")


@pytest.mark.parametrize("source", SOURCES)
def test_a_source_reached_through_a_link_imports_the_collection(tmp_path, source):
    checkout = os.environ.get("REPO")
    if not checkout:
        pytest.fail("REPO must name the repository checkout; run the suite with tools/test.sh")
    namespace = tmp_path / "collections" / "ansible_collections" / "cloudcompute"
    namespace.mkdir(parents=True)
    (namespace / "cloud").symlink_to(checkout)  # a development checkout, outside any ansible_collections tree
    path = namespace / "cloud" / "extensions" / "eda" / "plugins" / "event_source" / f"{source}.py"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    loaded = subprocess.run(
        [sys.executable, "-c", "import runpy, sys; runpy.run_path(sys.argv[1]); print('loaded')", str(path)],
        cwd=pathlib.Path(checkout).parent,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert loaded.stdout.strip() == "loaded", loaded.stderr
