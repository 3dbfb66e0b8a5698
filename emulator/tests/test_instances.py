"""Instances: deploy options, state machine, list filters, single and bulk actions, delete
semantics, hibernate, spot eviction, capacity (503) and funds (402)."""

from __future__ import annotations

import pytest
from cloudcompute_emulator.control import EmulatorControlError
from conftest import CPU_TYPE, LOCATION, ApiClient, assert_error

INSTANCE_FIELDS = {
    "contract", "cpu", "created_at", "description", "gpu", "gpu_memory", "hostname", "id", "image", "instance_type", "ip",
    "is_spot", "jupyter_token", "location", "memory", "os_name", "os_volume_id", "price_per_hour", "pricing", "private_ip",
    "ssh_key_ids", "startup_script_id", "status", "storage", "tags", "volume_ids",
}


def test_deploy_with_every_option(api: ApiClient, settle) -> None:
    key_id = api.ssh_key()
    script_id = api.ok("POST", "/scripts", 201, json={"name": "init", "script": "#!/bin/sh"}).text
    existing = api.create_volume(name="keep")
    settle()
    response = api.ok("POST", "/instances", 202, json={
        "hostname": "gpu-box-1", "image": "ubuntu-24.04-cuda-12.8-open-docker", "instance_type": "1H100.80S.30V",
        "location_code": LOCATION, "description": "training", "contract": "PAY_AS_YOU_GO", "coupon": "WELCOME",
        "ssh_key_ids": key_id, "startup_script_id": script_id, "pricing": "FIXED_PRICE",
        "tags": [{"key": "Team", "value": "ml"}],
        "os_volume": {"name": "root", "size": 200, "tags": [{"key": "os"}]},
        "volumes": [{"name": "scratch", "size": 500, "type": "NVMe", "tags": [{"key": "tier", "value": "hot"}]},
                    {"name": "archive", "size": 1000, "type": "HDD"}],
        "existing_volumes": [existing],
    })
    assert response.headers["content-type"].startswith("text/plain")
    instance = api.instance(response.text)
    assert INSTANCE_FIELDS <= set(instance)
    assert instance["status"] == "ordered" and instance["ip"] is None
    assert instance["hostname"] == "gpu-box-1" and instance["description"] == "training"
    assert instance["ssh_key_ids"] == [key_id] and instance["startup_script_id"] == script_id
    assert instance["gpu"] == {"description": "1x H100 SXM5 80GB", "number_of_gpus": 1}
    assert instance["price_per_hour"] == 2.29 and instance["pricing"] == "FIXED_PRICE" and instance["contract"] == "PAY_AS_YOU_GO"
    assert instance["os_name"] == "Ubuntu 24.04" and instance["tags"][0]["key"] == "team"
    assert len(instance["volume_ids"]) == 4 and existing in instance["volume_ids"]
    os_volume = api.volume(instance["os_volume_id"])
    assert os_volume["is_os_volume"] and os_volume["target"] == "vda" and os_volume["size"] == 200 and os_volume["name"] == "root"
    assert os_volume["ssh_key_ids"] == [key_id] and os_volume["tags"][0]["key"] == "os"
    volumes = {volume["name"]: volume for volume in api.ok("GET", "/volumes").json()}
    assert volumes["scratch"]["location"] == LOCATION and volumes["scratch"]["status"] == "attached"
    assert volumes["archive"]["type"] == "HDD" and volumes["keep"]["instance_id"] == instance["id"]
    assert {volumes[name]["target"] for name in ("scratch", "archive", "keep")} == {"vdb", "vdc", "vdd"}
    settle(15)
    assert api.instance(instance["id"])["status"] == "provisioning"
    settle()
    running = api.instance(instance["id"])
    assert running["status"] == "running" and running["ip"].startswith(("192.0.2.", "198.51.100.", "203.0.113."))


