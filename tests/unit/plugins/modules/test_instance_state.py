"""instance_state run whole against a scripted API: what it does with the per-instance results of
a bulk action (202/207), which the emulator cannot be made to refuse for one item on demand. The
happy paths run against the emulator in tests/integration/targets/instance_state."""

import json
import re

import responses

from ansible_collections.cloudcompute.cloud.plugins.module_utils._instance_actions import item_failures
from ansible_collections.cloudcompute.cloud.plugins.modules.instance_state import main

A = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
B = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
C = "cccccccc-cccc-4ccc-8ccc-cccccccccccc"
# The module waits a second, then two, before it sends again what the API was too busy for: a
# short wait_timeout keeps those waits short.
SHORT_WAIT = 1


def instance(instance_id, hostname, status, volume_ids=(), os_volume_id=None):
    return {
        "id": instance_id,
        "hostname": hostname,
        "status": status,
        "volume_ids": list(volume_ids),
        "os_volume_id": os_volume_id,
    }


def item(action, instance_id, status_code=None, error=None):
    if status_code is None:
        return {"action": action, "instanceId": instance_id, "status": "success"}
    return {"action": action, "instanceId": instance_id, "status": "error", "error": error, "statusCode": status_code}


class Project:
    """The instances behind the scripted API. ``GET /instances`` answers them as they are; each
    ``PUT /instances`` takes the next scripted answer (status, per-instance items) and applies
    it as the API would: a successful item's action takes effect, a 404 item is an instance
    gone."""

    def __init__(self, api, instances, put_answers=()):
        self.api = api
        self.instances = dict((record["id"], dict(record)) for record in instances)
        self.put_answers = list(put_answers)
        instances_url = re.compile(r".*/v1/instances$")
        api.mock.add_callback(responses.GET, instances_url, callback=self.list, content_type="application/json")
        api.mock.add_callback(responses.PUT, instances_url, callback=self.act, content_type="application/json")

    @property
    def puts(self):
        """The bodies of the PUT requests sent."""
        return [json.loads(call.request.body) for call in self.api.mock.calls if call.request.method == "PUT"]

    def list(self, _request):
        return 200, {}, json.dumps(list(self.instances.values()))

    def act(self, request):
        action = json.loads(request.body)["action"]
        status, items = self.put_answers.pop(0)
        for result in items:
            if result.get("statusCode") == 404:
                self.instances.pop(result["instanceId"], None)
            elif result["status"] == "success":
                if action in ("shutdown", "force_shutdown"):
                    self.instances[result["instanceId"]]["status"] = "offline"
                elif action == "start":
                    self.instances[result["instanceId"]]["status"] = "running"
                else:
                    del self.instances[result["instanceId"]]
        return status, {}, json.dumps(items)


def test_a_207_names_the_failed_items_and_a_202_none():
    body = [item("shutdown", A), item("shutdown", B, 400, "Cannot shutdown instance B while it is offline")]
    failures = item_failures(body, "shutdown")
    assert [(failure.instance_id, failure.status_code, failure.retryable) for failure in failures] == [(B, 400, False)]
    assert item_failures([item("shutdown", A)], "shutdown") == []


def test_one_bulk_request_for_every_instance_that_needs_the_action(api, run_module):
    project = Project(
        api,
        [instance(A, "a", "running"), instance(B, "b", "running"), instance(C, "c", "offline")],
        [(202, [item("shutdown", A), item("shutdown", B)])],
    )
    result = run_module(main, dict(instances=["a", "b", "c"], state="stopped"))
    assert project.puts == [{"action": "shutdown", "id": [A, B]}]
    assert result["changed"] is True
    assert [record["status"] for record in result["instances"]] == ["offline"] * 3


def test_a_207_without_items_counts_every_instance_as_failed_and_sends_them_again(api, run_module):
    project = Project(
        api,
        [instance(A, "a", "offline"), instance(B, "b", "offline")],
        [(207, []), (202, [item("start", A), item("start", B)])],
    )
    result = run_module(main, dict(instances=["a", "b"], state="running", wait_timeout=SHORT_WAIT))
    assert [put["id"] for put in project.puts] == [[A, B], [A, B]]
    assert result["changed"] is True and "failures" not in result, result


