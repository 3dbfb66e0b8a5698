"""Serverless: container deployments (state machine on the clock, restart, pause/resume, scaling,
replicas, environment variables, delete with timeout), templates, job deployments, compute
resources, container types and prices; access token and inference key alike."""

from __future__ import annotations

import re
from typing import Any

import pytest
import requests
from conftest import ApiClient, assert_error

PRICE = re.compile(r"^\d+(\.\d+)?$")
DEPLOYMENT_FIELDS = {"name", "container_registry_settings", "containers", "compute", "scaling", "is_spot", "endpoint_base_url", "created_at"}


def container_body(**overrides: Any) -> dict[str, Any]:
    body = {"name": "web", "containers": [{"image": "nginx:1.27", "exposed_port": 80}], "compute": {"name": "L40S", "size": 1}}
    body.update(overrides)
    return body


def job_body(**overrides: Any) -> dict[str, Any]:
    body = {"name": "batch", "containers": [{"image": "worker:1"}], "compute": {"name": "A100", "size": 1}}
    body.update(overrides)
    return body


def status(api: ApiClient, name: str, kind: str = "container-deployments") -> str:
    return api.ok("GET", f"/{kind}/{name}/status").json()["status"]


@pytest.fixture
def inference(emulator_reset) -> ApiClient:
    """A client that sends the project's inference API key as its bearer credential."""
    return ApiClient(emulator_reset.api_url, emulator_reset.inference_api_key)


# -- container deployments -------------------------------------------------------------------------


