"""Volumes: create, every PUT action, trash, deleted shape, delete semantics, tags."""

from __future__ import annotations

import pytest
from conftest import LOCATION, ApiClient, assert_error

ACTIVE_FIELDS = {
    "base_hourly_cost", "contract", "create_directory_command", "created_at", "currency", "filesystem_to_fstab_command",
    "id", "instance_id", "instances", "is_os_volume", "location", "long_term", "monthly_price", "mount_command", "name",
    "pseudo_path", "size", "ssh_key_ids", "status", "tags", "target", "type",
}


def test_create_and_settle(api: ApiClient, settle) -> None:
    response = api.ok("POST", "/volumes", 202, json={"name": "data", "size": 20, "type": "NVMe", "location_code": LOCATION,
                                                       "tags": [{"key": "Team", "value": "ml"}, {"key": "scratch"}]})
    assert response.headers["content-type"].startswith("text/plain")
    volume = api.volume(response.text)
    assert ACTIVE_FIELDS <= set(volume) and "deleted_at" not in volume and "is_permanently_deleted" not in volume
    assert volume["status"] == "ordered" and volume["size"] == 20 and volume["location"] == LOCATION
    assert volume["monthly_price"] == 4.0 and volume["base_hourly_cost"] == pytest.approx(4.0 / 730, rel=1e-3)
    assert [(tag["key"], tag["value"]) for tag in volume["tags"]] == [("team", "ml"), ("scratch", "")]
    settle()
    volume = api.volume(response.text)
    assert volume["status"] == "detached" and volume["instance_id"] is None and volume["target"] is None
    assert [item["id"] for item in api.ok("GET", "/volumes").json()] == [volume["id"]]
    assert api.ok("GET", "/volumes", params={"status": "detached"}).json()[0]["id"] == volume["id"]
    assert api.ok("GET", "/volumes", params={"status": "attached"}).json() == []
    assert_error(api.get("/volumes", params={"status": "melted"}), 400, "invalid_request", "status")


def test_create_validation(api: ApiClient) -> None:
    body = {"name": "v", "size": 10, "type": "NVMe", "location_code": LOCATION}
    assert_error(api.post("/volumes", json={k: v for k, v in body.items() if k != "location_code"}), 400, "invalid_request", "location_code")
    assert_error(api.post("/volumes", json={**body, "location_code": "MARS-01"}), 400, "invalid_request", "location")
    assert_error(api.post("/volumes", json={**body, "type": "NVMe_OS_Cluster"}), 400, "invalid_request", "type")
    assert_error(api.post("/volumes", json={**body, "size": 0}), 400, "invalid_request", "size")
    assert_error(api.post("/volumes", json=body, headers={"User-Agent": ""}), 400, "invalid_request", "User-Agent")
    assert_error(api.post("/volumes", json={**body, "instance_id": "missing"}), 404, "not_found")
    assert_error(api.post("/volumes", json={**body, "tags": [{"key": f"k{i}"} for i in range(11)]}), 400, "invalid_request", "10")
    assert_error(api.post("/volumes", json={**body, "tags": [{"key": "a"}, {"key": "A"}]}), 400, "invalid_request")
    assert_error(api.post("/volumes", json={**body, "tags": [{"key": "k" * 64}]}), 400, "invalid_request", "key")
    assert_error(api.post("/volumes", json={**body, "tags": [{"key": "k", "value": "v" * 128}]}), 400, "invalid_request", "value")
    assert api.ok("GET", "/volumes").json() == []


def test_create_attached_needs_shut_down_instances(api: ApiClient, running_instance: str, settle) -> None:
    body = {"name": "v", "size": 10, "type": "NVMe", "location_code": LOCATION, "instance_id": running_instance}
    assert_error(api.post("/volumes", json=body), 403, "forbidden_action", "shut down")
    assert len(api.ok("GET", "/volumes").json()) == 1  # only the OS volume: nothing created
    api.action(running_instance, "shutdown")
    settle()
    volume_id = api.create_volume(instance_ids=[running_instance])
    assert api.volume(volume_id)["status"] == "ordered"
    settle()
    volume = api.volume(volume_id)
    assert volume["status"] == "attached" and volume["instance_id"] == running_instance and volume["target"] == "vdb"
    assert volume["instances"][0]["hostname"] == "web-1" and volume["instances"][0]["instance_template"]["cpu_cores"] == 4
    assert volume_id in api.instance(running_instance)["volume_ids"]
    other = api.deploy(hostname="web-2", location_code="FIN-02")
    assert_error(api.post("/volumes", json={**body, "instance_id": other}), 400, "invalid_request", "FIN-02")


