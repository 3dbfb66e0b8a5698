"""Instance groups: create with template checks, list, read, patch (immutability 400, name
conflict 409), soft delete (row kept, name reusable, hidden from reads)."""

from __future__ import annotations

from typing import Any

from conftest import CPU_TYPE, LOCATION, ApiClient, assert_error

GROUP_FIELDS = {"id", "project_id", "name", "description", "location_code", "instance_type", "template", "created_at",
                "updated_at", "deleted_at"}


def group_body(**overrides: Any) -> dict[str, Any]:
    body = {"name": "web", "instance_type": CPU_TYPE, "location_code": LOCATION, "template": {"image": "ubuntu-24.04"}}
    body.update(overrides)
    return body


def create(api: ApiClient, **overrides: Any) -> dict[str, Any]:
    return api.ok("POST", "/instance-groups", 201, json=group_body(**overrides)).json()


def test_create_list_read(api: ApiClient, emulator_reset, control) -> None:
    key_id = api.ssh_key()
    script_id = api.ok("POST", "/scripts", 201, json={"name": "init", "script": "#!/bin/sh"}).text
    group = create(api, description="frontends", template={
        "image": "ubuntu-24.04", "os_volume": {"size": 80, "type": "HDD"}, "ssh_key_ids": [key_id], "startup_script_id": script_id})
    assert set(group) == GROUP_FIELDS
    assert group["project_id"] == emulator_reset.project_id and group["description"] == "frontends"
    assert group["template"] == {"image": "ubuntu-24.04", "os_volume": {"size": 80, "type": "HDD"}, "ssh_key_ids": [key_id],
                                 "startup_script_id": script_id}
    assert group["created_at"] == group["updated_at"] and group["created_at"].endswith("Z") and group["deleted_at"] is None
    control.advance_clock(1)
    plain = create(api, name="gpu", instance_type="1H100.80S.30V", template={"image": "ubuntu-24.04-cuda-12.8-open-docker"})
    assert plain["description"] == "" and plain["template"]["os_volume"] == {"size": 100, "type": "NVMe"}
    assert plain["template"]["ssh_key_ids"] == [] and plain["template"]["startup_script_id"] is None
    assert [item["id"] for item in api.ok("GET", "/instance-groups").json()] == [group["id"], plain["id"]]  # oldest first
    assert api.ok("GET", f"/instance-groups/{group['id']}").json() == group
    assert_error(api.get("/instance-groups/nope"), 404, "not_found", "not found")
    events = api.ok("GET", "/audit/log", params={"object_type": "instance_group"}).json()["data"]
    assert [event["subject"] for event in events] == [plain["id"], group["id"]]
    assert events[1]["data"]["instance_group"]["name"] == "web"


def test_create_validation_names_the_field(api: ApiClient) -> None:
    key_id = api.ssh_key()
    for overrides, words in (
        ({"instance_type": "9Z999"}, "instance_type"),
        ({"location_code": "MARS-01"}, "location_code"),
        ({"template": {"image": "windows-11"}}, "template.image"),
        ({"template": {"image": "ubuntu-24.04-cuda-12.8-open-docker"}}, "template.image"),  # not for a CPU type
        ({"template": {"image": "ubuntu-24.04", "ssh_key_ids": [key_id, "ghost-key"]}}, "ghost-key"),
        ({"template": {"image": "ubuntu-24.04", "startup_script_id": "ghost-script"}}, "template.startup_script_id"),
        ({"template": {"image": "ubuntu-24.04", "os_volume": {"size": 50, "type": "NVMe_Shared"}}}, "template.os_volume.type"),
        ({"template": {"image": "ubuntu-24.04", "os_volume": {"type": "NVMe"}}}, "size"),
        ({"template": {}}, "image"),
        ({"name": ""}, "name"),
    ):
        assert_error(api.post("/instance-groups", json=group_body(**overrides)), 400, "invalid_request", words)
    body = group_body()
    for missing in ("name", "instance_type", "location_code", "template"):
        assert_error(api.post("/instance-groups", json={k: v for k, v in body.items() if k != missing}), 400, "invalid_request", missing)
    assert api.ok("GET", "/instance-groups").json() == []
    create(api)
    assert_error(api.post("/instance-groups", json=group_body()), 409, "conflict", "web")