def test_deploy_validation(api: ApiClient, settle) -> None:
    body = {"hostname": "h", "image": "ubuntu-24.04", "instance_type": CPU_TYPE, "location_code": LOCATION}
    assert_error(api.post("/instances", json=body), 400, "invalid_request", "SSH key")
    api.ssh_key()
    assert_error(api.post("/instances", json={k: v for k, v in body.items() if k != "location_code"}), 400, "invalid_request", "location_code")
    assert_error(api.post("/instances", json={**body, "instance_type": "9X999"}), 400, "invalid_request", "instance_type")
    assert_error(api.post("/instances", json={**body, "image": "windows-11"}), 400, "invalid_request", "image")
    assert_error(api.post("/instances", json={**body, "image": "ubuntu-24.04-cuda-12.8-open-docker"}), 400, "invalid_request", "not supported")
    assert_error(api.post("/instances", json={**body, "hostname": "bad name!"}), 400, "invalid_request", "hostname")
    assert_error(api.post("/instances", json={**body, "ssh_key_ids": ["nope"]}), 400, "invalid_request", "ssh_key_ids")
    assert_error(api.post("/instances", json={**body, "startup_script_id": "nope"}), 400, "invalid_request", "startup_script_id")
    assert_error(api.post("/instances", json={**body, "existing_volumes": ["nope"]}), 400, "invalid_request", "existing_volumes")
    assert_error(api.post("/instances", json={**body, "volumes": [{"name": "v", "size": 1, "type": "Floppy"}]}), 400, "invalid_request")
    assert_error(api.post("/instances", json={**body, "pricing": "DYNAMIC_PRICE"}), 400, "invalid_request", "FIXED_PRICE")
    assert_error(api.post("/instances", json={**body, "contract": "LONG_TERM", "is_spot": True}), 400, "invalid_request", "spot")
    assert_error(api.post("/instances", json={**body, "tags": [{"key": str(i)} for i in range(11)]}), 400, "invalid_request", "10")
    assert_error(api.post("/instances", json=body, headers={"User-Agent": ""}), 400, "invalid_request", "User-Agent")
    assert api.ok("GET", "/instances").json() == [] and api.ok("GET", "/volumes").json() == []


def test_state_machine_and_power_actions(api: ApiClient, settle) -> None:
    api.ssh_key()
    instance_id = api.deploy()
    assert api.instance(instance_id)["status"] == "ordered"
    assert [item["id"] for item in api.ok("GET", "/instances").json()] == [instance_id]
    assert_error(api.put("/instances", json={"action": "shutdown", "id": instance_id}), 400, "invalid_request", "ordered")
    settle()
    assert api.instance(instance_id)["status"] == "running"
    api.ok("PUT", "/instances", 204, json={"action": "start", "id": instance_id})
    result = api.action(instance_id, "shutdown").json()
    assert result == [{"action": "shutdown", "instanceId": instance_id, "status": "success"}]
    assert api.instance(instance_id)["status"] == "running"  # until the power action completes
    api.action(instance_id, "force_shutdown")  # on its way already: accepted again
    assert_error(api.put("/instances", json={"action": "start", "id": instance_id}), 400, "invalid_request", "pending")
    settle()
    assert api.instance(instance_id)["status"] == "offline"
    api.ok("PUT", "/instances", 204, json={"action": "shutdown", "id": instance_id})
    api.action(instance_id, "boot")
    settle()
    assert api.instance(instance_id)["status"] == "running"
    assert_error(api.put("/instances", json={"action": "hibernate", "id": instance_id}), 400, "invalid_request", "shut down")
    assert_error(api.put("/instances", json={"action": "configure_spot", "id": instance_id}), 400, "invalid_request", "spot")
    for action in ("deploy", "transfer"):
        assert_error(api.put("/instances", json={"action": action, "id": instance_id}), 400, "invalid_request", "not available")
    assert_error(api.put("/instances", json={"action": "reboot", "id": instance_id}), 400, "invalid_request", "action")
    assert_error(api.put("/instances", json={"action": "start", "id": "missing"}), 404, "not_found")
    assert_error(api.put("/instances", json={"action": "start", "id": []}), 400, "invalid_request", "id")


