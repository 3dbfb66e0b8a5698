"""Clusters: catalog (types, images, availability), deploy options and checks, the state machine
(jump host address and workers when running), node actions, discontinue, tags, seeding,
charging and capacity."""

from __future__ import annotations

import re
from typing import Any

import pytest
from conftest import LOCATION, ApiClient, assert_error

from cloudcompute_emulator.control import EmulatorControlError

CLUSTER_TYPE = "16H100"
CLUSTER_IMAGE = "ubuntu-24.04-cuda-12.8-cluster"
PRICE = re.compile(r"^\d+(\.\d+)?$")
CLUSTER_FIELDS = {
    "cluster_type", "contract", "cpu", "created_at", "description", "gpu", "gpu_memory", "hostname", "id", "image", "ip",
    "location", "memory", "os_name", "price_per_hour", "ssh_key_ids", "status", "tags", "extension_settings",
    "auto_rental_extension", "turn_to_pay_as_you_go", "shared_volumes", "worker_nodes", "startup_script_id",
}


def deploy_body(**overrides: Any) -> dict[str, Any]:
    body = {"cluster_type": CLUSTER_TYPE, "hostname": "train", "image": CLUSTER_IMAGE, "location_code": LOCATION,
            "shared_volume": {"name": "home", "size": 100}}
    body.update(overrides)
    return body


def deploy(api: ApiClient, **overrides: Any) -> str:
    overrides.setdefault("ssh_key_ids", [api.ssh_key()])
    response = api.ok("POST", "/clusters", 202, json=deploy_body(**overrides))
    assert response.headers["content-type"].startswith("application/json")
    return response.json()["id"]


def cluster(api: ApiClient, cluster_id: str) -> dict[str, Any]:
    return api.ok("GET", f"/clusters/{cluster_id}").json()


@pytest.fixture
def running_cluster(api: ApiClient, settle) -> str:
    cluster_id = deploy(api)
    settle()
    assert cluster(api, cluster_id)["status"] == "running"
    return cluster_id


# -- catalog ---------------------------------------------------------------------------------------


def test_cluster_types_images_and_availability(api: ApiClient, anonymous: ApiClient) -> None:
    types = anonymous.ok("GET", "/cluster-types").json()
    by_code = {item["cluster_type"]: item for item in types}
    assert {"16H100", "32H100", "16H200", "32H200", "16B200"} <= set(by_code)
    h100 = by_code["16H100"]
    assert h100["node_details"][0] == "2x 8 GPU nodes" and h100["gpu"]["number_of_gpus"] == 16
    assert h100["currency"] == "usd" and PRICE.match(h100["price_per_hour"]) and float(h100["price_per_hour"]) == 36.64
    assert set(h100) >= {"id", "model", "name", "cpu", "gpu_memory", "memory", "manufacturer", "supported_os"}
    euro = {item["cluster_type"]: item for item in anonymous.ok("GET", "/cluster-types", params={"currency": "eur"}).json()}
    assert euro["16H100"]["currency"] == "eur" and float(euro["16H100"]["price_per_hour"]) < 36.64
    assert_error(anonymous.get("/cluster-types", params={"currency": "gbp"}), 400, "invalid_request", "currency")

    images = api.ok("GET", "/images/cluster").json()
    assert {image["image_type"] for image in images} == set(h100["supported_os"])
    assert all(image["is_cluster"] for image in images)
    assert [image["image_type"] for image in images if image["is_default"]] == [CLUSTER_IMAGE]
    b200 = {image["image_type"] for image in api.ok("GET", "/images/cluster", params={"instance_type": "16B200"}).json()}
    assert b200 == set(by_code["16B200"]["supported_os"]) and "ubuntu-22.04-cuda-12.4-cluster" not in b200
    nodes = api.ok("GET", "/images/cluster", params={"instance_type": "8H100.80S.176V"}).json()
    assert len(nodes) == len(images)
    assert_error(api.get("/images/cluster", params={"instance_type": "99Z999"}), 404, "not_found", "not found")
    assert anonymous.get("/images/cluster").status_code == 401
    assert not any(image["is_cluster"] for image in api.ok("GET", "/images").json())

    everywhere = api.ok("GET", "/cluster-availability").json()
    assert [item["location_code"] for item in everywhere] == ["FIN-01", "FIN-02", "FIN-03", "ICE-01"]
    fin03 = api.ok("GET", "/cluster-availability", params={"location_code": "FIN-03"}).json()
    assert len(fin03) == 1 and "16B200" in fin03[0]["availabilities"]
    assert api.ok("GET", "/cluster-availability", params={"locationCode": "ICE-01"}).json() == [
        {"location_code": "ICE-01", "availabilities": []}
    ]
    assert api.ok("GET", "/cluster-availability/16H100").json() is True
    assert api.ok("GET", "/cluster-availability/16B200", params={"location_code": "FIN-01"}).text == "false"
    assert_error(api.get("/cluster-availability/99Z999"), 404, "not_found")
    assert_error(api.get("/cluster-availability", params={"location_code": "MARS-01"}), 400, "invalid_request", "location")
    assert anonymous.get("/cluster-availability").status_code == 401