def test_attach_and_detach(api: ApiClient, running_instance: str, settle) -> None:
    volume_id = api.create_volume()
    settle()
    assert_error(api.put("/volumes", json={"action": "attach", "id": volume_id, "instance_id": running_instance}), 403,
                 "forbidden_action")
    api.action(running_instance, "shutdown")
    settle()
    assert_error(api.put("/volumes", json={"action": "attach", "id": volume_id}), 400, "invalid_request", "instance_id")
    api.volume_action(volume_id, "attach", instance_id=running_instance)
    assert api.volume(volume_id)["status"] == "attaching"
    settle()
    assert api.volume(volume_id)["status"] == "attached"
    api.volume_action(volume_id, "attach", instance_id=running_instance)  # already there: accepted, no change
    api.action(running_instance, "start")
    settle()
    assert_error(api.put("/volumes", json={"action": "detach", "id": volume_id}), 403, "forbidden_action")
    api.action(running_instance, "shutdown")
    settle()
    api.volume_action(volume_id, "detach")
    volume = api.volume(volume_id)
    assert volume["status"] == "detaching" and volume["instance_id"] is None
    assert volume_id not in api.instance(running_instance)["volume_ids"]
    settle()
    assert api.volume(volume_id)["status"] == "detached"
    api.volume_action(volume_id, "detach")  # already detached


def test_single_attach_volumes_and_shared_filesystems(api: ApiClient, settle) -> None:
    api.ssh_key()
    first, second = api.deploy(hostname="a"), api.deploy(hostname="b")
    settle()
    api.action([first, second], "shutdown")
    settle()
    assert_error(api.post("/volumes", json={"name": "v", "size": 1, "type": "NVMe", "location_code": LOCATION,
                                            "instance_ids": [first, second]}), 400, "invalid_request", "one instance")
    shared = api.create_volume(type="NVMe_Shared", instance_ids=[first, second])
    settle()
    assert {item["id"] for item in api.volume(shared)["instances"]} == {first, second}
    assert "nfs" in api.volume(shared)["mount_command"]


def test_rename_resize_clone_cancel(api: ApiClient, settle) -> None:
    volume_id = api.create_volume(size=10)
    settle()
    api.volume_action(volume_id, "rename", name="renamed")
    assert api.volume(volume_id)["name"] == "renamed"
    assert_error(api.put("/volumes", json={"action": "resize", "id": volume_id, "size": 5}), 400, "invalid_request", "grow")
    assert_error(api.put("/volumes", json={"action": "resize", "id": volume_id, "size": 10}), 400, "invalid_request", "grow")
    api.volume_action(volume_id, "resize", size=30)
    assert api.volume(volume_id)["size"] == 30
    clone_ids = api.volume_action(volume_id, "clone", name="copy").json()
    assert isinstance(clone_ids, list) and len(clone_ids) == 1
    clone = api.volume(clone_ids[0])
    assert clone["status"] == "cloning" and clone["name"] == "copy" and clone["size"] == 30
    settle()
    assert api.volume(clone_ids[0])["status"] == "detached"
    # a cross-datacenter clone can be canceled while it runs
    far = api.volume_action(volume_id, "clone", location_code="ICE-01", type="HDD").json()[0]
    assert api.volume(far)["location"] == "ICE-01" and api.volume(far)["type"] == "HDD"
    api.volume_action(far, "cancel")
    assert api.volume(far)["status"] == "canceling"
    settle()
    assert api.volume(far)["status"] == "canceled"
    assert_error(api.put("/volumes", json={"action": "cancel", "id": volume_id}), 400, "invalid_request", "cloned")
    assert_error(api.put("/volumes", json={"action": "rename", "id": volume_id}), 400, "invalid_request", "name")


@pytest.mark.parametrize("action", ["create", "export", "transfer"])
def test_unavailable_actions(api: ApiClient, action: str, settle) -> None:
    volume_id = api.create_volume()
    settle()
    assert_error(api.put("/volumes", json={"action": action, "id": volume_id}), 400, "invalid_request", "not available")


def test_actions_on_several_volumes_are_all_or_nothing(api: ApiClient, settle) -> None:
    small, big = api.create_volume(size=10), api.create_volume(size=50)
    settle()
    assert_error(api.put("/volumes", json={"action": "resize", "id": [small, big], "size": 40}), 400, "invalid_request")
    assert api.volume(small)["size"] == 10
    api.volume_action([small, big], "resize", size=60)
    assert api.volume(small)["size"] == 60 == api.volume(big)["size"]
    assert_error(api.put("/volumes", json={"action": "rename", "id": [small, "missing"], "name": "x"}), 404, "not_found")
    assert_error(api.put("/volumes", json={"action": "rename", "id": [], "name": "x"}), 400, "invalid_request", "id")


