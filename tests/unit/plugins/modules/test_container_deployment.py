"""container_deployment's plan and prediction, against a scripted API."""

import copy
import threading
import time

import responses

from ansible_collections.cloudcompute.cloud.plugins.module_utils._locks import FileLock, create_lock_path
from ansible_collections.cloudcompute.cloud.plugins.modules.container_deployment import main

API_URL = "https://api.scripted.test/v1"  # the scripted API's (conftest)
PATH = "/container-deployments/app"
NOT_FOUND = {"code": "not_found", "message": "no container deployment app"}
RECORD = {
    "name": "app",
    "containers": [
        {
            "name": "api",
            "image": {"image": "nginx:1.27", "last_updated_at": "2026-11-01T10:00:00.000Z"},
            "exposed_port": 8000,
            "healthcheck": {"enabled": True, "port": 8000, "path": "/health"},
            "entrypoint_overrides": {"enabled": False, "entrypoint": [], "cmd": []},
            "env": [{"type": "plain", "name": "LOG_LEVEL", "value_or_reference_to_secret": "info"}],
            "volume_mounts": [],
        }
    ],
    "compute": {"name": "L40S", "size": 1},
    "scaling": {"min_replica_count": 1, "max_replica_count": 2},
    "container_registry_settings": {"is_private": False, "credentials": None},
    "is_spot": False,
    "endpoint_base_url": "https://containers.example.com/app",
    "created_at": "2026-11-01T10:00:00.000Z",
}
CONTAINERS = [{"name": "api", "image": "nginx:1.27", "env": [{"name": "LOG_LEVEL", "value": "info"}]}]
COMPUTE = {"name": "L40S", "size": 1}


def existing(api, *statuses):
    """The deployment as it is, and its status on each successive read."""
    api.answer(responses.GET, PATH, json=RECORD)
    for status in statuses:
        api.answer(responses.GET, PATH + "/status", json={"status": status})


def test_a_deployment_as_asked_is_its_two_reads_and_no_change(api, run_module):
    existing(api, "healthy")
    result = run_module(
        main, dict(name="app", containers=CONTAINERS, compute=COMPUTE, scaling={"max_replica_count": 2})
    )
    assert result["changed"] is False, result
    assert result["container_deployment"] == dict(RECORD, status="healthy")
    assert api.sent == [("GET", PATH), ("GET", PATH + "/status")]


def test_a_deployment_still_starting_is_waited_for_without_a_change(api, run_module):
    existing(api, "initializing", "healthy")
    result = run_module(main, dict(name="app", compute=COMPUTE))
    assert result["changed"] is False, result
    assert result["container_deployment"]["status"] == "healthy"
    assert api.sent == [("GET", PATH), ("GET", PATH + "/status"), ("GET", PATH + "/status")]


def test_check_mode_predicts_the_create_with_the_documented_defaults_and_sends_no_write(api, run_module):
    api.answer(responses.GET, PATH, json=NOT_FOUND, status=404)
    result = run_module(
        main,
        dict(name="app", containers=[{"image": "nginx:1.27"}], compute=COMPUTE, spot=True),
        check_mode=True,
        diff=True,
    )
    assert result["changed"] is True, result
    predicted = result["container_deployment"]
    assert predicted["status"] == "healthy"  # with wait, the run ends once it is healthy
    assert predicted["is_spot"] is True
    assert predicted["containers"] == [
        {
            "name": "container-1",
            "image": {"image": "nginx:1.27", "last_updated_at": None},
            "exposed_port": 8000,
            "healthcheck": {"enabled": True, "port": 8000, "path": "/health"},
            "entrypoint_overrides": {"enabled": False, "entrypoint": [], "cmd": []},
            "env": [],
            "volume_mounts": [],
        }
    ]
    assert result["diff"]["before"] == {}
    assert result["diff"]["after"]["name"] == "app"
    assert api.sent == [("GET", PATH)]