def test_bulk_actions_report_each_instance(api: ApiClient, settle) -> None:
    api.ssh_key()
    first, second = api.deploy(hostname="a"), api.deploy(hostname="b")
    settle()
    api.action(first, "shutdown")
    settle()
    response = api.action([first, second], "shutdown", expected=202)
    assert [item["status"] for item in response.json()] == ["success", "success"]
    settle()
    mixed = api.ok("PUT", "/instances", 207, json={"action": "hibernate", "id": [first, "missing", second]}).json()
    assert [item["instanceId"] for item in mixed] == [first, "missing", second]
    assert mixed[0]["status"] == "success" and mixed[2]["status"] == "success"
    assert mixed[1] == {"action": "hibernate", "instanceId": "missing", "status": "error", "error": "Instance missing not found", "statusCode": 404}
    third = api.deploy(hostname="c")
    # a one-element array is a single action: the error is the response's status
    assert_error(api.put("/instances", json={"action": "shutdown", "id": [third]}), 400, "invalid_request", "ordered")
    assert_error(api.put("/instances", json={"action": "shutdown", "id": ["missing"]}), 404, "not_found")
    refused = api.ok("PUT", "/instances", 207, json={"action": "shutdown", "id": [third, first]}).json()
    assert refused[0]["statusCode"] == 400 and "ordered" in refused[0]["error"]
    # the deprecated alias behaves the same
    settle()
    assert api.ok("POST", "/instances/action", 202, json={"action": "shutdown", "id": third}).json()[0]["status"] == "success"


def test_delete_semantics(api: ApiClient, settle, control) -> None:
    api.ssh_key()

    def deploy_with_data(name: str) -> tuple[str, str, str]:
        instance_id = api.deploy(hostname=name, volumes=[{"name": f"{name}-data", "size": 10, "type": "NVMe"}])
        settle()
        instance = api.instance(instance_id)
        data = next(volume for volume in instance["volume_ids"] if volume != instance["os_volume_id"])
        return instance_id, instance["os_volume_id"], data

    # volume_ids omitted: only the OS volume is deleted, the others detached
    instance_id, os_volume, data = deploy_with_data("a")
    api.action(instance_id, "delete")
    assert api.instance(instance_id)["status"] == "deleting"
    api.ok("PUT", "/instances", 204, json={"action": "delete", "id": instance_id})
    settle()
    assert_error(api.get(f"/instances/{instance_id}"), 404, "not_found")
    assert api.ok("GET", "/instances").json() == []
    assert api.volume(os_volume)["status"] == "deleted" and api.volume(os_volume)["is_permanently_deleted"] is False
    assert api.volume(data)["status"] == "detached"
    # empty list: nothing deleted
    instance_id, os_volume, data2 = deploy_with_data("b")
    api.action(instance_id, "delete", volume_ids=[])
    assert api.volume(os_volume)["status"] == "detached" and api.volume(data2)["status"] == "detached"
    # named volumes, permanently
    instance_id, os_volume, data3 = deploy_with_data("c")
    api.action(instance_id, "discontinue", volume_ids=[os_volume, data3], delete_permanently=True)
    assert api.volume(os_volume)["is_permanently_deleted"] and api.volume(data3)["is_permanently_deleted"]
    assert_error(api.put("/instances", json={"action": "delete", "id": deploy_with_data("d")[0], "volume_ids": [data]}),
                 400, "invalid_request", "not attached")
    # delete_stuck reaches instances still being set up, discontinue does not
    stuck = api.deploy(hostname="stuck")
    assert api.instance(stuck)["status"] == "ordered"
    assert_error(api.put("/instances", json={"action": "discontinue", "id": stuck}), 400, "invalid_request", "delete_stuck")
    api.action(stuck, "delete_stuck")
    settle(60)
    assert_error(api.get(f"/instances/{stuck}"), 404, "not_found")


