"""instance's plan and prediction, against a scripted API: what a task reads, what it sends and
what it reports, for a no-op, a deploy placed by availability (check mode), power changes, a
delete with volumes and a change the API cannot make."""

import json
import os
import subprocess
import sys

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.instance import main

INSTANCE_ID = "1a2b3c4d-0000-4000-8000-000000000001"
OS_VOLUME_ID = "1a2b3c4d-0000-4000-8000-0000000000a1"
DATA_VOLUME_ID = "1a2b3c4d-0000-4000-8000-0000000000a2"
RUNNING = {
    "id": INSTANCE_ID,
    "hostname": "gpu-1",
    "status": "running",
    "instance_type": "1V100.6V",
    "image": "ubuntu-24.04",
    "location": "FIN-01",
    "description": "",
    "contract": "PAY_AS_YOU_GO",
    "is_spot": False,
    "ssh_key_ids": [],
    "startup_script_id": None,
    "tags": [],
    "os_volume_id": OS_VOLUME_ID,
    "volume_ids": [OS_VOLUME_ID, DATA_VOLUME_ID],
    "price_per_hour": 0.89,
    "jupyter_token": "secret-jupyter-token",
    "created_at": "2026-11-01T10:00:00Z",
}
INSTANCE_TYPES = [{"instance_type": "1V100.6V", "price_per_hour": "0.89", "spot_price": "0.25"}]
ONE = "/instances/" + INSTANCE_ID


def accepted(action):
    return [{"action": action, "instanceId": INSTANCE_ID, "status": "success"}]


def test_an_instance_in_its_state_is_one_read_and_no_change(api, run_module):
    api.answer(responses.GET, "/instances", json=[RUNNING])
    result = run_module(main, dict(hostname="gpu-1", instance_type="1V100.6V", image="ubuntu-24.04", state="running"))
    assert result["changed"] is False
    assert result["instance"]["id"] == INSTANCE_ID
    assert result["instance"]["jupyter_token"] != "secret-jupyter-token"
    assert result["cost"]["price_per_hour"] == 0.89
    assert api.sent == [("GET", "/instances")]


def test_cost_is_the_instance_alone_on_the_deploy_and_on_the_next_run(api, run_module):
    deploy = dict(
        hostname="gpu-1",
        instance_type="1V100.6V",
        image="ubuntu-24.04",
        location_code="FIN-01",
        os_volume=dict(name="os", size=100),
    )
    api.answer(responses.GET, "/instances", json=[])
    api.answer(responses.GET, "/instance-types", json=INSTANCE_TYPES)
    api.answer(responses.GET, "/volume-types", json=[{"type": "NVMe", "price": {"price_per_month_per_gb": 0.73}}])
    predicted = run_module(main, deploy, check_mode=True)
    api.answer(responses.GET, "/instances", json=[RUNNING])
    again = run_module(main, deploy)
    assert (
        predicted["cost"]
        == again["cost"]
        == {
            "price_per_hour": 0.89,
            "currency": "usd",
            "basis": [{"item": "instance 1V100.6V (on-demand)", "price_per_hour": 0.89}],
        }
    )
    # what the deploy adds up to, volumes included, only where there is a deploy
    assert predicted["deploy_cost"]["price_per_hour"] == 0.99
    assert predicted["deploy_cost"]["basis"][1] == {"item": "OS volume os NVMe 100 GB", "price_per_hour": 0.1}
    assert "deploy_cost" not in again


def test_check_mode_predicts_a_deploy_where_availability_has_capacity_and_sends_no_write(api, run_module):
    api.answer(responses.GET, "/instances", json=[])
    api.answer(
        responses.GET,
        "/instance-availability",
        json=[
            {"location_code": "FIN-01", "availabilities": []},
            {"location_code": "ICE-01", "availabilities": ["1V100.6V"]},
        ],
    )
    api.answer(responses.GET, "/instance-types", json=INSTANCE_TYPES)
    result = run_module(
        main,
        dict(
            hostname="gpu-1",
            image="ubuntu-24.04",
            placement=dict(locations=["FIN-01", "ICE-01"], instance_types=["1V100.6V"]),
        ),
        check_mode=True,
        diff=True,
    )
    assert result["changed"] is True, result
    assert result["placement"]["location_code"] == "ICE-01"
    assert [(tried["location_code"], tried["outcome"]) for tried in result["placement"]["tried"]] == [
        ("FIN-01", "no_capacity"),
        ("ICE-01", "predicted"),
    ]
    instance = result["instance"]
    assert (instance["id"], instance["location"], instance["instance_type"], instance["status"]) == (
        None,
        "ICE-01",
        "1V100.6V",
        "running",
    )
    assert result["cost"]["basis"][0] == {"item": "instance 1V100.6V (on-demand)", "price_per_hour": 0.89}
    assert result["diff"]["before"] == {}
    assert result["diff"]["after"]["location"] == "ICE-01"
    assert [method for method, _path in api.sent] == ["GET", "GET", "GET"]


