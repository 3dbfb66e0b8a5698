"""tag's plan and prediction, against a scripted API."""

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.tag import main

INSTANCE_ID = "5a0d1e7e-1c55-4c4f-9e0f-2f0b0a3f6d12"
PROJECT = {"id": "7c1f0a2e-0d4b-4b1a-9a3e-1f2d3c4b5a69", "key": "project", "value": "llm"}
PINNED = {"id": "8e2d4c6a-1b3f-4a5e-9c7d-0f1e2d3c4b5a", "key": "pinned", "value": ""}
INSTANCE = {"id": INSTANCE_ID, "hostname": "trainer-1", "status": "running", "tags": [PROJECT, PINNED]}
TAGS_PATH = f"/instances/{INSTANCE_ID}/tags"


def test_tags_already_there_are_one_read_and_no_change(api, run_module):
    api.answer(responses.GET, "/instances", json=[INSTANCE])
    result = run_module(main, dict(resource_type="instance", resource="trainer-1", tags={"Project": "llm"}))
    assert result["changed"] is False
    # the tags as the option takes them, their ids apart
    assert result["tags"] == {"project": "llm", "pinned": ""}
    assert result["tag_ids"] == {"project": PROJECT["id"], "pinned": PINNED["id"]}
    assert result["resource_id"] == INSTANCE_ID
    assert api.sent == [("GET", "/instances")]


def test_check_mode_predicts_a_changed_value_and_sends_no_write(api, run_module):
    api.answer(responses.GET, "/instances/" + INSTANCE_ID, json=INSTANCE)
    result = run_module(
        main,
        dict(resource_type="instance", resource=INSTANCE_ID, tags={"project": "vision"}),
        check_mode=True,
        diff=True,
    )
    assert result["changed"] is True
    assert result["tags"] == {"pinned": "", "project": "vision"}
    assert result["tag_ids"] == {"pinned": PINNED["id"], "project": None}
    assert result["diff"] == {"before": {"project": "llm", "pinned": ""}, "after": {"project": "vision", "pinned": ""}}
    assert api.sent == [("GET", "/instances/" + INSTANCE_ID)]


def test_purge_removes_the_unlisted_tags_then_reads_the_result(api, run_module):
    api.answer(responses.GET, "/instances", json=[INSTANCE])
    api.answer(responses.DELETE, TAGS_PATH + "/" + PINNED["id"], status=204)
    api.answer(responses.GET, "/instances/" + INSTANCE_ID, json=dict(INSTANCE, tags=[PROJECT]))
    result = run_module(main, dict(resource_type="instance", resource="trainer-1", tags={"project": "llm"}, purge=True))
    assert result["changed"] is True, result
    assert result["tags"] == {"project": "llm"}
    assert api.sent == [
        ("GET", "/instances"),
        ("DELETE", TAGS_PATH + "/" + PINNED["id"]),
        ("GET", "/instances/" + INSTANCE_ID),
    ]


def test_state_absent_removes_a_key_whatever_its_value(api, run_module):
    api.answer(responses.GET, "/instances", json=[INSTANCE])
    api.answer(responses.DELETE, TAGS_PATH + "/" + PROJECT["id"], status=204)
    api.answer(responses.GET, "/instances/" + INSTANCE_ID, json=dict(INSTANCE, tags=[PINNED]))
    result = run_module(
        main, dict(resource_type="instance", resource="trainer-1", tags={"project": None}, state="absent")
    )
    assert result["changed"] is True, result
    assert result["tags"] == {"pinned": ""}


def test_an_eleventh_tag_is_refused_before_any_request(api, run_module):
    tags = dict(("key%d" % number, "value") for number in range(11))
    result = run_module(main, dict(resource_type="volume", resource="datasets", tags=tags))
    assert result["failed"] is True
    assert "at most 10 tags" in result["msg"]
    assert api.sent == []