# -- deploy, state machine, discontinue --------------------------------------------------------------


def test_deploy_with_every_option_and_lifecycle(api: ApiClient, settle) -> None:
    key_id = api.ssh_key()
    script_id = api.ok("POST", "/scripts", 201, json={"name": "init", "script": "#!/bin/sh"}).text
    datasets = api.create_volume(name="datasets", type="NVMe_Shared", size=500)
    settle()
    cluster_id = deploy(
        api, description="pretraining", contract="PAY_AS_YOU_GO", ssh_key_ids=key_id, startup_script_id=script_id,
        tags=[{"key": "Team", "value": "ml"}, {"key": "gpu"}], existing_volumes=[{"id": datasets}],
        extension_settings="auto_renew", turn_to_pay_as_you_go=True, auto_rental_extension=False,
    )
    ordered = cluster(api, cluster_id)
    assert CLUSTER_FIELDS <= set(ordered)
    assert ordered["status"] == "ordered" and ordered["ip"] is None and ordered["worker_nodes"] == []
    assert ordered["hostname"] == "train" and ordered["description"] == "pretraining"
    assert ordered["ssh_key_ids"] == [key_id] and ordered["startup_script_id"] == script_id
    assert ordered["cluster_type"] == CLUSTER_TYPE and ordered["os_name"] == "Ubuntu 24.04" and ordered["price_per_hour"] == 36.64
    assert ordered["contract"] == "PAY_AS_YOU_GO" and ordered["gpu"]["number_of_gpus"] == 16
    # extension_settings wins over the deprecated flags, which are shown derived from it
    assert ordered["extension_settings"] == "auto_renew"
    assert ordered["auto_rental_extension"] is True and ordered["turn_to_pay_as_you_go"] is False
    assert [tag["key"] for tag in ordered["tags"]] == ["team", "gpu"]
    home, extra = ordered["shared_volumes"]
    assert home["mount_point"] == "/home" and home["name"] == "home" and home["size_in_gigabytes"] == 100
    assert extra == {"id": datasets, "name": "datasets", "mount_point": "/mnt/datasets", "size_in_gigabytes": 500}
    assert [item["id"] for item in api.ok("GET", "/clusters").json()] == [cluster_id]

    shared = api.volume(home["id"])
    assert shared["type"] == "NVMe_Shared_Cluster" and shared["status"] == "attached" and shared["location"] == LOCATION
    assert shared["instance_id"] == cluster_id and shared["instances"][0]["instance_model"]["cluster_model_code"] == CLUSTER_TYPE
    assert api.volume(datasets)["status"] == "attached"

    settle(30)
    assert cluster(api, cluster_id)["status"] == "provisioning" and cluster(api, cluster_id)["ip"] is None
    settle()
    running = cluster(api, cluster_id)
    assert running["status"] == "running" and running["ip"].startswith(("192.0.2.", "198.51.100.", "203.0.113."))
    workers = running["worker_nodes"]
    assert [worker["hostname"] for worker in workers] == ["train-worker-1", "train-worker-2"]
    assert all(worker["status"] == "running" and worker["public_ip"] and worker["private_ip"].startswith("10.") for worker in workers)
    assert len({running["ip"], *(worker["public_ip"] for worker in workers)}) == 3

    # a cluster's shared volumes stay with it
    for action, extra_body in (("detach", {}), ("delete", {}), ("attach", {"instance_id": "x"})):
        assert_error(api.put("/volumes", json={"action": action, "id": home["id"], **extra_body}), 400, "invalid_request", "cluster")
    assert_error(api.delete(f"/volumes/{datasets}"), 400, "invalid_request", "cluster")
    api.volume_action(home["id"], "rename", name="home-renamed")
    assert cluster(api, cluster_id)["shared_volumes"][0]["name"] == "home-renamed"

    api.ok("PUT", "/clusters", 202, json={"actions": [{"action": "discontinue", "id": cluster_id}]})
    deleting = cluster(api, cluster_id)
    assert deleting["status"] == "deleting" and all(worker["status"] == "deleting" for worker in deleting["worker_nodes"])
    assert api.volume(home["id"])["status"] == "attached"
    api.ok("PUT", "/clusters", 202, json={"actions": [{"action": "discontinue", "id": cluster_id}]})  # again: no change
    settle()
    assert_error(api.get(f"/clusters/{cluster_id}"), 404, "not_found", "not found")
    assert api.ok("GET", "/clusters").json() == []
    # shared volumes detached and kept, to be deleted by hand
    for volume_id in (home["id"], datasets):
        volume = api.volume(volume_id)
        assert volume["status"] == "detached" and volume["instances"] == [] and volume["instance_id"] is None
    api.ok("DELETE", f"/volumes/{home['id']}", 202)