def test_plain_delete_right_after_deploy(api: ApiClient, settle) -> None:
    api.ssh_key()
    ordered = api.deploy(hostname="ordered")
    assert api.instance(ordered)["status"] == "ordered"
    # one-element array, as the official clients send it
    api.ok("PUT", "/instances", 202, json={"action": "delete", "id": [ordered]})
    assert api.instance(ordered)["status"] == "deleting"
    api.ok("PUT", "/instances", 204, json={"action": "delete", "id": [ordered]})
    provisioning = api.deploy(hostname="provisioning")
    settle(11)  # past ordered (10 s in the realistic profile), well before running
    assert api.instance(provisioning)["status"] == "provisioning"
    api.action(provisioning, "delete")
    settle(60)
    for instance_id in (ordered, provisioning):
        assert_error(api.get(f"/instances/{instance_id}"), 404, "not_found")
    # the pending provisioning never lands on a deleted instance, nor its OS volume
    assert api.ok("GET", "/instances").json() == []


def test_hibernate_keeps_every_volume(api: ApiClient, offline_instance: str, settle) -> None:
    instance = api.instance(offline_instance)
    api.action(offline_instance, "hibernate")
    settle()
    assert_error(api.get(f"/instances/{offline_instance}"), 404, "not_found")
    os_volume = api.volume(instance["os_volume_id"])
    assert os_volume["status"] == "detached" and os_volume["is_os_volume"]
    # boot a new instance from the customised OS volume
    new_id = api.deploy(hostname="revived", image=os_volume["id"])
    revived = api.instance(new_id)
    assert revived["os_volume_id"] == os_volume["id"] and revived["image"] == "ubuntu-24.04"
    assert api.volume(os_volume["id"])["status"] == "attached"
    assert_error(api.post("/instances", json={"hostname": "x", "image": os_volume["id"], "instance_type": CPU_TYPE,
                                              "location_code": LOCATION}), 400, "invalid_request", "detached")


def test_list_filters(api: ApiClient, settle) -> None:
    api.ssh_key()
    web = api.deploy(hostname="web", tags=[{"key": "role", "value": "web"}, {"key": "env", "value": "prod"}])
    db = api.deploy(hostname="db", tags=[{"key": "role", "value": "db"}, {"key": "env", "value": "prod"}])
    lab = api.deploy(hostname="lab", tags=[{"key": "gpu"}])
    settle()
    api.action(lab, "shutdown")
    settle()

    def ids(**params) -> set[str]:
        return {item["id"] for item in api.ok("GET", "/instances", params=params).json()}

    assert ids() == {web, db, lab}
    assert ids(status="offline") == {lab} and ids(status="running") == {web, db}
    assert ids(computeId=db) == {db} and ids(computeId="missing") == set()
    assert ids(tag="env") == {web, db} and ids(tag="ROLE=web") == {web}
    assert ids(tag=["env=prod", "role=db"]) == {db} and ids(tag=["env", "gpu"]) == set()
    assert ids(tag="gpu=") == {lab}
    assert_error(api.get("/instances", params={"status": "sleeping"}), 400, "invalid_request", "status")
    web_tags = api.instance(web)["tags"]
    db_tags = api.instance(db)["tags"]
    assert [t["id"] for t in web_tags if t["key"] == "env"] == [t["id"] for t in db_tags if t["key"] == "env"]


def test_instance_tags(api: ApiClient, running_instance: str) -> None:
    tag = api.ok("POST", f"/instances/{running_instance}/tags", 201, json={"key": "Owner", "value": "ana"}).json()
    assert tag["key"] == "owner"
    assert_error(api.post(f"/instances/{running_instance}/tags", json={"key": "owner", "value": "bo"}), 409, "conflict")
    api.ok("DELETE", f"/instances/{running_instance}/tags/owner", 204)
    assert_error(api.delete(f"/instances/{running_instance}/tags/{tag['id']}"), 404, "not_found")
    assert_error(api.post("/instances/missing/tags", json={"key": "a"}), 404, "not_found")


