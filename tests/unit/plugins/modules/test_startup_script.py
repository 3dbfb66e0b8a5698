"""startup_script's plan and prediction, against a scripted API."""

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.startup_script import main

SCRIPT_ID = "0c1c3d52-9c0e-4d0d-a8c0-5a37b8f7a111"
NEW_ID = "1c1c3d52-9c0e-4d0d-a8c0-5a37b8f7a112"
RECORD = {
    "id": SCRIPT_ID,
    "name": "bootstrap",
    "script": "#!/bin/bash\necho one\n",
    "created_at": "2026-11-01T10:00:00Z",
}
LISTED = "/scripts?name=bootstrap&page=1&pageSize=100"


def test_an_existing_script_is_one_read_and_no_change(api, run_module):
    api.answer(responses.GET, "/scripts", json=[RECORD], headers={"X-Total-Count": "1"})
    result = run_module(main, dict(name="bootstrap", script=RECORD["script"]))
    assert result["changed"] is False
    assert result["startup_script"]["id"] == SCRIPT_ID
    assert api.sent == [("GET", LISTED)]


def test_check_mode_predicts_a_replacement_and_sends_no_write(api, run_module):
    api.answer(responses.GET, "/scripts", json=[RECORD], headers={"X-Total-Count": "1"})
    result = run_module(main, dict(name="bootstrap", script="#!/bin/bash\necho two\n"), check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["startup_script"]["id"] is None
    assert result["diff"]["before"]["script"] == RECORD["script"]
    assert result["diff"]["after"] == {"id": None, "name": "bootstrap", "script": "#!/bin/bash\necho two\n"}
    assert api.sent == [("GET", LISTED)]


def test_a_new_content_creates_the_new_script_before_removing_the_old_one(api, run_module):
    new = dict(RECORD, id=NEW_ID, script="#!/bin/bash\necho two\n", created_at="2026-11-02T10:00:00Z")
    api.answer(responses.GET, "/scripts", json=[RECORD], headers={"X-Total-Count": "1"})
    api.answer(responses.POST, "/scripts", json=NEW_ID, status=201)
    api.answer(responses.GET, "/scripts", json=[RECORD, new], headers={"X-Total-Count": "2"})
    api.answer(responses.GET, "/scripts/" + NEW_ID, json=new)
    api.answer(responses.DELETE, "/scripts/" + SCRIPT_ID, status=204)
    result = run_module(main, dict(name="bootstrap", script=new["script"]))
    assert result["changed"] is True, result
    assert result["startup_script"]["id"] == NEW_ID
    assert [method for method, _path in api.sent] == ["GET", "POST", "GET", "GET", "DELETE"]
    assert api.body(1) == {"name": "bootstrap", "script": new["script"]}


def test_state_absent_by_id_deletes_it(api, run_module):
    api.answer(responses.GET, "/scripts/" + SCRIPT_ID, json=RECORD)
    api.answer(responses.DELETE, "/scripts/" + SCRIPT_ID, status=204)
    result = run_module(main, dict(id=SCRIPT_ID, state="absent"))
    assert result["changed"] is True, result
    assert result["startup_script"] == {}


def test_a_create_without_content_is_refused_before_any_request(api, run_module):
    result = run_module(main, dict(name="bootstrap"))
    assert result["failed"] is True
    assert "needs script" in result["msg"]
    assert api.sent == []
