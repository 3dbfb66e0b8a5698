"""container_registry_credential's plan and prediction, against a scripted API."""

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.container_registry_credential import main

RECORD = {"name": "ghcr-deploy", "created_at": "2026-11-24T17:40:00Z"}
GHCR = dict(name="ghcr-deploy", registry_type="ghcr", username="deploy-bot", access_token="ghp_scripted")
PATH = "/container-registry-credentials"


def test_an_existing_credential_is_one_read_and_no_change(api, run_module):
    api.answer(responses.GET, PATH, json=[RECORD])
    result = run_module(main, GHCR)
    assert result["changed"] is False
    assert result["container_registry_credential"] == RECORD
    assert api.sent == [("GET", PATH)]


def test_check_mode_predicts_a_replacement_and_sends_no_write(api, run_module):
    api.answer(responses.GET, PATH, json=[RECORD])
    result = run_module(main, dict(GHCR, update_secret="always"), check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["container_registry_credential"] == {"name": "ghcr-deploy", "created_at": None}
    assert result["diff"]["after"]["value"] == "(value changed, not shown)"
    assert api.sent == [("GET", PATH)]


def test_a_create_sends_the_fields_of_its_type(api, run_module):
    api.answer(responses.GET, PATH, json=[])
    api.answer(responses.POST, PATH, status=201)
    api.answer(responses.GET, PATH, json=[RECORD])
    result = run_module(main, GHCR)
    assert result["changed"] is True, result
    assert api.body(1) == {
        "name": "ghcr-deploy",
        "type": "ghcr",
        "username": "deploy-bot",
        "access_token": "ghp_scripted",
    }
    assert "ghp_scripted" not in str(result)


def test_a_field_of_another_type_is_refused_before_any_request(api, run_module):
    result = run_module(main, dict(GHCR, region="eu-west-1"))
    assert result["failed"] is True
    assert "region: not a field of registry_type=ghcr" in result["msg"]
    assert api.sent == []
