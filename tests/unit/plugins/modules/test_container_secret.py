"""container_secret's plan and prediction, against a scripted API."""

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.container_secret import main

RECORD = {"name": "db-password", "created_at": "2026-11-24T17:40:00Z", "secret_type": "generic"}
OTHER_KIND = {"name": "tls", "created_at": "2026-11-24T17:40:00Z", "secret_type": "file-secret"}
VALUE = "s3cr3t-value"


def test_an_existing_secret_is_one_read_and_no_change(api, run_module):
    api.answer(responses.GET, "/secrets", json=[RECORD, OTHER_KIND])
    result = run_module(main, dict(name="db-password", value=VALUE), diff=True)
    assert result["changed"] is False
    assert result["container_secret"] == RECORD
    assert result["diff"]["after"] == {"name": "db-password", "value": "(unchanged, not shown)"}
    assert api.sent == [("GET", "/secrets")]


def test_check_mode_predicts_the_create_and_sends_no_write(api, run_module):
    api.answer(responses.GET, "/secrets", json=[OTHER_KIND])
    result = run_module(main, dict(name="db-password", value=VALUE), check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["container_secret"] == {"name": "db-password", "created_at": None, "secret_type": "generic"}
    assert result["diff"] == {"before": {}, "after": {"name": "db-password", "value": "(unchanged, not shown)"}}
    assert api.sent == [("GET", "/secrets")]


def test_a_create_sends_the_value_and_reads_the_record_back(api, run_module):
    api.answer(responses.GET, "/secrets", json=[])
    api.answer(responses.POST, "/secrets", status=201)
    api.answer(responses.GET, "/secrets", json=[RECORD])
    result = run_module(main, dict(name="db-password", value=VALUE))
    assert result["changed"] is True, result
    assert result["container_secret"] == RECORD
    assert api.sent == [("GET", "/secrets"), ("POST", "/secrets"), ("GET", "/secrets")]
    assert api.body(1) == {"name": "db-password", "value": VALUE}
    assert VALUE not in str(result)


def test_update_secret_always_replaces_it_and_the_diff_says_so_without_the_value(api, run_module):
    api.answer(responses.GET, "/secrets", json=[RECORD])
    api.answer(responses.DELETE, "/secrets/db-password?force=true", status=204)
    api.answer(responses.POST, "/secrets", status=201)
    api.answer(responses.GET, "/secrets", json=[dict(RECORD, created_at="2026-11-25T08:00:00Z")])
    result = run_module(main, dict(name="db-password", value=VALUE, update_secret="always", force=True), diff=True)
    assert result["changed"] is True, result
    assert result["diff"]["after"] == {"name": "db-password", "value": "(value changed, not shown)"}
    assert [method for method, _path in api.sent] == ["GET", "DELETE", "POST", "GET"]
    assert VALUE not in str(result)


def test_a_secret_in_use_gets_the_force_hint(api, run_module):
    api.answer(responses.GET, "/secrets", json=[RECORD])
    api.answer(
        responses.DELETE,
        "/secrets/db-password?force=false",
        status=409,
        json={"code": "conflict", "message": "secret is used by deployment sentiment"},
    )
    result = run_module(main, dict(name="db-password", state="absent"))
    assert result["failed"] is True
    assert result["failure"]["status"] == 409
    assert "force: true" in result["msg"]


def test_a_bad_name_is_refused_before_any_request(api, run_module):
    result = run_module(main, dict(name="DB_Password", value=VALUE))
    assert result["failed"] is True
    assert "is not valid" in result["msg"]
    assert api.sent == []
