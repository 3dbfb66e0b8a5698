"""Status codes across the API: every operation refuses a request without a valid credential
(401), and the less travelled error paths of deprecated aliases, prices and tags."""

from __future__ import annotations

import re

import requests
from conftest import LOCATION, ApiClient, assert_error

from cloudcompute_emulator import scopes


def test_every_operation_wants_a_credential(anonymous: ApiClient) -> None:
    document = anonymous.ok("GET", "/openapi.json").json()
    checked = 0
    for template, operations in document["paths"].items():
        path = re.sub(r"\{[^/]+\}", "x", template).removeprefix("/v1")
        for method in operations:
            response = anonymous.request(method.upper(), path, json={})
            if scopes.is_public(template):
                assert response.status_code != 401, (method, template)
                continue
            assert_error(response, 401, "unauthorized_request")
            assert response.headers["www-authenticate"].startswith("Bearer")
            assert_error(anonymous.request(method.upper(), path, json={}, headers={"Authorization": "Bearer nope"}),
                         401, "unauthorized_request")
            checked += 1
    assert checked > 80


def test_deprecated_instance_action_alias(api: ApiClient, settle) -> None:
    api.ssh_key()
    instance_id = api.deploy()
    assert_error(api.post("/instances/action", json={"action": "shutdown", "id": instance_id}), 400, "invalid_request", "ordered")
    assert_error(api.post("/instances/action", json={"action": "start", "id": "missing"}), 404, "not_found")
    settle()
    api.ok("POST", "/instances/action", 204, json={"action": "start", "id": instance_id})
    mixed = api.ok("POST", "/instances/action", 207, json={"action": "shutdown", "id": [instance_id, "missing"]}).json()
    assert [item["status"] for item in mixed] == ["success", "error"]
    assert_error(api.get("/instances/availability/9Z999"), 404, "not_found")
    assert_error(api.get("/instances/availability/1V100.6V", params={"location_code": "MARS-01"}), 400, "invalid_request")
    assert_error(api.get("/instance-availability/1V100.6V", params={"is_spot": "perhaps"}), 400, "invalid_request", "is_spot")
    assert_error(api.get("/cluster-availability/16H100", params={"location_code": "MARS-01"}), 400, "invalid_request")
    assert_error(api.get("/instances/types", params={"currency": "gbp"}), 400, "invalid_request", "currency")
    assert_error(api.get(f"/volumes/{instance_id}"), 404, "not_found")


def test_price_currency_and_tag_input_errors(api: ApiClient, emulator_reset, settle) -> None:
    for path in ("/managed-endpoints/pricing", "/container-registry/pricing"):
        assert_error(api.get(path, params={"currency": "gbp"}), 400, "invalid_request", "currency")
    api.ssh_key()
    instance_id = api.deploy()
    cluster_id = api.ok("POST", "/clusters", 202, json={
        "cluster_type": "16H100", "hostname": "c", "image": "ubuntu-24.04-cuda-12.8-cluster", "location_code": LOCATION,
        "shared_volume": {"name": "home", "size": 10}, "ssh_key_ids": [api.ok("GET", "/ssh-keys").json()[0]["id"]]}).json()["id"]
    for prefix in (f"/instances/{instance_id}", f"/clusters/{cluster_id}"):
        assert_error(api.post(prefix + "/tags", json={"key": ""}), 400, "invalid_request", "key")
        assert_error(api.post(prefix + "/tags", json={"key": "k" * 64}), 400, "invalid_request", "key")
        for index in range(10):
            api.ok("POST", prefix + "/tags", 201, json={"key": f"t{index}"})
        assert_error(api.post(prefix + "/tags", json={"key": "eleventh"}), 400, "invalid_request", "10")
    assert_error(api.post("/sshkeys", json={"name": "k"}), 400, "invalid_request", "key")
    assert_error(api.post("/container-deployments/x/environment-variables", json={"container_name": "c", "env": []}), 404, "not_found")
    assert_error(api.request("DELETE", "/container-deployments/x/environment-variables", json={"container_name": "c", "env": []}),
                 404, "not_found")
    assert_error(api.request("DELETE", "/scripts", json={"scripts": "not-a-list"}), 400, "invalid_request", "scripts")
    assert_error(api.delete("/scripts/ghost"), 404, "not_found")
    volume_id = api.create_volume()
    tag = api.ok("POST", f"/volumes/{volume_id}/tags", 201, json={"key": "a"}).json()
    settle()
    api.ok("DELETE", f"/volumes/{volume_id}", 202)
    assert_error(api.delete(f"/volumes/{volume_id}/tags/{tag['id']}"), 403, "forbidden_action", "deleted")
    assert_error(api.request("PATCH", "/container-deployments/x/environment-variables", json={"container_name": "c", "env": []}),
                 404, "not_found")
    api.ok("POST", "/job-deployments", 201, json={"name": "j", "containers": [{"image": "w"}], "compute": {"name": "A100", "size": 1}})
    assert_error(api.request("PATCH", "/job-deployments/j", json={"compute": {"name": "B200", "size": 1}}), 503, "service_unavailable")
    emulator_reset.control.set_balance(0)
    assert_error(api.post("/container-deployment-templates/vllm/deployments", json={"name": "chat"}), 402, "insufficient_funds")
    # the deployed endpoint of a paused job answers 503
    api.ok("POST", "/job-deployments/j/pause", 201)
    answer = requests.post(emulator_reset.base_url + "/inference/j", timeout=5,
                           headers={"Authorization": f"Bearer {emulator_reset.inference_api_key}"})
    assert_error(answer, 503, "service_unavailable", "paused")
