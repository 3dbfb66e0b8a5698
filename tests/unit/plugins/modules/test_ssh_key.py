"""ssh_key's plan and prediction, against a scripted API."""

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.ssh_key import main

KEY_ID = "0e4f1c2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHhZ user@laptop"
RECORD = {"id": KEY_ID, "name": "deploy", "key": PUBLIC_KEY, "created_at": "2026-11-01T10:00:00Z"}


def test_an_existing_key_is_one_read_and_no_change(api, run_module):
    api.answer(responses.GET, "/ssh-keys", json=[RECORD])
    result = run_module(main, dict(name="deploy", public_key=PUBLIC_KEY + " other-comment"))
    assert result["changed"] is False
    assert result["ssh_key"]["id"] == KEY_ID
    assert api.sent == [("GET", "/ssh-keys")]


def test_check_mode_predicts_the_create_and_sends_no_write(api, run_module):
    api.answer(responses.GET, "/ssh-keys", json=[])
    result = run_module(main, dict(name="deploy", public_key=PUBLIC_KEY), check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["ssh_key"] == {"id": None, "name": "deploy", "key": PUBLIC_KEY}
    assert result["diff"] == {"before": {}, "after": {"id": None, "name": "deploy", "key": PUBLIC_KEY}}
    assert api.sent == [("GET", "/ssh-keys")]


def test_another_key_under_the_name_is_replaced_new_first(api, run_module):
    new_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINEW user@laptop"
    new_id = "1e4f1c2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
    api.answer(responses.GET, "/ssh-keys", json=[RECORD])
    api.answer(responses.POST, "/ssh-keys", json=new_id, status=201)
    api.answer(responses.GET, "/ssh-keys", json=[RECORD, dict(RECORD, id=new_id, key=new_key)])
    api.answer(responses.GET, "/ssh-keys/" + new_id, json=dict(RECORD, id=new_id, key=new_key))
    api.answer(responses.DELETE, "/ssh-keys/" + KEY_ID, status=204)
    result = run_module(main, dict(name="deploy", public_key=new_key), diff=True)
    assert result["changed"] is True, result
    assert result["ssh_key"]["id"] == new_id
    assert result["diff"]["before"]["id"] == KEY_ID
    assert [method for method, _path in api.sent] == ["GET", "POST", "GET", "GET", "DELETE"]
    assert api.body(1) == {"name": "deploy", "key": new_key}


def test_a_key_that_is_not_openssh_is_refused_before_any_request(api, run_module):
    result = run_module(main, dict(name="deploy", public_key="not a key"))
    assert result["failed"] is True
    assert "not an OpenSSH public key" in result["msg"]
    assert api.sent == []