def test_deploy_defaults_and_deprecated_flags(api: ApiClient) -> None:
    first = cluster(api, deploy(api, description=None))
    assert first["description"] == "" and first["extension_settings"] == "end_contract" and first["tags"] == []
    assert first["auto_rental_extension"] is False and first["turn_to_pay_as_you_go"] is False
    second = cluster(api, deploy(api, hostname="b", turn_to_pay_as_you_go=True, auto_rental_extension=True))
    assert second["extension_settings"] == "pay_as_you_go" and second["turn_to_pay_as_you_go"] is True
    third = cluster(api, deploy(api, hostname="c", auto_rental_extension=True, ssh_key_ids=api.ssh_key("single")))
    assert third["extension_settings"] == "auto_renew" and len(third["ssh_key_ids"]) == 1


def test_deploy_validation(api: ApiClient, control, settle) -> None:
    assert_error(api.post("/clusters", json=deploy_body()), 400, "invalid_request", "ssh_key_ids")
    key_id = api.ssh_key()
    body = deploy_body(ssh_key_ids=[key_id])
    assert_error(api.post("/clusters", json={k: v for k, v in body.items() if k != "location_code"}), 400, "invalid_request",
                 "location_code")
    assert_error(api.post("/clusters", json={k: v for k, v in body.items() if k != "shared_volume"}), 400, "invalid_request",
                 "shared_volume")
    assert_error(api.post("/clusters", json={**body, "shared_volume": {"name": "h"}}), 400, "invalid_request", "size")
    assert_error(api.post("/clusters", json={**body, "location_code": "MARS-01"}), 400, "invalid_request", "location_code")
    assert_error(api.post("/clusters", json={**body, "cluster_type": "8H100.80S.176V"}), 400, "invalid_request", "cluster_type")
    assert_error(api.post("/clusters", json={**body, "image": "ubuntu-24.04"}), 400, "invalid_request", "cluster image")
    assert_error(api.post("/clusters", json={**body, "cluster_type": "16B200", "image": "ubuntu-22.04-cuda-12.4-cluster"}),
                 400, "invalid_request", "not supported")
    assert_error(api.post("/clusters", json={**body, "hostname": "bad name"}), 400, "invalid_request", "hostname")
    assert_error(api.post("/clusters", json={**body, "contract": "LONG_TERM"}), 400, "invalid_request", "PAY_AS_YOU_GO")
    assert_error(api.post("/clusters", json={**body, "contract": "SPOT"}), 400, "invalid_request", "contract")
    assert_error(api.post("/clusters", json={**body, "extension_settings": "forever"}), 400, "invalid_request", "extension_settings")
    assert_error(api.post("/clusters", json={**body, "ssh_key_ids": ["nope"]}), 400, "invalid_request", "ssh_key_ids")
    assert_error(api.post("/clusters", json={**body, "ssh_key_ids": []}), 400, "invalid_request", "ssh_key_ids")
    assert_error(api.post("/clusters", json={**body, "startup_script_id": "nope"}), 400, "invalid_request", "startup_script_id")
    assert_error(api.post("/clusters", json={**body, "tags": [{"key": str(i)} for i in range(11)]}), 400, "invalid_request", "10")
    assert_error(api.post("/clusters", json=body, headers={"User-Agent": ""}), 400, "invalid_request", "User-Agent")
    plain = api.create_volume(name="plain", type="NVMe")
    ordered = api.create_volume(name="fresh", type="NVMe_Shared")
    elsewhere = api.create_volume(name="far", type="NVMe_Shared", location_code="FIN-02")
    for volume_id, words in ((plain, "shared"), (ordered, "detached"), ("nope", "not found")):
        assert_error(api.post("/clusters", json={**body, "existing_volumes": [{"id": volume_id}]}), 400, "invalid_request", words)
    settle()
    assert_error(api.post("/clusters", json={**body, "existing_volumes": [{"id": elsewhere}]}), 400, "invalid_request", "FIN-02")
    assert api.ok("GET", "/clusters").json() == []
    assert len(api.ok("GET", "/volumes").json()) == 3  # nothing was created by the refused requests

    # capacity: one 16B200 in FIN-03, then 503 and the availability endpoints agree
    b200 = {**body, "cluster_type": "16B200", "location_code": "FIN-03"}
    api.ok("POST", "/clusters", 202, json=b200)
    assert_error(api.post("/clusters", json=b200), 503, "service_unavailable", "16B200")
    assert api.ok("GET", "/cluster-availability/16B200").json() is False
    assert control.cluster_capacity("16B200", "FIN-03") == {
        "cluster_type": "16B200", "location_code": "FIN-03", "is_spot": False, "total": 1, "in_use": 1, "available": 0,
        "scheduled": []}
    assert control.set_cluster_capacity("16B200", "FIN-03", 1)["available"] == 1
    api.ok("POST", "/clusters", 202, json=b200)
    control.set_cluster_capacity(CLUSTER_TYPE, LOCATION, 0)
    assert_error(api.post("/clusters", json=body), 503, "service_unavailable")
    with pytest.raises(EmulatorControlError):
        control.set_capacity("16H100", LOCATION, 1)  # a cluster type is not an instance type
    control.set_cluster_capacity(CLUSTER_TYPE, LOCATION, 5)
    control.set_balance(0)
    assert_error(api.post("/clusters", json=body), 402, "insufficient_funds")