def test_a_create_sends_only_what_was_given_and_ends_with_the_status(api, run_module):
    api.answer(responses.GET, PATH, json=NOT_FOUND, status=404)
    api.answer(responses.POST, "/container-deployments", json=RECORD, status=201)
    api.answer(responses.GET, PATH + "/status", json={"status": "initializing"})
    result = run_module(main, dict(name="app", containers=CONTAINERS, compute=COMPUTE, wait=False))
    assert result["changed"] is True, result
    assert result["container_deployment"] == dict(RECORD, status="initializing")
    assert api.sent == [("GET", PATH), ("POST", "/container-deployments"), ("GET", PATH + "/status")]
    assert api.body(1) == {
        "name": "app",
        "compute": COMPUTE,
        "containers": [
            {
                "name": "api",
                "image": "nginx:1.27",
                "env": [{"type": "plain", "name": "LOG_LEVEL", "value_or_reference_to_secret": "info"}],
            }
        ],
    }


def test_check_mode_predicts_an_image_change_as_a_rollout_and_sends_no_write(api, run_module):
    existing(api, "healthy")
    result = run_module(
        main, dict(name="app", containers=[{"image": "nginx:1.28"}], wait=False), check_mode=True, diff=True
    )
    assert result["changed"] is True, result
    predicted = result["container_deployment"]
    assert predicted["status"] == "version_updating"
    assert predicted["containers"][0]["image"] == {"image": "nginx:1.28", "last_updated_at": None}
    assert predicted["containers"][0]["env"] == RECORD["containers"][0]["env"]  # left out: kept as it is
    assert result["diff"]["before"]["containers"][0]["image"] == "nginx:1.27"
    assert result["diff"]["after"]["containers"][0]["image"] == "nginx:1.28"
    assert api.sent == [("GET", PATH), ("GET", PATH + "/status")]


def test_an_update_patches_only_the_fields_that_differ_each_whole(api, run_module):
    existing(api, "healthy", "healthy")
    updated = dict(copy.deepcopy(RECORD), scaling={"min_replica_count": 0, "max_replica_count": 2})
    api.answer(responses.PATCH, PATH, json=updated)
    result = run_module(
        main, dict(name="app", containers=CONTAINERS, compute=COMPUTE, scaling={"min_replica_count": 0})
    )
    assert result["changed"] is True, result
    assert result["container_deployment"]["scaling"] == {"min_replica_count": 0, "max_replica_count": 2}
    assert api.sent == [("GET", PATH), ("GET", PATH + "/status"), ("PATCH", PATH), ("GET", PATH + "/status")]
    assert api.body(2) == {"scaling": {"min_replica_count": 0, "max_replica_count": 2}}


def test_pause(api, run_module):
    existing(api, "healthy", "paused")
    api.answer(responses.POST, PATH + "/pause", status=201)
    paused = run_module(main, dict(name="app", state="paused"), diff=True)
    assert paused["changed"] is True, paused
    assert paused["container_deployment"]["status"] == "paused"
    assert paused["diff"]["before"]["status"] == "healthy" and paused["diff"]["after"]["status"] == "paused"
    assert api.sent == [("GET", PATH), ("GET", PATH + "/status"), ("POST", PATH + "/pause"), ("GET", PATH + "/status")]


def test_a_paused_deployment_is_resumed(api, run_module):
    existing(api, "paused", "initializing")
    api.answer(responses.POST, PATH + "/resume", status=201)
    resumed = run_module(main, dict(name="app", wait=False))
    assert resumed["changed"] is True, resumed
    assert resumed["container_deployment"]["status"] == "initializing"
    assert api.sent == [("GET", PATH), ("GET", PATH + "/status"), ("POST", PATH + "/resume"), ("GET", PATH + "/status")]


def test_check_mode_predicts_a_restart_and_sends_no_write(api, run_module):
    existing(api, "healthy")
    result = run_module(main, dict(name="app", state="restarted", wait=False), check_mode=True)
    assert result["changed"] is True, result
    assert result["container_deployment"]["status"] == "initializing"
    assert api.sent == [("GET", PATH), ("GET", PATH + "/status")]


