"""Audit log (events, filters, paging, export) and charging (balance, 402)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
import requests
from conftest import ApiClient, assert_error


def _types(page: dict) -> list[str]:
    return [event["type"] for event in page["data"]]


def test_every_mutation_records_an_event(api: ApiClient, settle) -> None:
    key_id = api.ssh_key()
    script_id = api.ok("POST", "/scripts", 201, json={"name": "s", "script": "x"}).text
    instance_id = api.deploy(ssh_key_ids=[key_id])
    settle()
    api.action(instance_id, "shutdown")
    api.ok("POST", f"/instances/{instance_id}/tags", 201, json={"key": "a"})
    api.ok("DELETE", f"/scripts/{script_id}")
    page = api.ok("GET", "/audit/log", params={"page_size": 100}).json()
    types = _types(page)
    assert types[:4] == [
        "com.service.api.public-api.startup_script.delete.v1",
        "com.service.api.public-api.compute.update.v1",
        "com.service.api.public-api.compute.shutdown.v1",
        "com.service.api.public-api.volume.create.v1",  # the OS volume, created with the instance
    ]
    assert "com.service.api.public-api.compute.create.v1" in types
    assert "com.service.api.public-api.ssh_key.create.v1" in types
    assert "com.service.api.public-api.cloud_api_credential.authenticate.v1" in types
    create = next(event for event in page["data"] if event["type"].endswith("compute.create.v1"))
    assert create["specversion"] == "1.0" and create["subject"] == instance_id
    assert create["source"].startswith("/projects/") and create["time"].endswith("Z")
    data = create["data"]
    assert data["location_code"] == "FIN-01" and data["request_origin"] == "api" and data["actor_id"]
    assert data["compute"]["id"] == instance_id and data["compute"]["ssh_key_ids"] == [key_id]
    assert "cursor" not in page
    # reads record nothing
    before = len(api.ok("GET", "/audit/log", params={"page_size": 100}).json()["data"])
    api.ok("GET", "/instances")
    assert len(api.ok("GET", "/audit/log", params={"page_size": 100}).json()["data"]) == before


def test_filters_and_cursor_paging(api: ApiClient, control) -> None:
    ids = []
    for index in range(25):
        ids.append(api.ssh_key(f"k{index}"))
        control.advance_clock(60)
    first = api.ok("GET", "/audit/log", params={"object_type": "ssh_key"}).json()
    assert len(first["data"]) == 20 and first["cursor"]
    assert [event["subject"] for event in first["data"]] == list(reversed(ids))[:20]
    second = api.ok("GET", "/audit/log", params={"object_type": "ssh_key", "cursor": first["cursor"]}).json()
    assert [event["subject"] for event in second["data"]] == list(reversed(ids))[20:] and "cursor" not in second
    small = api.ok("GET", "/audit/log", params={"action": "create", "page_size": 2}).json()
    assert len(small["data"]) == 2 and all(".create." in event["type"] for event in small["data"])
    middle = first["data"][10]["time"]
    newer = api.ok("GET", "/audit/log", params={"object_type": "ssh_key", "start_date": middle, "page_size": 100}).json()
    assert len(newer["data"]) == 11
    older = api.ok("GET", "/audit/log", params={"object_type": "ssh_key", "end_date": middle, "page_size": 100}).json()
    assert len(older["data"]) == 15
    assert api.ok("GET", "/audit/log", params={"object_type": "volume"}).json()["data"] == []
    assert_error(api.get("/audit/log", params={"cursor": "garbage!"}), 400, "invalid_request", "cursor")
    assert_error(api.get("/audit/log", params={"page_size": 101}), 400, "invalid_request", "page_size")
    assert_error(api.get("/audit/log", params={"start_date": "yesterday"}), 400, "invalid_request", "start_date")


def test_download(api: ApiClient, control, login) -> None:
    api.ssh_key("a")
    api.ok("POST", "/scripts", 201, json={"name": "s", "script": "x"})
    export = api.ok("POST", "/audit/log/download", json={"object_type": "ssh_key"}).json()
    assert export["url"].startswith(api.api_url.removesuffix("/v1") + "/_emulator/downloads/")
    assert export["expires_at"].endswith("Z")
    events = requests.get(export["url"], timeout=5).json()  # pre-signed: no token
    assert [event["type"] for event in events] == ["com.service.api.public-api.ssh_key.create.v1"]
    everything = requests.get(api.ok("POST", "/audit/log/download").json()["url"], timeout=5).json()
    assert len(everything) >= 3
    now = datetime.now(timezone.utc)
    too_old = (now - timedelta(days=91)).isoformat()
    assert_error(api.post("/audit/log/download", json={"start_date": too_old}), 400, "invalid_request", "90 days")
    assert_error(api.post("/audit/log/download", json={"start_date": now.isoformat(), "end_date": (now - timedelta(days=1)).isoformat()}),
                 400, "invalid_request", "end_date")
    control.advance_clock(16 * 60)
    assert_error(requests.get(export["url"], timeout=5), 403, "forbidden_action", "expired")


def test_balance_is_charged_by_the_hour(api: ApiClient, control, settle, login) -> None:
    assert api.ok("GET", "/balance").json() == {"amount": 10000.0, "currency": "usd"}
    api.ssh_key()
    instance_id = api.deploy(instance_type="1H100.80S.30V", image="ubuntu-24.04", os_volume={"name": "os", "size": 730})
    control.advance_clock(3600)
    api = login()
    # one hour of the instance (2.29) and of its 730 GB NVMe OS volume (730 * 0.2 / 730 = 0.2)
    assert api.ok("GET", "/balance").json()["amount"] == pytest.approx(10000 - 2.29 - 0.2, abs=0.01)
    api.action(instance_id, "shutdown", expected=202)
    control.advance_clock(3600)
    api = login()
    # shut down: still charged
    assert api.ok("GET", "/balance").json()["amount"] == pytest.approx(10000 - 2 * 2.49, abs=0.01)
    api.action(instance_id, "delete", volume_ids=[], expected=202)
    control.advance_clock(3600)
    api = login()
    # deleted: the instance stops; the kept OS volume still costs 0.2 per hour
    assert api.ok("GET", "/balance").json()["amount"] == pytest.approx(10000 - 2 * 2.49 - 0.2, abs=0.01)


def test_settings_balance_resets_every_project(api: ApiClient, control) -> None:
    control.update_settings(balance=-5)
    assert api.ok("GET", "/balance").json()["amount"] == -5
    api.ssh_key()
    assert_error(api.post("/instances", json={"hostname": "h", "image": "ubuntu-24.04", "instance_type": "CPU.4V.16G",
                                              "location_code": "FIN-01"}), 402, "insufficient_funds")


def test_eviction_records_system_events(api: ApiClient, settle, control) -> None:
    """What the service does by itself is in the audit log too, without an actor."""
    api.ssh_key()
    instance_id = api.deploy(is_spot=True, volumes=[{"name": "keep", "size": 1, "type": "NVMe"}])
    settle()
    control.evict(instance_id)
    settle()
    events = api.ok("GET", "/audit/log", params={"page_size": 5}).json()["data"]
    system = [event for event in events if event["data"]["request_origin"] == "system"]
    assert [event["type"].split(".")[-3:-1] for event in system] == [
        ["compute", "delete_complete"], ["compute", "delete"], ["volume", "detach_complete"], ["volume", "detach_complete"],
    ]
    assert {event["subject"] for event in system[:2]} == {instance_id}
    assert all(event["data"]["actor_id"] is None for event in system)
    assert system[1]["data"]["compute"]["status"] == "discontinued"
    assert "keep" in {event["data"]["volume"]["name"] for event in system[2:]}


def test_cursor_pages_stay_stable_while_events_arrive(api: ApiClient) -> None:
    for number in range(5):
        api.ok("POST", "/scripts", 201, json={"name": f"s{number}", "script": "x"})
    first = api.ok("GET", "/audit/log", params={"page_size": 2}).json()
    api.ok("POST", "/scripts", 201, json={"name": "late", "script": "x"})
    second = api.ok("GET", "/audit/log", params={"page_size": 2, "cursor": first["cursor"]}).json()
    names = [event["data"]["startup_script"]["name"] for event in first["data"] + second["data"]]
    assert names == ["s4", "s3", "s2", "s1"]