def test_a_running_instance_is_shut_down_and_waited_for(api, run_module):
    api.answer(responses.GET, "/instances", json=[RUNNING])
    api.answer(responses.PUT, "/instances", json=accepted("shutdown"), status=202)
    api.answer(responses.GET, "/instances", json=[dict(RUNNING, status="offline")])
    result = run_module(main, dict(hostname="gpu-1", state="stopped"), diff=True)
    assert result["changed"] is True, result
    assert result["instance"]["status"] == "offline"
    assert (result["diff"]["before"]["status"], result["diff"]["after"]["status"]) == ("running", "offline")
    # the wait reads the project's list, which waits on this machine share
    assert api.sent == [("GET", "/instances"), ("PUT", "/instances"), ("GET", "/instances")]
    assert api.body(1) == {"action": "shutdown", "id": INSTANCE_ID}


def test_check_mode_predicts_a_start_and_sends_no_write(api, run_module):
    api.answer(responses.GET, "/instances", json=[dict(RUNNING, status="offline")])
    result = run_module(main, dict(hostname="gpu-1", state="running"), check_mode=True)
    assert result["changed"] is True
    assert result["instance"]["status"] == "running"
    assert api.sent == [("GET", "/instances")]


def test_a_delete_takes_the_volumes_named_and_reports_the_others_detached(api, run_module):
    api.answer(responses.GET, "/instances", json=[RUNNING])
    api.answer(responses.GET, "/volumes", json=[{"id": DATA_VOLUME_ID, "name": "data", "location": "FIN-01"}])
    api.answer(responses.PUT, "/instances", json=accepted("delete"), status=202)
    result = run_module(main, dict(hostname="gpu-1", state="absent", delete_volumes=["data"], wait=False))
    assert result["changed"] is True, result
    assert result["deleted_volume_ids"] == [DATA_VOLUME_ID]
    assert result["detached_volume_ids"] == [OS_VOLUME_ID]
    assert result["instance"] == {}
    assert api.sent == [("GET", "/instances"), ("GET", "/volumes"), ("PUT", "/instances")]
    assert api.body(2) == {
        "action": "delete",
        "id": INSTANCE_ID,
        "volume_ids": [DATA_VOLUME_ID],
        "delete_permanently": False,
    }


def test_a_delete_forgets_the_instance_host_key_and_no_other(api, run_module, known_hosts):
    other = "cloudcompute-00000000-0000-4000-8000-00000000ffff ssh-ed25519 AAAA\n"
    known_hosts.write_text(f"cloudcompute-{INSTANCE_ID} ssh-ed25519 AAAA\n" + other)
    api.answer(responses.GET, "/instances", json=[RUNNING])
    api.answer(responses.PUT, "/instances", json=accepted("delete"), status=202)
    result = run_module(main, dict(hostname="gpu-1", state="absent", wait=False))
    assert result["changed"] is True, result
    assert known_hosts.read_text() == other


def test_check_mode_predicts_the_delete_with_its_volumes_and_sends_no_write(api, run_module):
    api.answer(responses.GET, "/instances", json=[RUNNING])
    result = run_module(main, dict(hostname="gpu-1", state="absent", delete_volumes=["all"]), check_mode=True)
    assert result["changed"] is True
    assert result["deleted_volume_ids"] == [OS_VOLUME_ID, DATA_VOLUME_ID]
    assert result["detached_volume_ids"] == []
    assert api.sent == [("GET", "/instances")]


def test_an_absent_instance_is_no_change(api, run_module):
    api.answer(responses.GET, "/instances", json=[])
    result = run_module(main, dict(hostname="gpu-1", state="absent"))
    assert result["changed"] is False
    assert (result["deleted_volume_ids"], result["detached_volume_ids"]) == ([], [])
    assert api.sent == [("GET", "/instances")]


def test_a_change_the_api_cannot_make_is_refused_before_any_write(api, run_module):
    api.answer(responses.GET, "/instances", json=[RUNNING])
    result = run_module(main, dict(hostname="gpu-1", instance_type="8H100.80S", location_code="ICE-01"))
    assert result["failed"] is True
    assert "cannot change instance_type, location_code of existing instance gpu-1" in result["msg"]
    assert result["immutable"]["instance_type"] == {"desired": "8H100.80S", "current": "1V100.6V"}
    assert api.sent == [("GET", "/instances")]


def test_an_instance_outside_the_placement_candidates_is_refused(api, run_module):
    api.answer(responses.GET, "/instances", json=[RUNNING])
    result = run_module(main, dict(hostname="gpu-1", placement=dict(locations=["ICE-01"], instance_types=["1V100.6V"])))
    assert result["failed"] is True
    assert "none of the placement's candidates" in result["msg"]
    assert [method for method, _path in api.sent] == ["GET"]


