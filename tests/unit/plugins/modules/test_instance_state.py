"""instance_state: what it does with the per-instance results of a bulk action (202/207),
against a scripted API (the emulator cannot be made to refuse one item of a bulk request on
demand). The happy paths run against the emulator in tests/integration/targets/instance_state."""

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import Response
from ansible_collections.cloudcompute.cloud.plugins.module_utils._instance_actions import act_on_many, item_failures
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.modules.instance_state import InstanceState

A = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
B = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
C = "cccccccc-cccc-4ccc-8ccc-cccccccccccc"


def instance(instance_id, hostname, status, volume_ids=(), os_volume_id=None):
    return {"id": instance_id, "hostname": hostname, "status": status, "volume_ids": list(volume_ids),
            "os_volume_id": os_volume_id}


def item(action, instance_id, status_code=None, error=None):
    if status_code is None:
        return {"action": action, "instanceId": instance_id, "status": "success"}
    return {"action": action, "instanceId": instance_id, "status": "error", "error": error, "statusCode": status_code}


class ScriptedApi:
    """GET /instances answers the current records; each PUT (``request``, which answers the
    whole response, status included) takes the next scripted answer and applies the successful
    items to the records, as the API would."""

    def __init__(self, instances, put_answers):
        self.instances = dict((record["id"], dict(record)) for record in instances)
        self.put_answers = list(put_answers)
        self.puts = []

    def pacing_delay(self):
        return 0

    def get(self, path, params=None):
        assert path == "/instances"
        return [dict(record) for record in self.instances.values()]

    def get_list(self, path, params=None):
        return self.get(path, params)

    def request(self, method, path, json_body=None):
        assert (method, path) == ("PUT", "/instances")
        self.puts.append(json_body)
        status, items = self.put_answers.pop(0)
        for result in items:
            if result["status"] == "success":
                record = self.instances[result["instanceId"]]
                if json_body["action"] in ("shutdown", "force_shutdown"):
                    record["status"] = "offline"
                elif json_body["action"] == "start":
                    record["status"] = "running"
                else:
                    del self.instances[result["instanceId"]]
        return Response(status, {}, items)


class FakeModule:
    def __init__(self, client, check_mode=False, diff=False, **params):
        self.client = client
        self.check_mode = check_mode
        self._diff = diff
        self.params = dict(force=False, delete_volumes=["os"], delete_permanently=False, wait=True, wait_timeout=30)
        self.params.update(params)


def converge(api, **params):
    state = InstanceState(FakeModule(api, **params))
    state.budget.sleep = lambda seconds: None
    return state.converge()


def test_a_207_names_the_failed_items_and_a_202_none():
    body = [item("shutdown", A), item("shutdown", B, 400, "Cannot shutdown instance B while it is offline")]
    failures = item_failures(body, "shutdown")
    assert [(failure.instance_id, failure.status_code, failure.retryable) for failure in failures] == [(B, 400, False)]
    assert item_failures([item("shutdown", A)], "shutdown") == []


def test_a_207_without_items_counts_every_instance_as_failed():
    api = ScriptedApi([], [(207, [])])
    failures = act_on_many(api, [A, B], "start")
    assert [failure.instance_id for failure in failures] == [A, B]
    assert all(failure.retryable for failure in failures)


def test_one_bulk_request_for_every_instance_that_needs_the_action():
    api = ScriptedApi([instance(A, "a", "running"), instance(B, "b", "running"), instance(C, "c", "offline")],
                      [(202, [item("shutdown", A), item("shutdown", B)])])
    result = converge(api, instances=["a", "b", "c"], state="stopped")
    assert api.puts == [{"action": "shutdown", "id": [A, B]}]
    assert result["changed"] is True
    assert [record["status"] for record in result["instances"]] == ["offline"] * 3