def test_spot_eviction_follows_volume_policies(api: ApiClient, settle, control) -> None:
    api.ssh_key()
    instance_id = api.deploy(
        is_spot=True, os_volume={"name": "os", "size": 50, "on_spot_discontinue": "move_to_trash"},
        volumes=[{"name": "keep", "size": 1, "type": "NVMe"},
                 {"name": "drop", "size": 1, "type": "NVMe", "on_spot_discontinue": "delete_permanently"}],
    )
    instance = api.instance(instance_id)
    assert instance["is_spot"] and instance["contract"] == "SPOT" and instance["price_per_hour"] < 0.1196
    settle()
    api.action(instance_id, "configure_spot")
    assert control.evict(instance_id)["status"] == "discontinued"
    assert api.instance(instance_id)["status"] == "discontinued"
    volumes = {volume["name"]: volume for volume in control.resources("volumes")}
    assert volumes["os"]["status"] == "deleted" and not volumes["os"]["is_permanently_deleted"]
    assert volumes["drop"]["is_permanently_deleted"] and volumes["keep"]["status"] == "detached"
    settle()
    assert_error(api.get(f"/instances/{instance_id}"), 404, "not_found")
    # move_to_trash: in the trash (still charged, counting as storage) for 96 hours, then purged
    assert [volume["name"] for volume in api.ok("GET", "/volumes/trash").json()] == ["os"]
    control.advance_clock(96 * 3600 - 2000)
    assert [volume["name"] for volume in api.ok("GET", "/volumes/trash").json()] == ["os"]
    control.advance_clock(1000)
    assert api.ok("GET", "/volumes/trash").json() == []
    assert api.volume(volumes["os"]["id"])["is_permanently_deleted"] is True
    assert [volume["name"] for volume in api.ok("GET", "/volumes").json()] == ["keep"]
    on_demand = api.deploy(hostname="regular")
    with pytest.raises(Exception, match="not a spot instance"):
        control.evict(on_demand)


def test_capacity_answers_503(api: ApiClient, control, settle) -> None:
    api.ssh_key()
    body = {"hostname": "big", "image": "ubuntu-24.04-cuda-12.8-open-docker", "instance_type": "8B200.180S.240V", "location_code": "FIN-03"}
    assert api.ok("GET", "/instance-availability/8B200.180S.240V", params={"location_code": "FIN-03"}).json() is True
    first = api.ok("POST", "/instances", 202, json=body).text
    assert_error(api.post("/instances", json=body), 503, "service_unavailable", "capacity")
    assert api.ok("GET", "/instance-availability/8B200.180S.240V", params={"location_code": "FIN-03"}).json() is False
    assert_error(api.post("/instances", json={**body, "location_code": "FIN-01"}), 503, "service_unavailable")
    assert_error(api.post("/instances", json={**body, "is_spot": True}), 503, "service_unavailable", "spot")
    assert len(api.ok("GET", "/instances").json()) == 1
    settle()
    api.action(first, "delete")  # capacity comes back with the deletion
    api.ok("POST", "/instances", 202, json=body)
    # and the control API sets it anywhere
    control.set_capacity(CPU_TYPE, "ICE-01", 0)
    assert_error(api.post("/instances", json={**body, "instance_type": CPU_TYPE, "image": "ubuntu-24.04", "location_code": "ICE-01"}),
                 503, "service_unavailable")
    assert CPU_TYPE not in api.ok("GET", "/instance-availability", params={"location_code": "ICE-01"}).json()[0]["availabilities"]
    control.set_capacity(CPU_TYPE, "ICE-01", 1)
    assert control.capacity(CPU_TYPE, "ICE-01")["available"] == 1
    api.deploy(location_code="ICE-01")
    assert control.capacity(CPU_TYPE, "ICE-01") == {"instance_type": CPU_TYPE, "location_code": "ICE-01", "is_spot": False,
                                                     "total": 1, "in_use": 1, "available": 0, "scheduled": []}