def test_a_deploy_over_the_price_cap_is_refused_before_any_write(api, run_module):
    api.answer(responses.GET, "/instances", json=[])
    api.answer(responses.GET, "/instance-types", json=INSTANCE_TYPES)
    api.answer(responses.GET, "/volume-types", json=[{"type": "NVMe", "price": {"price_per_month_per_gb": 0.73}}])
    result = run_module(
        main,
        dict(
            hostname="gpu-1",
            instance_type="1V100.6V",
            image="ubuntu-24.04",
            location_code="FIN-01",
            os_volume=dict(name="os", size=100),
            max_price_per_hour=0.5,
        ),
    )
    assert result["failed"] is True
    assert "over max_price_per_hour 0.5" in result["msg"]
    assert result["deploy_cost"]["price_per_hour"] == 0.99  # 0.89 the instance, 0.10 its 100 GB OS volume
    assert api.sent == [("GET", "/instances"), ("GET", "/instance-types"), ("GET", "/volume-types")]


def test_check_mode_skips_the_placement_candidates_over_the_price_cap(api, run_module):
    api.answer(responses.GET, "/instances", json=[])
    api.answer(
        responses.GET,
        "/instance-types",
        json=INSTANCE_TYPES + [{"instance_type": "8H100.80S", "price_per_hour": "20.0", "spot_price": "6.0"}],
    )
    api.answer(
        responses.GET,
        "/instance-availability",
        json=[{"location_code": "FIN-01", "availabilities": ["8H100.80S", "1V100.6V"]}],
    )
    result = run_module(
        main,
        dict(
            hostname="gpu-1",
            image="ubuntu-24.04",
            max_price_per_hour=1.0,
            placement=dict(locations=["FIN-01"], instance_types=["8H100.80S", "1V100.6V"]),
        ),
        check_mode=True,
    )
    assert result["changed"] is True, result
    assert [(tried["instance_type"], tried["outcome"]) for tried in result["placement"]["tried"]] == [
        ("8H100.80S", "over_price_cap"),
        ("1V100.6V", "predicted"),
    ]
    assert result["instance"]["instance_type"] == "1V100.6V"
    assert api.sent == [
        ("GET", "/instances"),
        ("GET", "/instance-types"),
        ("GET", "/instance-availability?location_code=FIN-01"),
    ]


# A no-op task of a module compiles every file it imports from source (AnsiballZ ships no .pyc),
# so what only a deploy, a placement, a power change or an expiry needs is imported only there.
NO_OP_IN_A_FRESH_INTERPRETER = """
import json, sys
import responses
from ansible.module_utils import basic

args = {"ANSIBLE_MODULE_ARGS": dict(json.loads(sys.argv[1]))}
try:  # ansible-core 2.19 and later
    from ansible.module_utils.testing import patch_module_args
    patching = patch_module_args(args["ANSIBLE_MODULE_ARGS"])
except ImportError:
    import contextlib
    basic._ANSIBLE_ARGS = json.dumps(args).encode()
    patching = contextlib.nullcontext()
from ansible_collections.cloudcompute.cloud.plugins.modules.instance import main

with responses.RequestsMock() as mock, patching:
    mock.add(responses.POST, sys.argv[2] + "/oauth2/token", json={"access_token": "t", "expires_in": 3600})
    mock.add(responses.GET, sys.argv[2] + "/instances/" + sys.argv[3], json=json.loads(sys.argv[4]))
    try:
        main()
    except SystemExit:
        pass
    sent = [call.request.method + " " + call.request.url for call in mock.calls]
prefix = "ansible_collections.cloudcompute.cloud.plugins."
print(json.dumps({"sent": sent, "imported": sorted(name for name in sys.modules if name.startswith(prefix))}), file=sys.stderr)
"""


def test_a_no_op_task_imports_no_placement_deploy_power_or_expiry_code():
    api_url = "https://api.fresh-interpreter.test/v1"
    args = dict(
        id=INSTANCE_ID,
        state="running",
        api_url=api_url,
        client_id="scripted-client",
        client_secret="scripted-secret",
        token_cache="false",
    )
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            NO_OP_IN_A_FRESH_INTERPRETER,
            json.dumps(args),
            api_url,
            INSTANCE_ID,
            json.dumps(RUNNING),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        check=False,
    )
    result = json.loads(run.stdout)
    assert result["changed"] is False, result
    report = json.loads(run.stderr.strip().splitlines()[-1])
    assert [line.split()[0] for line in report["sent"]] == ["POST", "GET"]  # the token, then the one read
    imported = {name.rsplit(".", 1)[-1] for name in report["imported"]}
    assert {"instance", "_compute", "_cost_report"} <= imported
    assert not imported & {"_placement", "_offers", "_instance_actions", "_cost", "_expiry"}


def test_a_deploy_without_what_it_needs_is_refused_after_the_one_read(api, run_module):
    api.answer(responses.GET, "/instances", json=[])
    result = run_module(main, dict(hostname="gpu-1"))
    assert result["failed"] is True
    assert result["msg"] == (
        "instance 'gpu-1' does not exist; to deploy it, give instance_type, location_code, image (or existing_os_volume)"
    )
    assert api.sent == [("GET", "/instances")]
