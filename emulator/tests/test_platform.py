"""Platform behaviour: OpenAPI document, offline docs, error shapes, request noise, scope."""

from __future__ import annotations

import re

import requests
from conftest import ApiClient, assert_error


def test_openapi_document_is_3_1_and_lists_every_family(anonymous: ApiClient) -> None:
    document = anonymous.ok("GET", "/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    paths = document["paths"]
    for path in ("/v1/instances", "/v1/volumes", "/v1/ssh-keys", "/v1/sshkeys", "/v1/scripts", "/v1/audit/log",
                 "/v1/oauth2/token", "/v1/instance-availability/{instance_type}", "/v1/volumes/trash",
                 "/v1/clusters", "/v1/clusters/{clusterId}/nodes/{nodeId}/actions", "/v1/instance-groups/{instance_group_id}",
                 "/v1/job-deployments/{jobName}/purge-queue", "/v1/container-deployments/{deployment_name}/scaling",
                 "/v1/container-deployment-templates/{template_id}/deployments", "/v1/serverless-compute-resources",
                 "/v1/cluster-availability/{cluster_type}", "/v1/managed-endpoints/pricing", "/v1/container-registry/pricing"):
        assert path in paths, path
    assert "/_emulator/reset" not in paths  # the control API is not part of the API
    assert paths["/v1/sshkeys"]["get"]["deprecated"] is True
    deploy = paths["/v1/instances"]["post"]
    assert "InstanceDeploy" in str(deploy["requestBody"])
    for status in ("202", "400", "401", "402", "429", "503"):
        assert status in deploy["responses"], status
    assert "422" not in str(paths)  # validation errors are 400 here
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert "security" not in paths["/v1/instance-types"]["get"]


def test_docs_page_is_self_contained(anonymous: ApiClient) -> None:
    response = anonymous.ok("GET", "/docs")
    assert response.headers["content-type"].startswith("text/html")
    page = response.text
    assert "/v1/instances" in page and "hostname" in page
    # nothing is fetched from anywhere: no external scripts, styles or images
    assert not re.search(r"""(src|href)=["']https?://""", page)
    assert "<script" not in page


def test_errors_have_code_and_message(api: ApiClient) -> None:
    assert_error(api.get("/instances/does-not-exist"), 404, "not_found", "not found")
    assert_error(api.get("/no-such-thing/at-all"), 403, "forbidden_action", "Insufficient scope")
    assert_error(api.post("/volumes", json={"name": "x"}), 400, "invalid_request", "location_code")


def test_spec_paths_not_served_answer_404(api: ApiClient) -> None:
    # a path in the token scope that nothing serves (a container deployment's unknown sub-path):
    # a 404, not a scope error
    assert_error(api.get("/container-deployments/x/y/z"), 404, "not_found", "not found")
    response = api.get("/instances/abc/tags")
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"


def test_method_not_allowed_lists_every_method(api: ApiClient) -> None:
    response = api.request("PATCH", "/ssh-keys")
    body = assert_error(response, 405, "invalid_request")
    assert set(response.headers["allow"].split(", ")) == {"GET", "POST", "DELETE"}
    assert "PATCH" in body["message"]


def test_validation_names_the_field(api: ApiClient) -> None:
    body = assert_error(api.post("/ssh-keys", json={"name": "k"}), 400, "invalid_request")
    assert "key" in body["message"]
    body = assert_error(api.post("/ssh-keys", json={"name": 5, "key": "x"}), 400, "invalid_request")
    assert "name" in body["message"]
    body = assert_error(api.get("/scripts", params={"pageSize": 101}), 400, "invalid_request")
    assert "pageSize" in body["message"]
    assert_error(api.post("/ssh-keys", data="{not json", headers={"content-type": "application/json"}), 400, "invalid_request", "JSON")
    assert_error(api.post("/ssh-keys", json=["a", "list"]), 400, "invalid_request")
    assert_error(api.post("/ssh-keys"), 400, "invalid_request")


def test_unknown_keys_are_ignored_and_null_is_absent(api: ApiClient, settle) -> None:
    key_id = api.ok("POST", "/ssh-keys", 201, json={"name": "k", "key": "ssh-rsa AAAA", "colour": "blue"}).text
    assert api.ok("GET", f"/ssh-keys/{key_id}").json()[0]["name"] == "k"
    instance_id = api.deploy(description=None, tags=None, volumes=None, is_spot=None, flavour="x")
    instance = api.instance(instance_id)
    assert instance["description"] == "" and instance["tags"] == [] and instance["is_spot"] is False
    settle()
    # null volume_ids means "omitted": only the OS volume is deleted
    os_volume = instance["os_volume_id"]
    api.action(instance_id, "delete", volume_ids=None)
    assert api.volume(os_volume)["status"] == "deleted"
    # a required field given as null is missing
    assert_error(api.post("/ssh-keys", json={"name": None, "key": "x"}), 400, "invalid_request", "name")


def test_public_and_emulator_pages_need_no_token(anonymous: ApiClient, emulator_reset) -> None:
    for path in ("/instance-types", "/volume-types", "/long-term/periods", "/long-term/periods/instances",
                 "/long-term/periods/clusters", "/instance-types/price-history", "/openapi.json", "/docs"):
        assert anonymous.get(path).status_code == 200, path
    assert requests.get(f"{emulator_reset.base_url}/_emulator/health", timeout=5).json()["status"] == "ok"
    assert requests.get(f"{emulator_reset.base_url}/elsewhere", timeout=5).status_code == 404