def test_container_deployment_lifecycle(api: ApiClient, inference: ApiClient, settle, emulator_reset) -> None:
    api.ok("POST", "/secrets", 201, json={"name": "api-token", "value": "s3cret"})
    api.ok("POST", "/file-secrets", 201, json={"name": "keys", "files": [{"file_name": "id", "base64_content": "a2V5"}]})
    created = inference.ok("POST", "/container-deployments", 201, json=container_body(
        is_spot=True, containers=[{"image": "nginx:1.27", "exposed_port": 80, "name": "front",
                                   "env": [{"type": "plain", "name": "MODE", "value_or_reference_to_secret": "prod"},
                                           {"type": "secret", "name": "TOKEN", "value_or_reference_to_secret": "api-token"}],
                                   "volume_mounts": [{"type": "shared"}, {"type": "memory", "size_in_mb": 512},
                                                     {"type": "secret", "mount_path": "/etc/keys", "secret_name": "keys"}],
                                   "entrypoint_overrides": {"enabled": True, "cmd": ["serve"]}}],
        scaling={"min_replica_count": 2, "max_replica_count": 4, "scaling_triggers": {"gpu_utilization": {"enabled": True, "threshold": 80}}},
    )).json()
    assert set(created) == DEPLOYMENT_FIELDS and created["is_spot"] is True
    assert created["endpoint_base_url"] == emulator_reset.base_url + "/inference/web"
    assert created["container_registry_settings"] == {"is_private": False, "credentials": None}
    [container] = created["containers"]
    assert container["name"] == "front" and container["image"]["image"] == "nginx:1.27" and container["image"]["last_updated_at"]
    assert container["healthcheck"] == {"enabled": True, "port": 80, "path": "/health"}
    assert container["entrypoint_overrides"] == {"enabled": True, "entrypoint": [], "cmd": ["serve"]}
    assert [(mount["type"], mount["mount_path"]) for mount in container["volume_mounts"]] == [
        ("shared", "/data"), ("memory", "/dev/shm"), ("secret", "/etc/keys")]
    assert container["volume_mounts"][1]["size_in_mb"] == 512
    scaling = created["scaling"]
    assert scaling["min_replica_count"] == 2 and scaling["max_replica_count"] == 4
    assert scaling["scaling_triggers"]["gpu_utilization"] == {"enabled": True, "threshold": 80}
    assert scaling["scaling_triggers"]["cpu_utilization"] == {"enabled": False, "threshold": 90}  # defaults fill the rest
    assert scaling["scale_down_policy"] == {"delay_seconds": 300} and scaling["queue_message_ttl_seconds"] == 3600
    assert api.ok("GET", "/container-deployments").json() == [created]
    assert api.ok("GET", "/container-deployments/web").json() == created

    # initializing -> image_pulling -> healthy on the clock (realistic profile: 20 s, then 60 s)
    assert status(api, "web") == "initializing"
    starting = api.ok("GET", "/container-deployments/web/replicas").json()["list"]
    assert len(starting) == 2 and {replica["status"] for replica in starting} == {"starting"}
    settle(25)
    assert status(api, "web") == "image_pulling"
    endpoint = requests.get(created["endpoint_base_url"] + "/v1/models", headers=inference.session.headers, timeout=5)
    assert endpoint.status_code == 503
    settle(60)
    assert status(api, "web") == "healthy"
    replicas = api.ok("GET", "/container-deployments/web/replicas").json()["list"]
    assert len(replicas) == 2 and all(replica["status"] == "running" and replica["started_at"].endswith("Z") for replica in replicas)
    answer = requests.post(created["endpoint_base_url"] + "/generate?x=1", json={"prompt": "hi"}, headers=inference.session.headers, timeout=5)
    assert answer.status_code == 200 and answer.json()["body"] == {"prompt": "hi"} and answer.json()["path"] == "/generate"
    assert requests.get(created["endpoint_base_url"], timeout=5).status_code == 401  # the deployed endpoint wants the inference key
    assert requests.get(emulator_reset.base_url + "/inference/nope", headers=inference.session.headers, timeout=5).status_code == 404

    # restart: initializing -> healthy, new replicas
    assert api.ok("POST", "/container-deployments/web/restart", 201).content == b""
    assert status(api, "web") == "initializing"
    settle()
    assert status(api, "web") == "healthy"
    assert {r["id"] for r in api.ok("GET", "/container-deployments/web/replicas").json()["list"]}.isdisjoint({r["id"] for r in replicas})

    # pause / resume
    api.ok("POST", "/container-deployments/web/pause", 201)
    assert status(api, "web") == "paused" and api.ok("GET", "/container-deployments/web/replicas").json() == {"list": []}
    api.ok("POST", "/container-deployments/web/pause", 201)  # again: no change
    assert_error(api.post("/container-deployments/web/restart"), 400, "invalid_request", "paused")
    api.ok("POST", "/container-deployments/web/resume", 201)
    assert status(api, "web") == "initializing"
    settle()
    assert status(api, "web") == "healthy"
    api.ok("POST", "/container-deployments/web/resume", 201)  # not paused: no change
    api.ok("POST", "/container-deployments/web/purge-queue", 201)

    # delete without waiting: hidden at once, name kept until gone
    api.ok("DELETE", "/container-deployments/web", 202, params={"timeout": 0})
    assert_error(api.get("/container-deployments/web"), 404, "not_found", "not found")
    assert api.ok("GET", "/container-deployments").json() == []
    assert_error(api.post("/container-deployments", json=container_body()), 409, "conflict", "being deleted")
    settle(30)
    api.ok("POST", "/container-deployments", 201, json=container_body())
    # the default wait (60 s) covers the removal (20 s): gone when the call returns
    api.ok("DELETE", "/container-deployments/web", 204)
    api.ok("POST", "/container-deployments", 201, json=container_body())
    for timeout in (-1, 300_001, "soon"):
        assert_error(api.delete("/container-deployments/web", params={"timeout": timeout}), 400, "invalid_request", "timeout")
    kinds = {event["type"].split(".")[-2] for event in api.ok("GET", "/audit/log", params={
        "object_type": "container_deployment", "page_size": 100}).json()["data"]}
    assert kinds == {"create", "start", "shutdown", "other", "delete"}


