"""container_file_secret's plan and prediction, against a scripted API."""

import base64

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.container_file_secret import main

RECORD = {
    "name": "sentiment-tls",
    "created_at": "2026-11-24T17:40:00Z",
    "secret_type": "file-secret",
    "file_names": ["tls.crt", "tls.key"],
}
FILES = {"tls.crt": "-----BEGIN CERTIFICATE-----", "tls.key": "-----BEGIN PRIVATE KEY-----"}


def test_an_existing_file_secret_is_one_read_and_no_change(api, run_module):
    api.answer(responses.GET, "/file-secrets", json=[RECORD])
    result = run_module(main, dict(name="sentiment-tls", files=FILES))
    assert result["changed"] is False
    assert result["container_file_secret"] == RECORD
    assert api.sent == [("GET", "/file-secrets")]


def test_check_mode_predicts_the_file_names_only(api, run_module):
    api.answer(responses.GET, "/file-secrets", json=[])
    result = run_module(main, dict(name="sentiment-tls", files=FILES), check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["container_file_secret"] == {
        "name": "sentiment-tls",
        "created_at": None,
        "secret_type": "file-secret",
        "file_names": ["tls.crt", "tls.key"],
    }
    assert "PRIVATE KEY" not in str(result)
    assert api.sent == [("GET", "/file-secrets")]


def test_a_create_sends_the_files_base64_encoded(api, run_module, tmp_path):
    (tmp_path / "tls.crt").write_text(FILES["tls.crt"])
    (tmp_path / "tls.key").write_text(FILES["tls.key"])
    api.answer(responses.GET, "/file-secrets", json=[])
    api.answer(responses.POST, "/file-secrets", status=201)
    api.answer(responses.GET, "/file-secrets", json=[RECORD])
    result = run_module(main, dict(name="sentiment-tls", src=str(tmp_path)))
    assert result["changed"] is True, result
    assert result["container_file_secret"] == RECORD
    assert api.body(1) == {
        "name": "sentiment-tls",
        "files": [
            {"file_name": name, "base64_content": base64.b64encode(content.encode()).decode()}
            for name, content in sorted(FILES.items())
        ],
    }


def test_state_absent_deletes_it(api, run_module):
    api.answer(responses.GET, "/file-secrets", json=[RECORD])
    api.answer(responses.DELETE, "/file-secrets/sentiment-tls?force=false", status=204)
    result = run_module(main, dict(name="sentiment-tls", state="absent"))
    assert result["changed"] is True, result
    assert result["container_file_secret"] == {}
    assert api.sent == [("GET", "/file-secrets"), ("DELETE", "/file-secrets/sentiment-tls?force=false")]


def test_a_file_name_with_a_directory_is_refused_before_any_request(api, run_module):
    result = run_module(main, dict(name="sentiment-tls", files={"certs/tls.crt": "x"}))
    assert result["failed"] is True
    assert "base names" in result["msg"]
    assert api.sent == []