def test_discontinue_checks_every_id_first(api: ApiClient, running_cluster: str) -> None:
    body = {"actions": [{"action": "discontinue", "id": running_cluster}, {"action": "discontinue", "id": "missing"}]}
    assert_error(api.put("/clusters", json=body), 404, "not_found", "missing")
    assert cluster(api, running_cluster)["status"] == "running"
    assert_error(api.put("/clusters", json={"actions": [{"action": "delete", "id": running_cluster}]}), 400, "invalid_request", "action")
    assert_error(api.put("/clusters", json={"actions": []}), 400, "invalid_request", "actions")


# -- node actions ----------------------------------------------------------------------------------


def test_node_actions(api: ApiClient, running_cluster: str, settle) -> None:
    worker, other = cluster(api, running_cluster)["worker_nodes"]
    path = f"/clusters/{running_cluster}/nodes/{worker['id']}/actions"
    response = api.ok("POST", path, 202, json={"action": "shutdown"})
    assert response.content == b""
    assert cluster(api, running_cluster)["worker_nodes"][0]["status"] == "running"  # until the action completes
    api.ok("POST", path, 202, json={"action": "force_shutdown"})  # on its way already
    assert_error(api.post(path, json={"action": "boot"}), 400, "invalid_request", "pending")
    settle()
    nodes = cluster(api, running_cluster)["worker_nodes"]
    assert nodes[0]["status"] == "offline" and nodes[1]["status"] == "running"
    api.ok("POST", path, 202, json={"action": "shutdown"})  # already offline: nothing to do
    api.ok("POST", path, 202, json={"action": "boot"})
    settle()
    assert cluster(api, running_cluster)["worker_nodes"][0]["status"] == "running"

    # the jump host is addressed by the cluster's id; its status is the cluster's
    jump_host = f"/clusters/{running_cluster}/nodes/{running_cluster}/actions"
    api.ok("POST", jump_host, 202, json={"action": "shutdown"})
    settle()
    assert cluster(api, running_cluster)["status"] == "offline"
    api.ok("POST", jump_host, 202, json={"action": "boot"})
    settle()
    assert cluster(api, running_cluster)["status"] == "running"

    assert_error(api.post(path, json={"action": "reboot"}), 400, "invalid_request", "action")
    assert_error(api.post(path, json={}), 400, "invalid_request", "action")
    assert_error(api.post(f"/clusters/{running_cluster}/nodes/nope/actions", json={"action": "boot"}), 404, "not_found", "nope")
    assert_error(api.post(f"/clusters/nope/nodes/{worker['id']}/actions", json={"action": "boot"}), 404, "not_found", "Cluster")
    new = deploy(api, hostname="young")
    assert_error(api.post(f"/clusters/{new}/nodes/{new}/actions", json={"action": "shutdown"}), 400, "invalid_request", "ordered")
    api.ok("PUT", "/clusters", 202, json={"actions": [{"action": "discontinue", "id": running_cluster}]})
    assert_error(api.post(path, json={"action": "shutdown"}), 400, "invalid_request", "deleting")
    assert other["hostname"] == "train-worker-2"