def test_container_deployment_validation(api: ApiClient, control) -> None:
    api.ok("POST", "/container-registry-credentials", 201, json={"name": "ghcr", "type": "ghcr", "username": "me", "access_token": "t"})
    for body, words in (
        (container_body(name="Web_1"), "name"),
        (container_body(name="x" * 64), "name"),
        (container_body(containers=[]), "containers"),
        (container_body(compute={"name": "H100", "size": 3}), "compute"),
        (container_body(compute={"name": "TPU", "size": 1}), "compute"),
        (container_body(containers=[{"image": "a", "exposed_port": 70000}]), "exposed_port"),
        (container_body(containers=[{"image": "a"}, {"image": "b", "name": "container-1"}]), "same name"),
        (container_body(containers=[{"image": "a", "env": [{"name": "A", "value_or_reference_to_secret": "1"}] * 2}]), "more than once"),
        (container_body(containers=[{"image": "a", "env": [{"name": "1A", "value_or_reference_to_secret": "1"}]}]), "name"),
        (container_body(containers=[{"image": "a", "volume_mounts": [{"type": "secret", "mount_path": "/s"}]}]), "secret_name"),
        (container_body(containers=[{"image": "a", "volume_mounts": [{"type": "shared", "volume_id": "ghost"}]}]), "volume_id"),
        (container_body(containers=[{"image": "a", "volume_mounts": [{"type": "scratch"}, {"type": "shared"}]}]), "same path"),
        (container_body(container_registry_settings={"is_private": True}), "credentials"),
        (container_body(scaling={"min_replica_count": 3, "max_replica_count": 2}), "min_replica_count"),
        (container_body(scaling={"max_replica_count": 0}), "max_replica_count"),
        ({k: v for k, v in container_body().items() if k != "compute"}, "compute"),
    ):
        assert_error(api.post("/container-deployments", json=body), 400, "invalid_request", words)
    assert_error(api.post("/container-deployments", json=container_body(compute={"name": "B200", "size": 1})), 503, "service_unavailable")
    api.ok("POST", "/container-deployments", 201, json=container_body(
        container_registry_settings={"is_private": True, "credentials": {"name": "ghcr"}}))
    assert_error(api.post("/container-deployments", json=container_body()), 409, "conflict", "web")
    control.set_balance(0)
    assert_error(api.post("/container-deployments", json=container_body(name="other")), 402, "insufficient_funds")
    assert [item["name"] for item in api.ok("GET", "/container-deployments").json()] == ["web"]
    for method, suffix in (("GET", ""), ("PATCH", ""), ("DELETE", ""), ("GET", "/status"), ("POST", "/restart"), ("POST", "/pause"),
                           ("POST", "/resume"), ("POST", "/purge-queue"), ("GET", "/scaling"), ("PATCH", "/scaling"),
                           ("GET", "/replicas"), ("GET", "/environment-variables")):
        response = api.request(method, f"/container-deployments/ghost{suffix}", json={} if method == "PATCH" else None)
        assert_error(response, 404, "not_found", "ghost")