def test_trash_restore_and_permanent_delete(api: ApiClient, settle, control) -> None:
    volume_id = api.create_volume()
    settle()
    api.ok("DELETE", f"/volumes/{volume_id}", 202)
    deleted = api.volume(volume_id)
    assert deleted["status"] == "deleted" and deleted["is_permanently_deleted"] is False and deleted["deleted_at"].endswith("Z")
    assert [item["id"] for item in api.ok("GET", "/volumes/trash").json()] == [volume_id]
    assert api.ok("GET", "/volumes").json() == []
    api.ok("DELETE", f"/volumes/{volume_id}", 204)  # idempotent
    assert_error(api.put("/volumes", json={"action": "rename", "id": volume_id, "name": "x"}), 400, "invalid_request", "deleted")
    api.volume_action(volume_id, "restore")
    assert api.volume(volume_id)["status"] == "restoring"
    settle()
    restored = api.volume(volume_id)
    assert restored["status"] == "detached" and "deleted_at" not in restored
    assert_error(api.put("/volumes", json={"action": "restore", "id": volume_id}), 400, "invalid_request")
    # permanently, from the trash
    api.volume_action(volume_id, "delete")
    api.ok("DELETE", f"/volumes/{volume_id}", 202, json={"is_permanent": True})
    gone = api.volume(volume_id)
    assert gone["status"] == "deleted" and gone["is_permanently_deleted"] is True
    assert api.ok("GET", "/volumes/trash").json() == [] and api.ok("GET", "/volumes").json() == []
    api.ok("DELETE", f"/volumes/{volume_id}", 204)
    assert_error(api.put("/volumes", json={"action": "restore", "id": volume_id}), 404, "not_found")
    api.volume_action(volume_id, "delete", is_permanent=True)  # still accepted, nothing to do
    assert_error(api.delete("/volumes/missing"), 404, "not_found")
    # the raw dump keeps the row
    assert any(row["id"] == volume_id for row in control.resources("volumes"))


def test_trash_is_purged_after_96_hours(api: ApiClient, settle, control, login) -> None:
    volume_id = api.create_volume()
    settle()
    api.volume_action(volume_id, "delete")
    control.advance_clock(95 * 3600)
    api = login()  # the first token expired long ago
    assert api.volume(volume_id)["is_permanently_deleted"] is False
    control.advance_clock(2 * 3600)
    api = login()
    assert api.volume(volume_id)["is_permanently_deleted"] is True
    assert api.ok("GET", "/volumes/trash").json() == []


def test_attached_volume_cannot_be_deleted(api: ApiClient, offline_instance: str, settle) -> None:
    volume_id = api.create_volume(instance_id=offline_instance)
    settle()
    assert_error(api.delete(f"/volumes/{volume_id}"), 400, "invalid_request", "detach")
    assert_error(api.delete(f"/volumes/{volume_id}", headers={"User-Agent": ""}), 400, "invalid_request", "User-Agent")


def test_unsettled_volume_can_be_deleted(api: ApiClient, offline_instance: str, settle) -> None:
    ordered = api.create_volume(name="ordered")
    assert api.volume(ordered)["status"] == "ordered"
    api.ok("PUT", "/volumes", 202, json={"action": "delete", "id": [ordered]})
    attaching = api.create_volume(name="attaching")
    settle()
    api.ok("PUT", "/volumes", 202, json={"action": "attach", "id": attaching, "instance_id": offline_instance})
    assert api.volume(attaching)["status"] == "attaching"
    api.ok("DELETE", f"/volumes/{attaching}", 202, json={"is_permanent": True})
    settle()
    # the pending transitions were cancelled: one in the trash, one gone for good, neither attached
    assert api.volume(ordered)["status"] == "deleted" and api.volume(ordered)["is_permanently_deleted"] is False
    assert api.volume(attaching)["is_permanently_deleted"] is True
    assert [volume["id"] for volume in api.ok("GET", "/volumes/trash").json()] == [ordered]
    assert attaching not in api.instance(offline_instance)["volume_ids"]


def test_volume_tags(api: ApiClient, settle) -> None:
    first, second = api.create_volume(name="a"), api.create_volume(name="b")
    settle()
    tag = api.ok("POST", f"/volumes/{first}/tags", 201, json={"key": "Env", "value": "prod"}).json()
    assert tag["key"] == "env" and tag["value"] == "prod"
    same = api.ok("POST", f"/volumes/{second}/tags", 201, json={"key": "env", "value": "prod"}).json()
    assert same["id"] == tag["id"]  # same pair, same id everywhere in the project
    assert_error(api.post(f"/volumes/{first}/tags", json={"key": "ENV", "value": "dev"}), 409, "conflict")
    freeform = api.ok("POST", f"/volumes/{first}/tags", 201, json={"key": "gpu"}).json()
    assert freeform["value"] == ""
    api.ok("DELETE", f"/volumes/{first}/tags/{tag['id']}", 204)
    api.ok("DELETE", f"/volumes/{first}/tags/GPU", 204)  # by key
    assert api.volume(first)["tags"] == []
    assert_error(api.delete(f"/volumes/{first}/tags/{tag['id']}"), 404, "not_found")
    assert_error(api.post("/volumes/missing/tags", json={"key": "a"}), 404, "not_found")
    assert_error(api.delete("/volumes/missing/tags/a"), 404, "not_found")
    for index in range(1, 10):  # the env tag is the first of ten
        api.ok("POST", f"/volumes/{second}/tags", 201, json={"key": f"k{index}"})
    assert_error(api.post(f"/volumes/{second}/tags", json={"key": "eleventh"}), 400, "invalid_request", "10")
    assert_error(api.post(f"/volumes/{second}/tags", json={"key": "x" * 64}), 400, "invalid_request", "key")
    api.ok("DELETE", f"/volumes/{second}", 202)
    assert_error(api.post(f"/volumes/{second}/tags", json={"key": "late"}), 403, "forbidden_action", "deleted")