def test_capacity_released_later_on_the_emulator_clock(api: ApiClient, control) -> None:
    api.ssh_key()
    control.set_capacity(CPU_TYPE, "ICE-01", 0)
    scheduled = control.set_capacity(CPU_TYPE, "ICE-01", 2, after_seconds=600)["scheduled"]
    assert [(change["available"], change["after_seconds"]) for change in scheduled] == [(2, 600)]
    assert control.capacity(CPU_TYPE, "ICE-01")["scheduled"] == [{"at": scheduled[0]["at"], "available": 2}]
    availability = {"location_code": "ICE-01"}
    assert CPU_TYPE not in api.ok("GET", "/instance-availability", params=availability).json()[0]["availabilities"]
    body = {"hostname": "later", "image": "ubuntu-24.04", "instance_type": CPU_TYPE, "location_code": "ICE-01"}
    assert_error(api.post("/instances", json=body), 503, "service_unavailable")
    control.advance_clock(599)
    assert_error(api.post("/instances", json=body), 503, "service_unavailable")  # not yet
    control.advance_clock(1)
    assert api.ok("GET", f"/instance-availability/{CPU_TYPE}", params=availability).json() is True
    api.ok("POST", "/instances", 202, json=body)
    api.ok("POST", "/instances", 202, json={**body, "hostname": "later-2"})
    assert_error(api.post("/instances", json={**body, "hostname": "later-3"}), 503, "service_unavailable")
    assert control.capacity(CPU_TYPE, "ICE-01")["scheduled"] == []


def test_capacity_schedule_applies_each_change_at_its_time(api: ApiClient, control) -> None:
    api.ssh_key()
    control.schedule_capacity(CPU_TYPE, "FIN-02", [(0, 0), (300, 1), (900, 3), (1800, 0)])
    assert [change["available"] for change in control.capacity(CPU_TYPE, "FIN-02")["scheduled"]] == [1, 3, 0]
    assert control.capacity(CPU_TYPE, "FIN-02")["available"] == 0
    control.advance_clock(300)
    assert control.capacity(CPU_TYPE, "FIN-02")["available"] == 1
    api.deploy(location_code="FIN-02")
    control.advance_clock(600)  # "3 more" counts against the one held then
    assert control.capacity(CPU_TYPE, "FIN-02") | {"scheduled": None} == {
        "instance_type": CPU_TYPE, "location_code": "FIN-02", "is_spot": False, "total": 4, "in_use": 1, "available": 3,
        "scheduled": None}
    control.advance_clock(900)
    assert control.capacity(CPU_TYPE, "FIN-02")["available"] == 0
    control.reset()
    assert control.capacity(CPU_TYPE, "FIN-02")["scheduled"] == []


def test_capacity_request_takes_one_form(control) -> None:
    with pytest.raises(EmulatorControlError, match="either available"):
        control._call("PUT", "/capacity", {"instance_type": CPU_TYPE, "location_code": "FIN-01"})
    with pytest.raises(EmulatorControlError, match="after_seconds goes with available"):
        control._call("PUT", "/capacity", {"instance_type": CPU_TYPE, "location_code": "FIN-01", "after_seconds": 5,
                                           "schedule": [{"after_seconds": 1, "available": 1}]})
    with pytest.raises(EmulatorControlError):
        control._call("PUT", "/capacity", {"instance_type": CPU_TYPE, "location_code": "FIN-01", "available": 1, "after_seconds": -1})


def test_deploy_without_funds_is_402(api: ApiClient, control) -> None:
    api.ssh_key()
    control.set_balance(0)
    assert_error(api.post("/instances", json={"hostname": "h", "image": "ubuntu-24.04", "instance_type": CPU_TYPE,
                                              "location_code": LOCATION}), 402, "insufficient_funds")
    control.set_balance(5)
    api.deploy()


def test_a_setup_ended_in_a_failure_stays_there(api: ApiClient, settle, control) -> None:
    api.ssh_key()
    instance_id = api.deploy()
    assert control.fail_setup(instance_id, "installation_failed")["status"] == "installation_failed"
    settle()  # the setup's scheduled steps no longer apply
    assert api.instance(instance_id)["status"] == "installation_failed"
    running = api.deploy(hostname="runs")
    settle()
    with pytest.raises(Exception, match="not being set up"):
        control.fail_setup(running)
    with pytest.raises(Exception, match="status must be one of"):
        control.fail_setup(api.deploy(hostname="other"), "running")
