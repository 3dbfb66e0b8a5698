"""Authentication: grants, token lifetime, refresh, roles, scope, inference keys."""

from __future__ import annotations

import pytest
from conftest import ApiClient, assert_error


def _grant(anonymous: ApiClient, **body):
    return anonymous.post("/oauth2/token", json=body)


def test_client_credentials_json_and_form(anonymous: ApiClient, emulator_reset) -> None:
    emulator_reset.control.update_settings(token_ttl=3600)  # the default lifetime
    body = {"grant_type": "client_credentials", "client_id": emulator_reset.client_id, "client_secret": emulator_reset.client_secret}
    token = anonymous.ok("POST", "/oauth2/token", json=body).json()
    assert set(token) == {"access_token", "refresh_token", "token_type", "expires_in", "scope"}
    assert token["token_type"] == "Bearer" and token["scope"] == "cloud-api-v1" and token["expires_in"] == 3600
    form = anonymous.ok("POST", "/oauth2/token", data=body).json()
    assert form["access_token"] != token["access_token"]
    assert ApiClient(anonymous.api_url, form["access_token"]).get("/balance").status_code == 200


def test_bad_token_requests(anonymous: ApiClient, emulator_reset) -> None:
    assert_error(_grant(anonymous, grant_type="client_credentials", client_id=emulator_reset.client_id, client_secret="nope"),
                 401, "unauthorized_request")
    assert_error(_grant(anonymous, grant_type="client_credentials", client_id="nobody", client_secret="x"), 401, "unauthorized_request")
    assert_error(_grant(anonymous, grant_type="password", username="a"), 400, "invalid_request", "grant type")
    assert_error(_grant(anonymous, grant_type="client_credentials"), 400, "invalid_request", "client_id")
    assert_error(_grant(anonymous, grant_type="refresh_token"), 400, "invalid_request", "refresh_token")
    assert_error(_grant(anonymous), 400, "invalid_request", "grant_type")


def test_refresh_tokens_are_single_use(anonymous: ApiClient, emulator_reset) -> None:
    first = _grant(anonymous, grant_type="client_credentials", client_id=emulator_reset.client_id,
                   client_secret=emulator_reset.client_secret).json()
    refreshed = anonymous.ok("POST", "/oauth2/token", json={"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}).json()
    assert refreshed["access_token"] != first["access_token"]
    assert_error(_grant(anonymous, grant_type="refresh_token", refresh_token=first["refresh_token"]), 401, "unauthorized_request")
    # with client credentials too, as a form
    again = anonymous.ok("POST", "/oauth2/token", data={
        "grant_type": "refresh_token", "refresh_token": refreshed["refresh_token"],
        "client_id": emulator_reset.client_id, "client_secret": emulator_reset.client_secret,
    }).json()
    # but not presented by another client
    other = emulator_reset.control.create_credentials(role="member")
    assert_error(_grant(anonymous, grant_type="refresh_token", refresh_token=again["refresh_token"], client_id=other["client_id"],
                        client_secret=other["client_secret"]), 401, "unauthorized_request")


def test_tokens_expire_on_the_emulator_clock(anonymous: ApiClient, emulator_reset) -> None:
    control = emulator_reset.control
    control.update_settings(token_ttl=120)
    token = _grant(anonymous, grant_type="client_credentials", client_id=emulator_reset.client_id,
                   client_secret=emulator_reset.client_secret).json()
    assert token["expires_in"] == 120
    client = ApiClient(anonymous.api_url, token["access_token"])
    control.advance_clock(119)
    assert client.get("/balance").status_code == 200
    control.advance_clock(2)
    assert_error(client.get("/balance"), 401, "unauthorized_request", "expired")
    # refresh tokens live 30 days
    renewed = anonymous.ok("POST", "/oauth2/token", json={"grant_type": "refresh_token", "refresh_token": token["refresh_token"]}).json()
    assert ApiClient(anonymous.api_url, renewed["access_token"]).get("/balance").status_code == 200
    control.advance_clock(30 * 24 * 3600 + 1)
    assert_error(_grant(anonymous, grant_type="refresh_token", refresh_token=renewed["refresh_token"]), 401, "unauthorized_request")


@pytest.mark.parametrize("authorization", [None, "Bearer nonsense", "Basic abc", "Bearer"])
def test_protected_endpoints_need_a_valid_token(anonymous: ApiClient, authorization) -> None:
    headers = {"Authorization": authorization} if authorization else {}
    response = anonymous.get("/instances", headers=headers)
    assert_error(response, 401, "unauthorized_request")
    assert response.headers["www-authenticate"].startswith("Bearer")


def test_scope_reaches_only_spec_endpoints(api: ApiClient) -> None:
    for path in ("/object-storage/buckets", "/object-storage/access-keys", "/models", "/activity-journal"):
        assert_error(api.get(path), 403, "forbidden_action", "Insufficient scope")
    assert_error(api.post("/object-storage/buckets", json={}), 403, "forbidden_action", "Insufficient scope")


def test_roles_gate_the_audit_log(emulator_reset) -> None:
    control = emulator_reset.control
    for role, expected in (("owner", 200), ("admin", 200), ("member", 403)):
        credential = control.create_credentials(role=role)
        assert credential["role"] == role and credential["project_id"] == emulator_reset.project_id
        client = ApiClient(emulator_reset.api_url, emulator_reset.access_token(credential["client_id"], credential["client_secret"]))
        assert client.get("/audit/log").status_code == expected
        assert client.post("/audit/log/download", json={}).status_code == expected
        assert client.get("/instances").status_code == 200  # members still manage resources
    member = control.create_credentials(role="member")
    client = ApiClient(emulator_reset.api_url, emulator_reset.access_token(member["client_id"], member["client_secret"]))
    assert_error(client.get("/audit/log"), 403, "forbidden_action", "role")


def test_projects_are_isolated(api: ApiClient, emulator_reset) -> None:
    key_id = api.ssh_key()
    other = emulator_reset.control.create_credentials(project_id="project-b")
    client = ApiClient(emulator_reset.api_url, emulator_reset.access_token(other["client_id"], other["client_secret"]))
    assert client.ok("GET", "/ssh-keys").json() == []
    assert_error(client.get(f"/ssh-keys/{key_id}"), 404, "not_found")


def test_inference_keys_are_not_access_tokens(anonymous: ApiClient, emulator_reset) -> None:
    key = emulator_reset.control.create_inference_key()
    assert key.startswith("ccik-")
    assert_error(anonymous.get("/instances", headers={"Authorization": f"Bearer {key}"}), 401, "unauthorized_request")
    assert emulator_reset.inference_api_key.startswith("ccik-")
