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


# SSH keys as the API lists them: no creation time, oldest first
KEY = {"id": KEY_ID, "name": "deploy", "key": PUBLIC_KEY}
OTHER_RUN_KEY = dict(KEY, id="ff4f1c2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b")


def test_a_duplicate_another_run_is_settling_is_waited_for_not_refused(api, run_module):
    # another machine's run created the name at the same moment and is deleting its own
    api.answer(responses.GET, "/ssh-keys", json=[KEY, OTHER_RUN_KEY])
    api.answer(responses.GET, "/ssh-keys", json=[KEY])
    result = run_module(main, dict(name="deploy", public_key=PUBLIC_KEY))
    assert result.get("failed") is not True, result
    assert result["changed"] is False
    assert result["ssh_key"]["id"] == KEY_ID
    assert api.sent == [("GET", "/ssh-keys"), ("GET", "/ssh-keys")]


def test_the_run_whose_key_the_api_lists_later_deletes_it_whatever_the_ids(api, run_module):
    # this run's key has the smaller id, but the other run's was made first
    mine = dict(KEY, id="00000000-6b7d-4e8f-9a0b-1c2d3e4f5a6b")
    api.answer(responses.GET, "/ssh-keys", json=[])
    api.answer(responses.POST, "/ssh-keys", json=mine["id"], status=201)
    api.answer(responses.GET, "/ssh-keys", json=[OTHER_RUN_KEY, mine])
    api.answer(responses.DELETE, "/ssh-keys/" + mine["id"], status=200)
    api.answer(responses.GET, "/ssh-keys/" + OTHER_RUN_KEY["id"], json=OTHER_RUN_KEY)
    result = run_module(main, dict(name="deploy", public_key=PUBLIC_KEY))
    assert result["ssh_key"]["id"] == OTHER_RUN_KEY["id"], result
    assert ("DELETE", "/ssh-keys/" + mine["id"]) in api.sent