def test_patch(api: ApiClient, control) -> None:
    first_key, second_key = api.ssh_key("a"), api.ssh_key("b")
    script_id = api.ok("POST", "/scripts", 201, json={"name": "init", "script": "#!/bin/sh"}).text
    group = create(api, template={"image": "ubuntu-24.04", "ssh_key_ids": [first_key]})
    other = create(api, name="other")
    path = f"/instance-groups/{group['id']}"
    control.advance_clock(5)
    patched = api.ok("PATCH", path, json={"name": "web-2", "description": "new",
                                          "template": {"ssh_key_ids": [second_key], "startup_script_id": script_id}}).json()
    assert patched["name"] == "web-2" and patched["description"] == "new"
    assert patched["template"]["ssh_key_ids"] == [second_key] and patched["template"]["startup_script_id"] == script_id
    assert patched["updated_at"] > patched["created_at"] and patched["template"]["image"] == "ubuntu-24.04"
    assert api.ok("GET", path).json() == patched
    # no change: same answer, same updated_at; immutable fields repeated with their value are fine
    same = {**patched, "template": {**patched["template"], "os_volume": {"size": 50, "type": "NVMe"}}}
    assert api.ok("PATCH", path, json=same).json() == patched
    assert api.ok("PATCH", path, json={}).json() == patched
    # immutable fields: 400 naming them, nothing changed
    for body, words in (
        ({"location_code": "FIN-02"}, "location_code"),
        ({"instance_type": "CPU.8V.32G"}, "instance_type"),
        ({"template": {"image": "ubuntu-22.04"}}, "template.image"),
        ({"template": {"os_volume": {"size": 60}}}, "template.os_volume"),
        ({"name": "renamed", "template": {"ssh_key_ids": ["ghost"]}}, "template.ssh_key_ids"),
        ({"template": {"startup_script_id": "ghost"}}, "template.startup_script_id"),
        ({"name": ""}, "name"),
    ):
        assert_error(api.request("PATCH", path, json=body), 400, "invalid_request", words)
    assert api.ok("GET", path).json() == patched
    # another live group's name: 409
    assert_error(api.request("PATCH", path, json={"name": other["name"]}), 409, "conflict", "other")
    # "" removes the startup script
    assert api.ok("PATCH", path, json={"template": {"startup_script_id": ""}}).json()["template"]["startup_script_id"] is None
    assert_error(api.request("PATCH", "/instance-groups/nope", json={"name": "x"}), 404, "not_found")


def test_soft_delete(api: ApiClient, control) -> None:
    group = create(api)
    api.ok("DELETE", f"/instance-groups/{group['id']}", 204)
    assert api.ok("GET", "/instance-groups").json() == []
    assert_error(api.get(f"/instance-groups/{group['id']}"), 404, "not_found")
    assert_error(api.request("PATCH", f"/instance-groups/{group['id']}", json={"name": "x"}), 404, "not_found")
    assert_error(api.delete(f"/instance-groups/{group['id']}"), 404, "not_found")
    # the name is free again; the row is kept, retired
    again = create(api)
    assert again["id"] != group["id"]
    rows = {row["id"]: row for row in control.resources("instance_groups")}
    assert rows[group["id"]]["deleted_at"] and rows[again["id"]]["deleted_at"] is None
    assert [event["type"].split(".")[-2] for event in api.ok("GET", "/audit/log", params={"object_type": "instance_group"}).json()["data"]] \
        == ["create", "delete", "create"]
