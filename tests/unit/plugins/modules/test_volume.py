"""volume's plan and prediction, against a scripted API."""

import re

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.volume import main

VOLUME_ID = "3f5b2a8e-7c1d-4e59-9a0b-6d2c8e1f4a70"
CLONE_ID = "4f5b2a8e-7c1d-4e59-9a0b-6d2c8e1f4a71"
INSTANCE_ID = "5a0d1e7e-1c55-4c4f-9e0f-2f0b0a3f6d12"
VOLUME = {
    "id": VOLUME_ID,
    "name": "datasets",
    "status": "detached",
    "size": 500,
    "type": "NVMe",
    "location": "FIN-01",
    "is_os_volume": False,
    "instance_id": None,
    "instances": [],
    "tags": [],
    "base_hourly_cost": 0.136986,
    "created_at": "2026-11-01T10:00:00Z",
}
INSTANCE = {
    "id": INSTANCE_ID,
    "hostname": "trainer-1",
    "status": "offline",
    "location": "FIN-01",
    "ip": "10.0.0.5",
    "instance_type": "CPU.4V.16G",
    "os_volume_id": None,
}
ATTACHED = dict(
    VOLUME,
    status="attached",
    instance_id=INSTANCE_ID,
    instances=[
        dict((key, INSTANCE[key]) for key in ("id", "hostname", "status", "ip", "instance_type", "os_volume_id"))
    ],
)
# 0.2 per GB and month: 500 GB cost 0.136986 an hour, 1000 GB 0.273973
VOLUME_TYPES = [{"type": "NVMe", "price": {"price_per_month_per_gb": 0.2}}]
DATASETS = dict(name="datasets", location_code="FIN-01")


def writes(api):
    return [(method, path) for method, path in api.sent if method != "GET"]


def test_a_volume_as_asked_is_one_read_and_no_change(api, run_module):
    api.answer(responses.GET, "/volumes", json=[VOLUME])
    result = run_module(main, dict(DATASETS, size=500, type="NVMe"))
    assert result["changed"] is False
    assert result["volume"]["id"] == VOLUME_ID
    assert result["cost"]["price_per_hour"] == 0.136986
    assert api.sent == [("GET", "/volumes")]


