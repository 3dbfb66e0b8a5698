"""Serverless supporting resources: secrets, file secrets, container registry credentials, and
container/job deployments that refer to them."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from conftest import ApiClient, assert_error

FILES = [{"file_name": "tls.crt", "base64_content": base64.b64encode(b"cert").decode()},
         {"file_name": "tls.key", "base64_content": base64.b64encode(b"key").decode()}]
DOCKERHUB = {"name": "hub", "type": "dockerhub", "username": "me", "access_token": "dckr_pat_x"}


def deployment(**overrides: Any) -> dict[str, Any]:
    container = {"image": "registry.example.com/web:1", "name": "web",
                 "env": [{"type": "secret", "name": "DB_PASSWORD", "value_or_reference_to_secret": "db-password"}],
                 "volume_mounts": [{"type": "secret", "mount_path": "/etc/tls", "secret_name": "tls"}]}
    body = {"name": "web", "containers": [container], "compute": {"name": "L40S", "size": 1},
            "container_registry_settings": {"is_private": True, "credentials": {"name": "hub"}}}
    body.update(overrides)
    return body


def test_create_list_delete(api: ApiClient, anonymous: ApiClient) -> None:
    created = api.ok("POST", "/secrets", 201, json={"name": "db-password", "value": "hunter2"})
    assert created.json() == {}
    assert api.ok("POST", "/file-secrets", 201, json={"name": "tls", "files": FILES}).json() == {}
    assert api.ok("POST", "/container-registry-credentials", 201, json=DOCKERHUB).json() == {}
    listed = api.ok("GET", "/secrets").json()
    assert [(item["name"], item["secret_type"]) for item in listed] == [("db-password", "generic"), ("tls", "file-secret")]
    assert set(listed[0]) == {"name", "created_at", "secret_type"}
    assert api.ok("GET", "/file-secrets").json() == [{**listed[1], "file_names": ["tls.crt", "tls.key"]}]
    assert [set(item) for item in api.ok("GET", "/container-registry-credentials").json()] == [{"name", "created_at"}]
    # no value anywhere, not even in the raw state
    assert "hunter2" not in str(listed) and "dckr_pat_x" not in api.get("/container-registry-credentials").text
    for path in ("/secrets/db-password", "/file-secrets/tls", "/container-registry-credentials/hub"):
        api.ok("DELETE", path, 200)
        assert_error(api.delete(path), 404, "not_found")
        assert_error(anonymous.delete(path), 401, "unauthorized_request")
    assert api.ok("GET", "/secrets").json() == [] and api.ok("GET", "/container-registry-credentials").json() == []


@pytest.mark.parametrize(("path", "body", "words"), [
    ("/secrets", {"name": "Upper", "value": "x"}, "name"),
    ("/secrets", {"name": "9lives", "value": "x"}, "name"),
    ("/secrets", {"name": "a" * 64, "value": "x"}, "name"),
    ("/secrets", {"name": "ok"}, "value"),
    ("/file-secrets", {"name": "ok", "files": []}, "files"),
    ("/file-secrets", {"name": "ok", "files": [{"file_name": "a/b", "base64_content": "eA=="}]}, "file_name"),
    ("/file-secrets", {"name": "ok", "files": [{"file_name": "a", "base64_content": "not base64!"}]}, "files.0.base64_content"),
    ("/file-secrets", {"name": "ok", "files": [{"file_name": "a", "base64_content": "eA=="}] * 2}, "more than once"),
    ("/file-secrets", {"name": "ok", "files": [{"file_name": "a", "base64_content": base64.b64encode(b"x" * (1024 * 1024 + 1)).decode()}]},
     "bytes"),
    ("/container-registry-credentials", {"name": "ok", "type": "quay"}, "type"),
    ("/container-registry-credentials", {"name": "ok", "type": "dockerhub", "username": "me"}, "access_token"),
    ("/container-registry-credentials", {**DOCKERHUB, "name": "ok", "region": "eu-west-1"}, "region"),
    ("/container-registry-credentials", {"name": "ok", "type": "aws-ecr", "access_key_id": "a", "secret_access_key": "b",
                                         "region": "eu-west-1"}, "ecr_repo"),
])
def test_validation(api: ApiClient, path: str, body: dict[str, Any], words: str) -> None:
    assert_error(api.post(path, json=body), 400, "invalid_request", words)


def test_every_registry_type_and_duplicate_names(api: ApiClient) -> None:
    for body in (DOCKERHUB, {"name": "gh", "type": "ghcr", "username": "me", "access_token": "t"},
                 {"name": "gcr", "type": "gcr", "service_account_key": '{"type": "service_account"}'},
                 {"name": "ecr", "type": "aws-ecr", "access_key_id": "a", "secret_access_key": "b", "region": "r", "ecr_repo": "x"},
                 {"name": "own", "type": "custom", "docker_config_json": '{"auths": {}}'},
                 {"name": "scw", "type": "scaleway", "scaleway_domain": "rg.fr-par.scw.cloud", "scaleway_uuid": "u"}):
        api.ok("POST", "/container-registry-credentials", 201, json=body)
    assert_error(api.post("/container-registry-credentials", json=DOCKERHUB), 409, "conflict", "hub")
    api.ok("POST", "/secrets", 201, json={"name": "shared-name", "value": "x"})
    # secrets and file secrets share one namespace (one list)
    assert_error(api.post("/file-secrets", json={"name": "shared-name", "files": FILES}), 409, "conflict", "shared-name")
    assert_error(api.post("/secrets", json={"name": "shared-name", "value": "y"}), 409, "conflict")


def test_references_from_deployments(api: ApiClient, settle) -> None:
    # each missing reference is refused, naming it
    assert_error(api.post("/container-deployments", json=deployment()), 400, "invalid_request", "volume_mounts[0].secret_name")
    api.ok("POST", "/file-secrets", 201, json={"name": "tls", "files": FILES})
    assert_error(api.post("/container-deployments", json=deployment()), 400, "invalid_request", "db-password")
    api.ok("POST", "/secrets", 201, json={"name": "db-password", "value": "hunter2"})
    assert_error(api.post("/container-deployments", json=deployment()), 400, "invalid_request", "credentials.name")
    api.ok("POST", "/container-registry-credentials", 201, json=DOCKERHUB)
    api.ok("POST", "/container-deployments", 201, json=deployment())
    api.ok("POST", "/job-deployments", 201, json=deployment(name="batch", containers=[{"image": "worker:1", "name": "worker"}]))
    assert_error(api.post("/container-deployment-templates/vllm/deployments",
                          json={"name": "chat", "hugging_face_token_secret": "hf-token"}), 400, "invalid_request", "hf-token")
    # in use: refused naming the deployment, unless forced
    assert_error(api.delete("/secrets/db-password"), 409, "conflict", "container deployment web")
    assert_error(api.delete("/file-secrets/tls"), 409, "conflict", "container deployment web")
    message = api.delete("/container-registry-credentials/hub").json()["message"]
    assert "container deployment web" in message and "job deployment batch" in message
    api.ok("DELETE", "/secrets/db-password", 200, params={"force": "true"})
    # the deployment keeps running with what it had
    settle()
    assert api.ok("GET", "/container-deployments/web/status").json()["status"] == "healthy"
    # no longer in use once the deployment is gone
    api.ok("DELETE", "/container-deployments/web", 204, params={"timeout": 300_000})
    api.ok("DELETE", "/file-secrets/tls", 200)