# -- tags, audit, charging ---------------------------------------------------------------------------


def test_cluster_tags(api: ApiClient, running_cluster: str) -> None:
    tag = api.ok("POST", f"/clusters/{running_cluster}/tags", 201, json={"key": "Env", "value": "prod"}).json()
    assert tag["key"] == "env" and tag["value"] == "prod" and tag["id"]
    assert_error(api.post(f"/clusters/{running_cluster}/tags", json={"key": "env", "value": "dev"}), 409, "conflict")
    assert cluster(api, running_cluster)["tags"] == [tag]
    # the same pair has the same id on an instance
    instance_id = api.deploy()
    assert api.ok("POST", f"/instances/{instance_id}/tags", 201, json={"key": "env", "value": "prod"}).json()["id"] == tag["id"]
    api.ok("DELETE", f"/clusters/{running_cluster}/tags/{tag['id']}", 204)
    assert cluster(api, running_cluster)["tags"] == []
    assert_error(api.delete(f"/clusters/{running_cluster}/tags/{tag['id']}"), 404, "not_found")
    api.ok("POST", f"/clusters/{running_cluster}/tags", 201, json={"key": "freeform"})
    api.ok("DELETE", f"/clusters/{running_cluster}/tags/freeform", 204)  # by key
    assert_error(api.post("/clusters/nope/tags", json={"key": "a"}), 404, "not_found")
    assert_error(api.delete("/clusters/nope/tags/a"), 404, "not_found")