def test_check_mode_predicts_a_resize_and_its_price_and_sends_no_write(api, run_module):
    api.answer(responses.GET, "/volumes", json=[VOLUME])
    api.answer(responses.GET, "/volume-types", json=VOLUME_TYPES)
    result = run_module(main, dict(DATASETS, size=1000), check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["volume"]["size"] == 1000
    assert "base_hourly_cost" not in result["volume"]
    assert result["cost"]["price_per_hour"] == 0.273973
    assert (result["diff"]["before"]["size"], result["diff"]["after"]["size"]) == (500, 1000)
    assert writes(api) == []


def test_a_resize_is_one_action_then_one_read(api, run_module):
    api.answer(responses.GET, "/volumes", json=[VOLUME])
    api.answer(responses.GET, "/volume-types", json=VOLUME_TYPES)
    api.answer(responses.PUT, "/volumes", status=202)
    api.answer(responses.GET, "/volumes/" + VOLUME_ID, json=dict(VOLUME, size=1000, base_hourly_cost=0.273973))
    result = run_module(main, dict(DATASETS, size=1000))
    assert result["changed"] is True, result
    assert result["volume"]["size"] == 1000
    assert api.sent == [
        ("GET", "/volumes"),
        ("GET", "/volume-types"),
        ("PUT", "/volumes"),
        ("GET", "/volumes/" + VOLUME_ID),
    ]
    assert api.body(2) == {"action": "resize", "id": VOLUME_ID, "size": 1000}


def test_a_shrink_is_refused_before_any_change(api, run_module):
    api.answer(responses.GET, "/volumes", json=[VOLUME])
    result = run_module(main, dict(DATASETS, size=100))
    assert result["failed"] is True
    assert "cannot shrink" in result["msg"]
    assert api.sent == [("GET", "/volumes")]


def test_attaching_to_a_stopped_instance_waits_for_it_then_reads_back(api, run_module):
    api.answer(responses.GET, "/volumes", json=[VOLUME])
    api.answer(responses.GET, "/instances", json=[INSTANCE])
    api.answer(responses.PUT, "/volumes", status=202)
    api.answer(responses.GET, "/volumes/" + VOLUME_ID, json=ATTACHED)
    result = run_module(main, dict(DATASETS, instances=["trainer-1"]), diff=True)
    assert result["changed"] is True, result
    assert result["volume"]["instance_id"] == INSTANCE_ID
    assert result["diff"]["after"]["instance_ids"] == [INSTANCE_ID]
    assert writes(api) == [("PUT", "/volumes")]
    assert api.body(2) == {"action": "attach", "id": VOLUME_ID, "instance_ids": [INSTANCE_ID]}


def test_check_mode_predicts_the_attachment(api, run_module):
    api.answer(responses.GET, "/volumes", json=[VOLUME])
    api.answer(responses.GET, "/instances", json=[INSTANCE])
    result = run_module(main, dict(DATASETS, instances=[INSTANCE_ID]), check_mode=True)
    assert result["changed"] is True
    assert result["volume"]["status"] == "attached"
    assert result["volume"]["instances"] == ATTACHED["instances"]
    assert writes(api) == []


def test_attaching_to_a_running_instance_is_refused_before_any_change(api, run_module):
    api.answer(responses.GET, "/volumes", json=[VOLUME])
    api.answer(responses.GET, "/instances", json=[dict(INSTANCE, status="running")])
    result = run_module(main, dict(DATASETS, instances=["trainer-1"]))
    assert result["failed"] is True
    assert "must be shut down" in result["msg"] and "trainer-1" in result["msg"]
    assert writes(api) == []


def test_an_empty_instance_list_detaches_without_waiting_when_told_not_to(api, run_module):
    api.answer(responses.GET, "/volumes", json=[ATTACHED])
    api.answer(responses.PUT, "/volumes", status=202)
    api.answer(responses.GET, "/volumes/" + VOLUME_ID, json=VOLUME)
    result = run_module(main, dict(DATASETS, instances=[], wait=False))
    assert result["changed"] is True, result
    assert result["volume"]["instances"] == []
    # the attached instance was known from the volume: no instance list was read
    assert api.sent == [("GET", "/volumes"), ("PUT", "/volumes"), ("GET", "/volumes/" + VOLUME_ID)]
    assert api.body(1) == {"action": "detach", "id": VOLUME_ID, "instance_ids": [INSTANCE_ID]}


def test_moving_to_another_instance_waits_for_the_detach_before_the_attach(api, run_module):
    other = dict(INSTANCE, id="6b1e2f8f-2d66-4d5a-8f1a-3a1c1b4a7e23", hostname="trainer-2")
    moved = dict(ATTACHED, instance_id=other["id"], instances=[dict(ATTACHED["instances"][0], **other)])
    api.answer(responses.GET, "/volumes", json=[ATTACHED])
    api.answer(responses.GET, "/instances", json=[INSTANCE, other])
    api.answer(responses.PUT, "/volumes", status=202)
    # the detach shows on the second read; the last read is the one after the attach
    for volume in (ATTACHED, VOLUME, moved):
        api.answer(responses.GET, "/volumes/" + VOLUME_ID, json=volume)
    result = run_module(main, dict(DATASETS, instances=["trainer-2"], wait=False))
    assert result["changed"] is True, result
    assert result["volume"]["instance_id"] == other["id"]
    assert writes(api) == [("PUT", "/volumes"), ("PUT", "/volumes")]
    assert [api.body(index)["action"] for index in (2, 5)] == ["detach", "attach"]
    assert api.sent[3:5] == [("GET", "/volumes/" + VOLUME_ID)] * 2


def test_state_absent_moves_the_volume_to_the_trash_and_waits_until_it_is_there(api, run_module):
    api.answer(responses.GET, "/volumes", json=[VOLUME])
    api.answer(responses.DELETE, "/volumes/" + VOLUME_ID, status=202)
    api.answer(
        responses.GET, "/volumes/" + VOLUME_ID, json=dict(VOLUME, status="deleted", is_permanently_deleted=False)
    )
    result = run_module(main, dict(DATASETS, state="absent"))
    assert result["changed"] is True, result
    assert result["volume"] == {}
    assert result["cost"]["price_per_hour"] == 0
    assert api.sent == [("GET", "/volumes"), ("DELETE", "/volumes/" + VOLUME_ID), ("GET", "/volumes/" + VOLUME_ID)]
    assert api.body(1) == {"is_permanent": False}


def test_a_volume_in_the_trash_is_already_absent(api, run_module):
    api.answer(
        responses.GET, "/volumes/" + VOLUME_ID, json=dict(VOLUME, status="deleted", is_permanently_deleted=False)
    )
    result = run_module(main, dict(id=VOLUME_ID, state="absent"))
    assert result["changed"] is False
    assert result["volume"] == {}
    assert api.sent == [("GET", "/volumes/" + VOLUME_ID)]


def test_a_clone_is_priced_copied_and_waited_for(api, run_module):
    clone = dict(VOLUME, id=CLONE_ID, name="datasets-ice", location="ICE-01", created_at="2026-11-02T10:00:00Z")
    api.answer(responses.GET, "/volumes", json=[VOLUME])
    api.answer(responses.GET, "/volume-types", json=VOLUME_TYPES)
    api.answer(responses.PUT, "/volumes", json=CLONE_ID, status=202)
    api.answer(responses.GET, "/volumes", json=[VOLUME, clone])
    api.answer(responses.GET, "/volumes/" + CLONE_ID, json=clone)
    result = run_module(main, dict(name="datasets-ice", clone_from="datasets", location_code="ICE-01"))
    assert result["changed"] is True, result
    assert result["volume"]["id"] == CLONE_ID
    assert writes(api) == [("PUT", "/volumes")]
    assert api.body(2) == {"action": "clone", "id": VOLUME_ID, "name": "datasets-ice", "location_code": "ICE-01"}


def test_check_mode_predicts_a_clone_grown_on_the_way(api, run_module):
    api.answer(responses.GET, "/volumes", json=[VOLUME])
    api.answer(responses.GET, "/volume-types", json=VOLUME_TYPES)
    result = run_module(main, dict(name="datasets-big", clone_from=VOLUME_ID, size=1000), check_mode=True)
    assert result["changed"] is True
    assert result["volume"]["id"] is None
    assert (result["volume"]["name"], result["volume"]["size"], result["volume"]["location"]) == (
        "datasets-big",
        1000,
        "FIN-01",
    )
    assert result["cost"]["price_per_hour"] == 0.273973
    assert writes(api) == []


def test_a_create_sends_its_tags_with_the_create_request(api, run_module):
    api.answer(responses.GET, "/volumes", json=[])
    api.answer(responses.GET, "/volume-types", json=VOLUME_TYPES)
    api.answer(responses.POST, "/volumes", json=VOLUME_ID, status=202)
    api.answer(responses.GET, "/volumes", json=[VOLUME])
    api.answer(
        responses.GET,
        re.compile("/volumes/" + VOLUME_ID),
        json=dict(VOLUME, tags=[{"id": "t1", "key": "team", "value": "ml"}]),
    )
    result = run_module(main, dict(DATASETS, size=500, type="NVMe", tags={"team": "ml"}))
    assert result["changed"] is True, result
    assert writes(api) == [("POST", "/volumes")]
    assert api.body(2) == {
        "name": "datasets",
        "size": 500,
        "type": "NVMe",
        "location_code": "FIN-01",
        "tags": [{"key": "team", "value": "ml"}],
    }


def test_a_size_below_one_gb_is_refused_before_any_request(api, run_module):
    result = run_module(main, dict(DATASETS, size=0))
    assert result["failed"] is True
    assert "at least 1 GB" in result["msg"]
    assert api.sent == []