def test_container_patch_scaling_and_environment(api: ApiClient, settle) -> None:
    created = api.ok("POST", "/container-deployments", 201, json=container_body()).json()
    settle()
    assert status(api, "web") == "healthy"
    # scaling alone: no new version
    scaled = api.ok("PATCH", "/container-deployments/web", json={"scaling": {"min_replica_count": 0, "max_replica_count": 3}}).json()
    assert scaled["scaling"]["max_replica_count"] == 3 and status(api, "web") == "healthy"
    assert api.ok("GET", "/container-deployments/web/replicas").json() == {"list": []}  # scaled to zero
    # the same containers, read back (image as an object): no change at all
    same = api.ok("PATCH", "/container-deployments/web", json={"containers": scaled["containers"], "name": "web"}).json()
    assert same == scaled and status(api, "web") == "healthy"
    settle(5)
    updated = api.ok("PATCH", "/container-deployments/web", json={
        "containers": [{**scaled["containers"][0], "image": "nginx:1.28"}], "compute": {"name": "H100", "size": 2}}).json()
    assert updated["containers"][0]["image"]["image"] == "nginx:1.28" and updated["compute"] == {"name": "H100", "size": 2}
    assert updated["containers"][0]["image"]["last_updated_at"] > created["containers"][0]["image"]["last_updated_at"]
    assert status(api, "web") == "version_updating"
    settle()
    assert status(api, "web") == "healthy"
    assert_error(api.request("PATCH", "/container-deployments/web", json={"name": "renamed"}), 400, "invalid_request", "immutable")
    # the name identifies the container being updated: missing or null is refused, naming the field
    for container in ({"image": "nginx:1.29"}, {"image": "nginx:1.29", "name": None}):
        assert_error(api.request("PATCH", "/container-deployments/web", json={"containers": [updated["containers"][0], container]}),
                     400, "invalid_request", "containers.1.name")
    assert_error(api.request("PATCH", "/container-deployments/web", json={"compute": {"name": "B200", "size": 1}}), 503,
                 "service_unavailable")

    assert api.ok("GET", "/container-deployments/web/scaling").json() == updated["scaling"]
    scaling = api.ok("PATCH", "/container-deployments/web/scaling", json={"scale_up_policy": {"delay_seconds": 30}}).json()
    assert scaling["scale_up_policy"] == {"delay_seconds": 30} and scaling["max_replica_count"] == 3
    assert_error(api.request("PATCH", "/container-deployments/web/scaling", json={"min_replica_count": 9}), 400, "invalid_request")

    path = "/container-deployments/web/environment-variables"
    assert api.ok("GET", path).json() == [{"container_name": "container-1", "env": []}]
    plain = {"type": "plain", "name": "LEVEL", "value_or_reference_to_secret": "info"}
    added = api.ok("POST", path, json={"container_name": "container-1", "env": [plain]}).json()
    assert added == [{"container_name": "container-1", "env": [plain]}] and status(api, "web") == "version_updating"
    assert_error(api.post(path, json={"container_name": "container-1", "env": [plain]}), 409, "conflict", "LEVEL")
    assert_error(api.post(path, json={"container_name": "sidecar", "env": [plain]}), 400, "invalid_request", "sidecar")
    changed = api.ok("PATCH", path, json={"container_name": "container-1", "env": [{**plain, "value_or_reference_to_secret": "debug"}]}).json()
    assert changed == {"container_name": "container-1", "env": [{**plain, "value_or_reference_to_secret": "debug"}]}
    assert_error(api.request("PATCH", path, json={"container_name": "container-1", "env": [{**plain, "name": "NEW"}]}), 400,
                 "invalid_request", "NEW")
    assert_error(api.request("DELETE", path, json={"container_name": "container-1", "env": ["NOPE"]}), 400, "invalid_request", "NOPE")
    assert api.ok("DELETE", path, json={"container_name": "container-1", "env": ["LEVEL"]}).json() == [
        {"container_name": "container-1", "env": []}]
    assert api.ok("GET", "/container-deployments/web").json()["containers"][0]["env"] == []