def test_audit_events_and_charging(api: ApiClient, control, login, settle) -> None:
    cluster_id = deploy(api, shared_volume={"name": "home", "size": 730})
    settle()
    worker = cluster(api, cluster_id)["worker_nodes"][0]["id"]
    api.ok("POST", f"/clusters/{cluster_id}/nodes/{worker}/actions", 202, json={"action": "shutdown"})
    api.ok("PUT", "/clusters", 202, json={"actions": [{"action": "discontinue", "id": cluster_id}]})
    events = api.ok("GET", "/audit/log", params={"object_type": "compute", "page_size": 100}).json()["data"]
    assert [event["type"].split(".")[-2] for event in events] == ["delete", "shutdown", "create"]
    assert all(event["subject"] == cluster_id and event["data"]["compute"]["cluster_type"] == CLUSTER_TYPE for event in events)
    assert events[1]["data"]["node_id"] == worker
    volume_events = api.ok("GET", "/audit/log", params={"object_type": "volume"}).json()["data"]
    assert volume_events[0]["data"]["volume"]["type"] == "NVMe_Shared_Cluster"

    control.reset()
    api = login()
    cluster_id = deploy(api, shared_volume={"name": "home", "size": 730})
    control.advance_clock(3600)
    api = login()
    # one hour of the cluster (2 x 8 H100 = 36.64) and of its 730 GB shared volume (730 * 0.3 / 730)
    assert api.ok("GET", "/balance").json()["amount"] == pytest.approx(10000 - 36.64 - 0.3, abs=0.01)
    api.ok("PUT", "/clusters", 202, json={"actions": [{"action": "discontinue", "id": cluster_id}]})
    control.advance_clock(3600)
    api = login()
    # discontinued: the cluster stops; its kept shared volume still costs 0.3 per hour
    assert api.ok("GET", "/balance").json()["amount"] == pytest.approx(10000 - 36.64 - 0.6, abs=0.01)


# -- seeding ---------------------------------------------------------------------------------------


def test_seeded_clusters_with_loopback_addresses(api: ApiClient, control, settle) -> None:
    control.update_settings(instance_ip_mode="loopback")
    seeded = control.seed(instances=1, clusters=2, workers_per_cluster=3, hostname_prefix="lab", tags={"fleet": "gpu"})
    assert len(seeded["cluster_ids"]) == 2 and seeded["unsupported"] == []
    listed = api.ok("GET", "/clusters").json()
    assert [item["hostname"] for item in listed] == ["lab-cluster-00001", "lab-cluster-00002"]
    first = listed[0]
    assert first["status"] == "running" and first["cluster_type"] == CLUSTER_TYPE and first["tags"][0]["key"] == "fleet"
    assert first["shared_volumes"][0]["mount_point"] == "/home"
    addresses = [first["ip"], *(worker["public_ip"] for worker in first["worker_nodes"])]
    assert addresses == ["127.1.0.2", "127.1.0.3", "127.1.0.4", "127.1.0.5"]  # after the seeded instance's 127.1.0.1
    assert all(worker["private_ip"] == worker["public_ip"] for worker in first["worker_nodes"])
    assert [worker["hostname"] for worker in first["worker_nodes"]] == [f"lab-cluster-00001-worker-{n}" for n in (1, 2, 3)]

    ordered = control.seed(clusters=1, status="ordered", cluster_type="16H200", location_code="FIN-03")["cluster_ids"][0]
    assert cluster(api, ordered)["status"] == "ordered" and cluster(api, ordered)["worker_nodes"] == []
    settle()
    assert len(cluster(api, ordered)["worker_nodes"]) == 2
    for bad in ({"cluster_type": "nope"}, {"cluster_image": "ubuntu-24.04"}, {"workers_per_cluster": -1}):
        with pytest.raises(EmulatorControlError):
            control.seed(clusters=1, **bad)
