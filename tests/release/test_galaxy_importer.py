"""Galaxy's own import checks (galaxy-importer, from PyPI) on the built tarball: no error, no warning.

galaxy-importer logs every finding as a ``WARNING:`` or ``ERROR:`` line (ansible-lint's findings,
ansible-doc failures, missing changelog or tags, ignore files, ...), and writes what Galaxy
would show (``importer_result.json``). Its configuration is ``galaxy-importer.cfg`` beside this
file.
"""

import json
import os
import pathlib
import subprocess
import sys

import yaml

BIN = pathlib.Path(sys.executable).parent
CONFIG = pathlib.Path(__file__).with_name("galaxy-importer.cfg")


def test_galaxy_importer_accepts_the_tarball(collection_tarball, collection_source, ansible_env, tmp_path):
    env = ansible_env(
        GALAXY_IMPORTER_CONFIG=CONFIG,
        GALAXY_IMPORTER_ANSIBLE_LOCAL_TMP=tmp_path / "ansible-tmp",
        # the ansible-lint it runs resolves modules in ANSIBLE_HOME's collections first: not a
        # copy of the collection some other run left in ~/.ansible
        ANSIBLE_HOME=tmp_path / "ansible-home",
        PATH="{}{}{}".format(BIN, os.pathsep, os.environ["PATH"]),
    )
    result = subprocess.run(
        [sys.executable, "-m", "galaxy_importer.main", str(collection_tarball)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = result.stdout + result.stderr
    print(output)  # the importer's log, shown with -s or on failure
    assert result.returncode == 0, output
    findings = [line for line in output.splitlines() if line.startswith(("WARNING", "ERROR", "CRITICAL"))]
    assert not findings, "\n".join(findings)
    assert "Importer processing completed successfully" in output

    imported = json.loads((tmp_path / "importer_result.json").read_text())
    runtime = yaml.safe_load((collection_source / "meta" / "runtime.yml").read_text())
    assert imported["requires_ansible"] == runtime["requires_ansible"] == ">=2.16.0"
    contents = {(item["content_type"], item["name"]) for item in imported["contents"]}
    modules = {name for kind, name in contents if kind == "module"}
    assert modules == set(runtime["action_groups"]["all"])
    assert ("inventory", "cloudcompute") in contents
    # ansible-doc found every plugin's documentation
    documented = {
        (item["content_type"], item["content_name"])
        for item in imported["docs_blob"]["contents"]
        if item["doc_strings"]
    }
    assert {("module", name) for name in modules} | {("inventory", "cloudcompute")} <= documented
    assert imported["docs_blob"]["collection_readme"]["html"]