def test_delete(api, run_module):
    existing(api, "healthy")
    api.answer(responses.DELETE, PATH, status=204)
    result = run_module(main, dict(name="app", state="absent"), diff=True)
    assert result["changed"] is True, result
    assert result["container_deployment"] == {}
    assert result["diff"]["before"]["status"] == "healthy" and result["diff"]["after"] == {}
    # the scripted request_timeout (5 s) leaves the server-side wait no time: a hidden deployment is gone
    assert api.sent == [("GET", PATH), ("GET", PATH + "/status"), ("DELETE", PATH + "?timeout=0")]


def test_an_absent_deployment_is_one_read_and_no_change(api, run_module):
    api.answer(responses.GET, PATH, json=NOT_FOUND, status=404)
    result = run_module(main, dict(name="app", state="absent"))
    assert result["changed"] is False, result
    assert api.sent == [("GET", PATH)]


TEMPLATE = {
    "code": "vllm",
    "exposed_port": 8000,
    "healthcheck_path": "/health",
    "default_variant": "small",
    "variants": [{"id": "small", "image": "vllm/vllm-openai:0.6", "recommended_compute": {"name": "L40S", "size": 1}}],
    "features": [],
}


def test_check_mode_reads_the_template_to_predict_its_create(api, run_module):
    api.answer(responses.GET, PATH, json=NOT_FOUND, status=404)
    api.answer(responses.GET, "/container-deployment-templates/vllm", json=TEMPLATE)
    result = run_module(main, dict(name="app", template={"id": "vllm"}, wait=False), check_mode=True)
    assert result["changed"] is True, result
    assert result["container_deployment"]["compute"] == {"name": "L40S", "size": 1}
    assert result["container_deployment"]["containers"][0]["image"]["image"] == "vllm/vllm-openai:0.6"
    assert api.sent == [("GET", PATH), ("GET", "/container-deployment-templates/vllm")]


def test_a_create_from_a_template_does_not_read_it(api, run_module):
    api.answer(responses.GET, PATH, json=NOT_FOUND, status=404)
    api.answer(responses.POST, "/container-deployment-templates/vllm/deployments", json=RECORD, status=201)
    api.answer(responses.GET, PATH + "/status", json={"status": "initializing"})
    created = run_module(main, dict(name="app", template={"id": "vllm"}, wait=False))
    assert created["changed"] is True, created
    assert api.sent == [
        ("GET", PATH),
        ("POST", "/container-deployment-templates/vllm/deployments"),
        ("GET", PATH + "/status"),
    ]
    assert api.body(1) == {"name": "app"}


def test_bad_names_are_refused_before_any_request(api, run_module):
    bad_name = run_module(main, dict(name="My_App", state="absent"))
    assert bad_name["failed"] is True
    assert bad_name["msg"].startswith("name: 'My_App' is not a DNS label")
    bad_env = run_module(
        main, dict(name="app", containers=[{"image": "nginx", "env": [{"name": "1X", "value": "a"}]}], compute=COMPUTE)
    )
    assert bad_env["failed"] is True
    assert "containers[0].env: '1X' is not a variable name" in bad_env["msg"]
    assert api.sent == []


def test_the_wait_for_another_tasks_create_lock_is_bounded_by_the_task_budget(api, run_module, tmp_path):
    holder = FileLock(create_lock_path(str(tmp_path), API_URL, "scripted-client", "container_deployment", "app"))
    holder.acquire()
    # without a bound the task waits until the holder lets go (here after 20 s)
    threading.Timer(20, holder.release).start()
    api.answer(responses.GET, PATH, json=NOT_FOUND, status=404)
    started = time.monotonic()
    result = run_module(main, dict(name="app", compute=COMPUTE, wait_timeout=2, token_cache=str(tmp_path)))
    assert result.get("failed") and time.monotonic() - started < 10, result
    assert "another task on this machine has been creating the container deployment 'app'" in result["msg"]
    assert result["failure"]["code"] == "lock_timeout"
    assert api.sent == []