def test_inference_key_and_access_token(api: ApiClient, inference: ApiClient, control, emulator_reset) -> None:
    inference.ok("POST", "/job-deployments", 201, json=job_body())
    assert [item["name"] for item in api.ok("GET", "/job-deployments").json()] == ["batch"]
    for path in ("/container-deployments", "/container-deployment-templates", "/serverless-compute-resources", "/job-deployments/batch"):
        inference.ok("GET", path)
    # the inference key reaches the serverless endpoints only
    assert_error(inference.get("/instances"), 401, "unauthorized_request")
    assert_error(inference.get("/balance"), 401, "unauthorized_request")
    other_project_key = control.create_inference_key(project_id="elsewhere")
    assert ApiClient(emulator_reset.api_url, other_project_key).ok("GET", "/job-deployments").json() == []
    assert_error(ApiClient(emulator_reset.api_url, "ccik-wrong").get("/job-deployments"), 401, "unauthorized_request")
    assert_error(ApiClient(emulator_reset.api_url).get("/container-deployments"), 401, "unauthorized_request")
    entries = control.requests(path="/v1/job-deployments*")["requests"]
    assert entries[0]["auth"] == "inference_key" and entries[0]["client_id"] is None
    assert "inference_key" in {entry["auth"] for entry in entries} and "bearer" in {entry["auth"] for entry in entries}
    event = api.ok("GET", "/audit/log", params={"object_type": "job_deployment"}).json()["data"][0]
    assert event["subject"] == "batch" and event["data"]["client_id"] is None and event["data"]["job_deployment"]["name"] == "batch"
    document = api.ok("GET", "/openapi.json").json()
    assert {"bearer": []} in document["paths"]["/v1/job-deployments"]["get"]["security"]
    assert {"inference_key": []} in document["paths"]["/v1/job-deployments"]["get"]["security"]


# -- templates, compute resources, container types, prices -------------------------------------------


def test_templates(api: ApiClient, settle) -> None:
    api.ok("POST", "/secrets", 201, json={"name": "hf-token", "value": "hf_x"})
    templates = api.ok("GET", "/container-deployment-templates").json()
    by_code = {template["code"]: template for template in templates}
    assert {"vllm", "sglang", "comfyui", "text-embeddings-inference"} <= set(by_code)
    vllm = by_code["vllm"]
    assert vllm["recommended_compute"] == {"name": "L40S", "size": 1} and vllm["default_variant"] == "llama-3.1-8b-instruct"
    detail = api.ok("GET", f"/container-deployment-templates/{vllm['id']}").json()
    assert api.ok("GET", "/container-deployment-templates/vllm").json() == detail
    assert {variant["id"] for variant in detail["variants"]} >= {"llama-3.1-8b-instruct", "llama-3.3-70b-instruct"}
    assert {feature["id"]: feature["enabled_by_default"] for feature in detail["features"]} == {"prefix-caching": True, "tool-calling": False}
    assert_error(api.get("/container-deployment-templates/nope"), 404, "not_found")

    default = api.ok("POST", "/container-deployment-templates/vllm/deployments", 201, json={"name": "chat"}).json()
    [container] = default["containers"]
    assert container["image"]["image"] == "vllm/vllm-openai:v0.8.5" and default["compute"] == {"name": "L40S", "size": 1}
    env = {variable["name"]: variable["value_or_reference_to_secret"] for variable in container["env"]}
    assert env == {"MODEL_NAME": "meta-llama/Llama-3.1-8B-Instruct", "VLLM_ENABLE_PREFIX_CACHING": "1"}
    assert container["volume_mounts"][0]["mount_path"] == "/data"
    big = api.ok("POST", f"/container-deployment-templates/{vllm['id']}/deployments", 201, json={
        "name": "big-chat", "variant": "llama-3.3-70b-instruct", "features": ["tool-calling"], "hugging_face_token_secret": "hf-token",
        "shared_memory_size_in_mb": 2048, "scaling": {"max_replica_count": 2}, "is_spot": True}).json()
    env = {variable["name"]: variable for variable in big["containers"][0]["env"]}
    assert env["HF_TOKEN"] == {"type": "secret", "name": "HF_TOKEN", "value_or_reference_to_secret": "hf-token"}
    assert "VLLM_ENABLE_PREFIX_CACHING" not in env and env["VLLM_TOOL_CALL_PARSER"]["value_or_reference_to_secret"] == "hermes"
    assert big["compute"] == {"name": "H100", "size": 4} and big["is_spot"] and big["scaling"]["max_replica_count"] == 2
    assert big["containers"][0]["volume_mounts"][1] == {"type": "memory", "mount_path": "/dev/shm", "secret_name": None,
                                                        "volume_id": None, "size_in_mb": 2048}
    assert status(api, "big-chat") == "initializing"
    settle()
    assert status(api, "big-chat") == "healthy"
    for body, code, words in (
        ({"name": "x", "variant": "gpt-5"}, 400, "variant"),
        ({"name": "x", "features": ["telepathy"]}, 400, "features"),
        ({"name": "x", "compute": {"name": "B200", "size": 8}}, 503, None),
        ({"name": "chat"}, 409, "chat"),
        ({}, 400, "name"),
    ):
        assert_error(api.post("/container-deployment-templates/vllm/deployments", json=body), code,
                     {400: "invalid_request", 409: "conflict", 503: "service_unavailable"}[code], words)
    assert_error(api.post("/container-deployment-templates/nope/deployments", json={"name": "x"}), 404, "not_found")


