"""SSH keys (both paths) and startup scripts (pagination, filter, ordering, quota)."""

from __future__ import annotations

import base64
import hashlib

import pytest
from conftest import ED25519_KEY, ApiClient, assert_error


def _md5_fingerprint(public_key: str) -> str:
    digest = hashlib.md5(base64.b64decode(public_key.split()[1])).hexdigest()
    return ":".join(digest[i : i + 2] for i in range(0, 32, 2))


@pytest.mark.parametrize("prefix", ["/ssh-keys", "/sshkeys"])
def test_ssh_key_lifecycle(api: ApiClient, prefix: str) -> None:
    response = api.ok("POST", prefix, 201, json={"name": "laptop", "key": ED25519_KEY + "\n"})
    assert response.headers["content-type"].startswith("text/plain")
    key_id = response.text
    one = api.ok("GET", f"{prefix}/{key_id}").json()
    assert one == [{"id": key_id, "name": "laptop", "key": ED25519_KEY, "fingerprint": _md5_fingerprint(ED25519_KEY)}]
    # both paths see the same keys
    assert [key["id"] for key in api.ok("GET", "/sshkeys").json()] == [key_id]
    assert [key["id"] for key in api.ok("GET", "/ssh-keys").json()] == [key_id]
    api.ok("DELETE", f"{prefix}/{key_id}")
    assert_error(api.get(f"{prefix}/{key_id}"), 404, "not_found")
    assert_error(api.delete(f"{prefix}/{key_id}"), 404, "not_found")


def test_fingerprints(api: ApiClient) -> None:
    rsa_blob = base64.b64encode(b"\x00\x00\x00\x07ssh-rsa" + b"\x00\x00\x00\x03\x01\x00\x01" + b"\x00\x00\x00\x02\x00\xc1").decode()
    rsa = f'from="10.0.0.1" ssh-rsa {rsa_blob} someone'
    keys = {"rsa": rsa, "garbage": "not a key at all", "bad-base64": "ssh-rsa AAAA%%%%"}
    ids = {name: api.ssh_key(name, key) for name, key in keys.items()}
    by_id = {key["id"]: key for key in api.ok("GET", "/ssh-keys").json()}
    digest = hashlib.md5(base64.b64decode(rsa_blob)).hexdigest()
    assert by_id[ids["rsa"]]["fingerprint"] == ":".join(digest[i : i + 2] for i in range(0, 32, 2))
    assert by_id[ids["garbage"]]["fingerprint"] is None
    assert by_id[ids["bad-base64"]]["fingerprint"] is None


@pytest.mark.parametrize("prefix", ["/ssh-keys", "/sshkeys"])
def test_bulk_ssh_key_delete(api: ApiClient, prefix: str) -> None:
    first, second, third = api.ssh_key("a"), api.ssh_key("b"), api.ssh_key("c")
    assert_error(api.delete(prefix, json={"keys": [first, "missing"]}), 404, "not_found")
    assert len(api.ok("GET", prefix).json()) == 3  # nothing deleted
    api.ok("DELETE", prefix, json={"keys": [first, second]})
    assert [key["id"] for key in api.ok("GET", prefix).json()] == [third]
    assert_error(api.delete(prefix, json={}), 400, "invalid_request", "keys")


def test_script_lifecycle(api: ApiClient) -> None:
    script_id = api.ok("POST", "/scripts", 201, json={"name": "setup", "script": "#!/bin/sh\necho hi\n"}).text
    [script] = api.ok("GET", f"/scripts/{script_id}").json()
    assert script["name"] == "setup" and script["script"] == "#!/bin/sh\necho hi\n" and script["created_at"].endswith("Z")
    api.ok("DELETE", f"/scripts/{script_id}")
    assert_error(api.get(f"/scripts/{script_id}"), 404, "not_found")
    ids = [api.ok("POST", "/scripts", 201, json={"name": f"s{i}", "script": "x"}).text for i in range(3)]
    assert_error(api.delete("/scripts", json={"scripts": [ids[0], "nope"]}), 404, "not_found")
    api.ok("DELETE", "/scripts", json={"scripts": ids[:2]})
    assert [item["id"] for item in api.ok("GET", "/scripts").json()] == [ids[2]]
    assert_error(api.post("/scripts", json={"name": "x"}), 400, "invalid_request", "script")


def test_script_pagination_filter_and_order(api: ApiClient, control) -> None:
    names = [f"deploy-{i:02d}" if i % 2 else f"other-{i:02d}" for i in range(25)]
    for name in names:
        api.ok("POST", "/scripts", 201, json={"name": name, "script": "x"})
        control.advance_clock(1)  # distinct creation times
    first_page = api.ok("GET", "/scripts")
    assert first_page.headers["x-page"] == "1" and first_page.headers["x-page-size"] == "10"
    assert first_page.headers["x-total-count"] == "25"
    assert [item["name"] for item in first_page.json()] == list(reversed(names))[:10]  # newest first
    third = api.ok("GET", "/scripts", params={"page": 3, "pageSize": 10}).json()
    assert [item["name"] for item in third] == list(reversed(names))[20:]
    ascending = api.ok("GET", "/scripts", params={"orderDirection": "asc", "pageSize": 100}).json()
    assert [item["name"] for item in ascending] == names
    filtered = api.ok("GET", "/scripts", params={"name": "DEPLOY", "pageSize": 5})
    assert filtered.headers["x-total-count"] == "12" and len(filtered.json()) == 5
    assert all("deploy" in item["name"] for item in filtered.json())
    assert api.ok("GET", "/scripts", params={"page": 9}).json() == []
    assert_error(api.get("/scripts", params={"orderBy": "name"}), 400, "invalid_request", "orderBy")
    assert_error(api.get("/scripts", params={"orderDirection": "up"}), 400, "invalid_request", "orderDirection")
    assert_error(api.get("/scripts", params={"page": 0}), 400, "invalid_request", "page")


def test_script_quota_is_403(api: ApiClient, control) -> None:
    assert control.settings()["startup_script_quota"] == 100
    control.update_settings(startup_script_quota=2)
    api.ok("POST", "/scripts", 201, json={"name": "a", "script": "x"})
    api.ok("POST", "/scripts", 201, json={"name": "b", "script": "x"})
    assert_error(api.post("/scripts", json={"name": "c", "script": "x"}), 403, "forbidden_action", "quota")