def test_an_item_the_api_was_busy_for_is_sent_again_alone():
    api = ScriptedApi([instance(A, "a", "offline"), instance(B, "b", "offline")],
                      [(207, [item("start", A), item("start", B, 503, "busy")]), (202, [item("start", B)])])
    result = converge(api, instances=["a", "b"], state="running")
    assert [put["id"] for put in api.puts] == [[A, B], [B]]
    assert result["changed"] is True
    assert [action["instance_ids"] for action in result["actions"]] == [[A, B], [B]]


def test_a_refused_item_fails_the_task_naming_it_after_the_others_are_done():
    api = ScriptedApi([instance(A, "a", "running"), instance(B, "b", "running")],
                      [(207, [item("shutdown", A), item("shutdown", B, 400, "Instance b has a pending power action")])])
    with pytest.raises(ModuleFailure) as failure:
        converge(api, instances=["a", "b"], state="stopped")
    assert len(api.puts) == 1  # a 4xx is not sent again
    assert "1 of 2 instances could not be brought to state=stopped" in failure.value.msg
    assert "b (%s): shutdown failed (HTTP 400): Instance b has a pending power action" % B in failure.value.msg
    result = failure.value.result
    assert result["changed"] is True
    assert result["failures"] == [{"id": B, "hostname": "b", "action": "shutdown", "status_code": 400,
                                   "error": "Instance b has a pending power action"}]
    assert [record["status"] for record in result["instances"]] == ["offline", "running"]


def test_an_item_still_busy_after_three_attempts_fails():
    busy = [(207, [item("delete", A, 503, "busy")])] * 3
    api = ScriptedApi([instance(A, "a", "running", [A + "-os"], A + "-os")], busy)
    with pytest.raises(ModuleFailure) as failure:
        converge(api, instances=["a"], state="absent")
    assert len(api.puts) == 3
    assert failure.value.result["changed"] is False
    assert failure.value.result["failures"][0]["status_code"] == 503


def test_a_delete_the_api_answers_404_for_is_done():
    api = ScriptedApi([instance(A, "a", "running"), instance(B, "b", "running")],
                      [(207, [item("delete", A), item("delete", B, 404, "not found")])])
    answer_put = api.request

    def put_while_b_vanishes(method, path, json_body=None):
        response = answer_put(method, path, json_body)
        api.instances.pop(B, None)  # deleted by someone else meanwhile
        return response
    api.request = put_while_b_vanishes
    result = converge(api, instances=["a", "b"], state="absent", delete_volumes=["none"])
    assert api.puts == [{"action": "delete", "id": [A, B], "volume_ids": [], "delete_permanently": False}]
    assert result["changed"] is True and "failures" not in result


def test_delete_volumes_by_name_are_sent_once_for_the_instances_they_are_attached_to():
    api = ScriptedApi([instance(A, "a", "running", ["os-a", "data"], "os-a"), instance(B, "b", "running", ["os-b"], "os-b")],
                      [(202, [item("delete", A), item("delete", B)])])
    list_instances = api.get
    api.get = lambda path, params=None: [{"id": "data", "name": "shared-data"}] if path == "/volumes" else list_instances(path)
    result = converge(api, instances=["a", "b"], state="absent", delete_volumes=["os", "shared-data"])
    assert api.puts[0]["volume_ids"] == ["data", "os-a", "os-b"]
    assert result["deleted_volume_ids"] == ["data", "os-a", "os-b"]
    assert result["detached_volume_ids"] == []


def test_check_mode_sends_nothing_and_predicts_the_requests():
    api = ScriptedApi([instance(A, "a", "provisioning"), instance(B, "b", "offline")], [])
    result = converge(api, instances=["a", "b", "ghost"], state="hibernated", check_mode=True, diff=True)
    assert api.puts == []
    assert [action["action"] for action in result["actions"]] == ["shutdown", "hibernate"]
    assert result["actions"][0]["instance_ids"] == [A]
    assert result["missing"] == ["ghost"]
    assert result["diff"] == {"before": {"a": "provisioning", "b": "offline"}, "after": {}}