def test_compute_resources_container_types_and_prices(api: ApiClient, anonymous: ApiClient) -> None:
    resources = api.ok("GET", "/serverless-compute-resources").json()
    assert {"name": "H100", "size": 1, "is_available": True} in resources
    assert {"name": "B200", "size": 8, "is_available": False} in resources
    types = anonymous.ok("GET", "/container-types").json()
    assert len(types) == len(resources)
    h100 = next(item for item in types if item["instance_type"] == "1H100.80S.30V")
    assert h100["model"] == "H100" and h100["gpu"]["number_of_gpus"] == 1 and h100["currency"] == "usd"
    assert PRICE.match(h100["serverless_price"]) and PRICE.match(h100["serverless_spot_price"])
    instance_h100 = next(item for item in anonymous.ok("GET", "/instance-types").json() if item["instance_type"] == "1H100.80S.30V")
    assert h100["serverless_price"] == instance_h100["serverless_price"]
    euro = next(item for item in anonymous.ok("GET", "/container-types", params={"currency": "eur"}).json()
                if item["instance_type"] == "1H100.80S.30V")
    assert euro["currency"] == "eur" and float(euro["serverless_price"]) < float(h100["serverless_price"])
    assert_error(anonymous.get("/container-types", params={"currency": "gbp"}), 400, "invalid_request", "currency")

    prices = api.ok("GET", "/managed-endpoints/pricing").json()
    assert prices and all(set(price) == {"currency", "external_id", "resource", "unit_name", "unit_price"} for price in prices)
    assert {"input_token", "output_token", "image", "audio_second"} <= {price["unit_name"] for price in prices}
    assert all(price["currency"] == "usd" for price in prices)
    assert api.ok("GET", "/managed-endpoints/pricing", params={"currency": "eur"}).json()[0]["currency"] == "eur"
    assert api.ok("GET", "/container-registry/pricing").json() == {"currency": "usd", "price_per_month_per_gb": 0.1}
    assert anonymous.get("/managed-endpoints/pricing").status_code == 401
    assert anonymous.get("/container-registry/pricing").status_code == 401


# -- job deployments ---------------------------------------------------------------------------------


