"""Ids and names that are really paths (``../ssh-keys``, ``../../_emulator/requests``, ``?a=b``,
``#x``): every option that reaches a URL path refuses them before any request, naming itself,
and a real resource next to the hostile value is left alone. The emulator's request log is the
witness: the refused runs made no request at all.
"""

import pytest
from cloudcompute_emulator.testing import run_emulator
from conftest import report
from module_runner import ModuleWorld

PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q inject@test"
HOSTILE_IDS = ["../ssh-keys", "../instances", "../../_emulator/requests", "..", ".", "x?a=b", "x#y", "a/b", "%2e%2e"]
HOSTILE_NAMES = ["../container-deployments", "..", "app?x=1", "app#x", "App", "a/b"]
REFUSED = []

# (module, option that reaches the path, the other arguments)
ID_OPTIONS = [
    ("ssh_key", "id", {"state": "absent"}),
    ("ssh_key_info", "id", {}),
    ("startup_script", "id", {"state": "absent"}),
    ("startup_script_info", "id", {}),
    ("instance", "id", {"state": "absent"}),
    ("instance_info", "id", {}),
    ("volume", "id", {"state": "absent"}),
    ("volume_info", "id", {}),
    ("instance_group", "id", {"state": "absent"}),
    ("instance_group_info", "id", {}),
    ("cluster_info", "id", {}),
]
NAME_OPTIONS = [
    ("container_deployment_info", "name", {}),
    ("job_deployment_info", "name", {}),
    ("container_deployment", "name", {"state": "absent"}),
    ("job_deployment", "name", {"state": "absent"}),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with run_emulator(profile="test", rate_limits={"enabled": False}) as emulator:
        world = ModuleWorld(emulator, str(tmp_path_factory.mktemp("tokens")))
        world.key = world.make("ssh_key", {"name": "bystander", "public_key": PUBLIC_KEY})
        yield world
    report(
        "path injection",
        "%d hostile ids and names refused before any request, naming the option: %s"
        % (len(REFUSED), ", ".join(sorted(set(REFUSED)))),
    )


def assert_refused_without_a_request(world, module, option, args, allowed=()):
    """Refused naming ``option``; no request but the ``allowed`` (method, path) reads."""
    result, requests = world.run(module, args)
    assert "traceback" not in result, result["traceback"]
    assert result.get("failed") and not result.get("changed"), result
    assert result["msg"].startswith((option + " ", option + ":")), result["msg"]
    sent = [(entry["method"], entry["path"]) for entry in requests if entry["path"] != "/v1/oauth2/token"]
    assert sent == list(allowed), f"{module} sent {sent!r}"
    REFUSED.append(f"{module}.{option}")


@pytest.mark.parametrize("module, option, args", ID_OPTIONS, ids=[case[0] for case in ID_OPTIONS])
def test_ids_that_are_paths_are_refused_before_any_request(world, module, option, args):
    for value in HOSTILE_IDS:
        assert_refused_without_a_request(world, module, option, dict(args, **{option: value}))
    # the resource the first issue deleted through "../ssh-keys" is still there
    assert [key["name"] for key in world.make("ssh_key_info", {})["ssh_keys"]] == ["bystander"]


@pytest.mark.parametrize("module, option, args", NAME_OPTIONS, ids=[case[0] for case in NAME_OPTIONS])
def test_deployment_names_that_are_paths_are_refused_before_any_request(world, module, option, args):
    for value in HOSTILE_NAMES:
        assert_refused_without_a_request(world, module, option, dict(args, **{option: value}))


def test_tag_and_availability_values_reach_the_path_as_one_segment(world):
    result, requests = world.run("tag", {"resource_type": "instance", "resource": "../instances", "tags": {"a": "b"}})
    assert "traceback" not in result and result.get("failed"), result
    assert all(entry["method"] == "GET" and entry["path"] == "/v1/instances" for entry in requests), requests
    assert_refused_without_a_request(world, "availability_info", "type", {"type": "../instance-types"})
    # the deployment is looked up first; the template never is
    assert_refused_without_a_request(
        world,
        "container_deployment",
        "template.id",
        {"name": "ok-app", "state": "present", "template": {"id": "../templates"}},
        allowed=[("GET", "/v1/container-deployments/ok-app")],
    )


def test_the_legitimate_id_is_the_one_request_made(world):
    result, requests = world.run("ssh_key", {"id": world.key["ssh_key"]["id"], "state": "absent"})
    assert result["changed"], result
    assert [(entry["method"], entry["path"]) for entry in requests if entry["path"] != "/v1/oauth2/token"] == [
        ("GET", "/v1/ssh-keys/" + world.key["ssh_key"]["id"]),
        ("DELETE", "/v1/ssh-keys/" + world.key["ssh_key"]["id"]),
    ]
