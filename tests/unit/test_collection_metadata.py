"""The collection's metadata agrees with its code."""

import json
import pathlib
import re
import subprocess
import sys

import yaml

from ansible_collections.cloudcompute.cloud.plugins.module_utils import _api

COLLECTION = pathlib.Path(__file__).resolve().parents[2]


def test_every_module_is_in_the_all_action_group():
    runtime = yaml.safe_load((COLLECTION / "meta" / "runtime.yml").read_text())
    modules = sorted(path.stem for path in (COLLECTION / "plugins" / "modules").glob("*.py"))
    assert modules, "no modules found"
    assert sorted(runtime["action_groups"]["all"]) == modules


def test_user_agent_carries_the_galaxy_version():
    galaxy = yaml.safe_load((COLLECTION / "galaxy.yml").read_text())
    assert _api.COLLECTION_VERSION == galaxy["version"]
    assert _api.USER_AGENT == "cloudcompute.cloud/" + galaxy["version"]


def test_every_module_documents_the_common_options_through_the_fragment():
    for path in (COLLECTION / "plugins" / "modules").glob("*.py"):
        source = path.read_text()
        assert "cloudcompute.cloud.common" in source, path.name
        # built here, or by a shared builder of info modules (list_info, priced_catalog_info, run_info)
        # or by the one shared reader of the deployment info twins
        assert re.search(r"CloudComputeModule\(|(list|priced_catalog|run)_info\(|exit_deployment_info\(", source), (
            path.name
        )


def test_ansible_doc_shows_every_module_in_the_all_action_group():
    # What a user reads: ansible-doc of the installed collection, on this test run's ansible-core.
    modules = sorted(path.stem for path in (COLLECTION / "plugins" / "modules").glob("*.py"))
    ansible_doc = pathlib.Path(sys.executable).parent / "ansible-doc"
    completed = subprocess.run(
        [str(ansible_doc), "--json", *(f"cloudcompute.cloud.{module}" for module in modules)],
        capture_output=True,
        text=True,
        check=True,
    )
    docs = json.loads(completed.stdout)
    membership = {
        name.rsplit(".", 1)[1]: doc["doc"]["attributes"]["action_group"]["membership"] for name, doc in docs.items()
    }
    assert membership == {module: ["cloudcompute.cloud.all"] for module in modules}