def test_job_deployment_lifecycle(api: ApiClient, settle, emulator_reset) -> None:
    created = api.ok("POST", "/job-deployments", 201, json=job_body(scaling={"max_replica_count": 5, "deadline_seconds": 600})).json()
    assert set(created) == DEPLOYMENT_FIELDS - {"is_spot"}
    assert created["scaling"] == {"max_replica_count": 5, "queue_message_ttl_seconds": 3600, "deadline_seconds": 600}
    assert created["containers"][0]["exposed_port"] == 8000 and created["endpoint_base_url"].endswith("/inference/batch")
    assert api.ok("GET", "/job-deployments").json() == [created] and api.ok("GET", "/job-deployments/batch").json() == created
    assert status(api, "batch", "job-deployments") == "running"
    assert api.ok("GET", "/job-deployments/batch/scaling").json() == created["scaling"]
    queued = requests.post(created["endpoint_base_url"], json={"input": 1}, timeout=5,
                           headers={"Authorization": f"Bearer {emulator_reset.inference_api_key}"})
    assert queued.status_code == 202 and queued.json()["status"] == "queued"

    api.ok("POST", "/job-deployments/batch/pause", 201)
    assert status(api, "batch", "job-deployments") == "paused"
    api.ok("POST", "/job-deployments/batch/pause", 201)
    api.ok("POST", "/job-deployments/batch/resume", 201)
    assert status(api, "batch", "job-deployments") == "running"
    api.ok("POST", "/job-deployments/batch/purge-queue", 201)

    patched = api.ok("PATCH", "/job-deployments/batch", json={"scaling": {"max_replica_count": 2}, "name": "batch",
                                                               "containers": [{"image": "worker:2", "name": "container-1"}]}).json()
    assert patched["scaling"]["max_replica_count"] == 2 and patched["scaling"]["deadline_seconds"] == 3600  # replaced whole
    assert patched["containers"][0]["image"]["image"] == "worker:2" and api.ok("GET", "/job-deployments/batch").json() == patched
    assert_error(api.request("PATCH", "/job-deployments/batch", json={"name": "other"}), 400, "invalid_request", "immutable")
    assert_error(api.request("PATCH", "/job-deployments/batch", json={"compute": {"name": "H100", "size": 5}}), 400, "invalid_request")

    api.ok("DELETE", "/job-deployments/batch", 202, params={"timeout": 0})
    assert status(api, "batch", "job-deployments") == "terminating"
    for action in ("pause", "resume", "purge-queue"):
        assert_error(api.post(f"/job-deployments/batch/{action}"), 400, "invalid_request", "being deleted")
    assert_error(api.request("PATCH", "/job-deployments/batch", json={}), 400, "invalid_request", "being deleted")
    assert_error(api.post("/job-deployments", json=job_body()), 409, "conflict", "being deleted")
    settle(30)
    assert_error(api.get("/job-deployments/batch"), 404, "not_found", "not found")
    api.ok("POST", "/job-deployments", 201, json=job_body())
    api.ok("DELETE", "/job-deployments/batch", 204, params={"timeout": 300_000})
    assert api.ok("GET", "/job-deployments").json() == []
    assert_error(api.delete("/job-deployments/batch", params={"timeout": 300_001}), 400, "invalid_request", "timeout")


def test_job_deployment_validation(api: ApiClient, anonymous: ApiClient, control) -> None:
    for body, words in (
        (job_body(name="Batch!"), "name"),
        (job_body(containers=[]), "containers"),
        (job_body(compute={"name": "A100", "size": 3}), "compute"),
        (job_body(scaling={"deadline_seconds": 0}), "deadline_seconds"),
        (job_body(container_registry_settings={"is_private": True}), "credentials"),
    ):
        assert_error(api.post("/job-deployments", json=body), 400, "invalid_request", words)
    assert_error(api.post("/job-deployments", json=job_body(compute={"name": "B200", "size": 2})), 503, "service_unavailable")
    api.ok("POST", "/job-deployments", 201, json=job_body())
    assert_error(api.post("/job-deployments", json=job_body()), 409, "conflict")
    assert_error(api.request("PATCH", "/job-deployments/batch", json={"containers": [{"image": "worker:2"}]}),
                 400, "invalid_request", "containers.0.name")
    control.set_balance(-1)
    assert_error(api.post("/job-deployments", json=job_body(name="more")), 402, "insufficient_funds")
    for method, suffix in (("GET", ""), ("PATCH", ""), ("DELETE", ""), ("GET", "/status"), ("GET", "/scaling"), ("POST", "/pause"),
                           ("POST", "/resume"), ("POST", "/purge-queue")):
        response = api.request(method, f"/job-deployments/ghost{suffix}", json={} if method == "PATCH" else None)
        assert_error(response, 404, "not_found", "ghost")
        assert_error(anonymous.request(method, f"/job-deployments/batch{suffix}"), 401, "unauthorized_request")