def test_an_item_the_api_was_busy_for_is_sent_again_alone(api, run_module):
    project = Project(
        api,
        [instance(A, "a", "offline"), instance(B, "b", "offline")],
        [(207, [item("start", A), item("start", B, 503, "busy")]), (202, [item("start", B)])],
    )
    result = run_module(main, dict(instances=["a", "b"], state="running", wait_timeout=SHORT_WAIT))
    assert [put["id"] for put in project.puts] == [[A, B], [B]]
    assert result["changed"] is True
    assert [action["instance_ids"] for action in result["actions"]] == [[A, B], [B]]


def test_a_refused_item_fails_the_task_naming_it_after_the_others_are_done(api, run_module):
    project = Project(
        api,
        [instance(A, "a", "running"), instance(B, "b", "running")],
        [(207, [item("shutdown", A), item("shutdown", B, 400, "Instance b has a pending power action")])],
    )
    result = run_module(main, dict(instances=["a", "b"], state="stopped"))
    assert len(project.puts) == 1  # a 4xx is not sent again
    assert result["failed"] is True
    assert "1 of 2 instances could not be brought to state=stopped" in result["msg"]
    assert f"b ({B}): shutdown failed (HTTP 400): Instance b has a pending power action" in result["msg"]
    assert result["changed"] is True
    assert result["failures"] == [
        {
            "id": B,
            "hostname": "b",
            "action": "shutdown",
            "status_code": 400,
            "error": "Instance b has a pending power action",
        }
    ]
    assert [record["status"] for record in result["instances"]] == ["offline", "running"]


def test_an_item_still_busy_after_three_attempts_fails(api, run_module):
    busy = [(207, [item("delete", A, 503, "busy")])] * 3
    project = Project(api, [instance(A, "a", "running", [A + "-os"], A + "-os")], busy)
    result = run_module(main, dict(instances=["a"], state="absent", wait_timeout=SHORT_WAIT))
    assert len(project.puts) == 3
    assert result["failed"] is True and result["changed"] is False
    assert result["failures"][0]["status_code"] == 503


def test_a_delete_the_api_answers_404_for_is_done(api, run_module):
    project = Project(
        api,
        [instance(A, "a", "running"), instance(B, "b", "running")],
        [(207, [item("delete", A), item("delete", B, 404, "not found")])],
    )
    result = run_module(main, dict(instances=["a", "b"], state="absent", delete_volumes=["none"]))
    assert project.puts == [{"action": "delete", "id": [A, B], "volume_ids": [], "delete_permanently": False}]
    assert result["changed"] is True and "failures" not in result, result


def test_delete_volumes_by_name_are_sent_once_for_the_instances_they_are_attached_to(api, run_module):
    project = Project(
        api,
        [instance(A, "a", "running", ["os-a", "data"], "os-a"), instance(B, "b", "running", ["os-b"], "os-b")],
        [(202, [item("delete", A), item("delete", B)])],
    )
    api.answer(responses.GET, "/volumes", json=[{"id": "data", "name": "shared-data"}])
    result = run_module(main, dict(instances=["a", "b"], state="absent", delete_volumes=["os", "shared-data"]))
    assert project.puts[0]["volume_ids"] == ["data", "os-a", "os-b"]
    assert result["deleted_volume_ids"] == ["data", "os-a", "os-b"]
    assert result["detached_volume_ids"] == []


def test_check_mode_sends_nothing_and_predicts_the_requests(api, run_module):
    Project(api, [instance(A, "a", "provisioning"), instance(B, "b", "offline")])
    result = run_module(main, dict(instances=["a", "b", "ghost"], state="hibernated"), check_mode=True, diff=True)
    assert api.sent == [("GET", "/instances")]
    assert [action["action"] for action in result["actions"]] == ["shutdown", "hibernate"]
    assert result["actions"][0]["instance_ids"] == [A]
    assert result["missing"] == ["ghost"]
    assert result["diff"] == {"before": {"a": "provisioning", "b": "offline"}, "after": {}}


def test_an_instance_removed_while_it_is_waited_for_is_named_by_its_hostname(api, run_module):
    api.answer(responses.GET, "/instances", json=[instance(A, "a", "provisioning")])
    api.answer(responses.GET, "/instances", json=[])
    result = run_module(main, dict(instances=["a"], state="running"))
    assert api.sent == [("GET", "/instances")] * 2
    assert result["failed"] is True
    assert result["msg"] == f"1 instances to be running: 1 of 1 will never get there: instance a ({A}) is being removed"
