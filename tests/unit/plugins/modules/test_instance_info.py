"""instance_info's reads and filters, against a scripted API."""

import re

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.instance_info import main

INSTANCE_ID = "3f6c1e2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
RUNNING = {
    "id": INSTANCE_ID,
    "hostname": "web-1",
    "status": "running",
    "location": "FIN-01",
    "instance_type": "CPU.4V.16G",
    "jupyter_token": "jupyter-secret-token",
    "tags": [{"id": "t1", "key": "owner", "value": "alice"}, {"id": "t2", "key": "batch", "value": "7"}],
}
OTHER = dict(
    RUNNING,
    id="4f6c1e2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b",
    hostname="web-2",
    location="FIN-02",
    jupyter_token="other-secret-token",
    tags=[],
)


def test_all_instances_is_one_read_with_the_tokens_masked(api, run_module):
    api.answer(responses.GET, "/instances", json=[RUNNING, OTHER])
    result = run_module(main, {})
    assert result["changed"] is False
    assert [instance["hostname"] for instance in result["instances"]] == ["web-1", "web-2"]
    assert {instance["jupyter_token"] for instance in result["instances"]} == {"********"}
    assert "jupyter-secret-token" not in str(result)
    assert api.sent == [("GET", "/instances")]


def test_status_and_tags_are_sent_to_the_api_and_applied_again(api, run_module):
    # An API that ignores the query still gives the right answer: the filters are applied again.
    api.answer(responses.GET, re.compile(r"/instances\?.*"), json=[RUNNING, OTHER])
    result = run_module(main, dict(status="running", tags={"Owner": "alice", "batch": None}))
    assert [instance["id"] for instance in result["instances"]] == [INSTANCE_ID]
    assert api.sent == [("GET", "/instances?status=running&tag=batch&tag=owner%3Dalice")]


def test_codes_ignore_case_and_hostnames_match_exactly(api, run_module):
    api.answer(responses.GET, "/instances", json=[RUNNING, OTHER])
    api.answer(responses.GET, "/instances", json=[RUNNING, OTHER])
    by_code = run_module(main, dict(location_code="fin-02", instance_type="cpu.4v.16g"))
    by_hostname = run_module(main, dict(hostname="WEB-1"))
    assert [instance["hostname"] for instance in by_code["instances"]] == ["web-2"]
    assert by_hostname["instances"] == []


def test_name_is_the_hostname(api, run_module):
    api.answer(responses.GET, "/instances", json=[RUNNING, OTHER])
    result = run_module(main, dict(name="web-2"))
    assert [instance["id"] for instance in result["instances"]] == [OTHER["id"]]


def test_by_id_reads_that_one_and_an_unknown_id_is_an_empty_list(api, run_module):
    api.answer(responses.GET, "/instances/" + INSTANCE_ID, json=RUNNING)
    api.answer(
        responses.GET,
        "/instances/" + OTHER["id"],
        json={"code": "not_found", "message": "no such instance"},
        status=404,
    )
    found = run_module(main, dict(id=INSTANCE_ID, return_jupyter_token=True))
    missing = run_module(main, dict(id=OTHER["id"]))
    assert found["instances"][0]["jupyter_token"] == "jupyter-secret-token"
    assert missing["changed"] is False and missing["instances"] == []
    assert api.sent == [("GET", "/instances/" + INSTANCE_ID), ("GET", "/instances/" + OTHER["id"])]


def test_an_api_error_fails_with_its_code_and_message(api, run_module):
    api.answer(responses.GET, "/instances", json={"code": "forbidden", "message": "not your project"}, status=403)
    result = run_module(main, {})
    assert result["failed"] is True
    assert result["failure"]["code"] == "forbidden"
    assert result["failure"]["message"] == "not your project"


def test_an_id_that_is_not_one_is_refused_before_any_request(api, run_module):
    result = run_module(main, dict(id="../volumes"))
    assert result["failed"] is True
    assert "id" in result["msg"]
    assert api.sent == []
