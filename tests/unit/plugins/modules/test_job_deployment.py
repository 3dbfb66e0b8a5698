"""job_deployment's plan and prediction, against a scripted API."""

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.job_deployment import main

PATH = "/job-deployments/batch"
NOT_FOUND = {"code": "not_found", "message": "no job deployment batch"}
RECORD = {
    "name": "batch",
    "containers": [
        {
            "name": "worker",
            "image": {"image": "worker:1.0", "last_updated_at": "2026-11-01T10:00:00.000Z"},
            "exposed_port": 8000,
            "env": [],
            "volume_mounts": [],
        }
    ],
    "compute": {"name": "H100", "size": 1},
    "scaling": {"max_replica_count": 3, "queue_message_ttl_seconds": 300, "deadline_seconds": 3600},
    "container_registry_settings": {"is_private": False, "credentials": None},
    "endpoint_base_url": "https://jobs.example.com/batch",
    "created_at": "2026-11-01T10:00:00.000Z",
}
COMPUTE = {"name": "H100", "size": 1}


def existing(api, *statuses):
    """The deployment as it is, and its status on each successive read (None: gone)."""
    api.answer(responses.GET, PATH, json=RECORD)
    for status in statuses:
        if status is None:
            api.answer(responses.GET, PATH + "/status", json=NOT_FOUND, status=404)
        else:
            api.answer(responses.GET, PATH + "/status", json={"status": status})


def test_a_deployment_as_asked_is_its_two_reads_and_no_change(api, run_module):
    existing(api, "running")
    result = run_module(
        main,
        dict(name="batch", containers=[{"image": "worker:1.0"}], compute=COMPUTE, scaling={"max_replica_count": 3}),
    )
    assert result["changed"] is False, result
    assert result["queue_purged"] is False
    assert result["job_deployment"] == dict(RECORD, status="running")
    assert api.sent == [("GET", PATH), ("GET", PATH + "/status")]


def test_check_mode_predicts_the_create_and_sends_no_write(api, run_module):
    api.answer(responses.GET, PATH, json=NOT_FOUND, status=404)
    result = run_module(
        main,
        dict(name="batch", containers=[{"image": "worker:1.0"}], compute=COMPUTE, state="paused"),
        check_mode=True,
        diff=True,
    )
    assert result["changed"] is True, result
    predicted = result["job_deployment"]
    assert predicted["status"] == "paused"  # created running, then paused
    assert predicted["scaling"] == {}  # the API's defaults are not known here
    assert predicted["container_registry_settings"] == {"is_private": False, "credentials": None}
    assert result["queue_purged"] is False
    assert result["diff"]["before"] == {} and result["diff"]["after"]["containers"][0]["image"] == "worker:1.0"
    assert api.sent == [("GET", PATH)]


def test_a_create_then_the_pause_its_state_asks_for(api, run_module):
    api.answer(responses.GET, PATH, json=NOT_FOUND, status=404)
    api.answer(responses.POST, "/job-deployments", json=RECORD, status=201)
    api.answer(responses.POST, PATH + "/pause", status=201)
    api.answer(responses.GET, PATH + "/status", json={"status": "paused"})
    result = run_module(
        main,
        dict(name="batch", containers=[{"image": "worker:1.0"}], compute=COMPUTE, state="paused", purge_queue=True),
    )
    assert result["changed"] is True, result
    assert result["job_deployment"] == dict(RECORD, status="paused")
    assert result["queue_purged"] is False  # a new deployment has no queue to purge
    assert api.sent == [
        ("GET", PATH),
        ("POST", "/job-deployments"),
        ("POST", PATH + "/pause"),
        ("GET", PATH + "/status"),
    ]


def test_the_queue_is_purged_before_a_paused_deployment_resumes(api, run_module):
    existing(api, "paused", "running")
    api.answer(responses.POST, PATH + "/purge-queue", status=201)
    api.answer(responses.POST, PATH + "/resume", status=201)
    result = run_module(main, dict(name="batch", purge_queue=True), diff=True)
    assert result["changed"] is True, result
    assert result["queue_purged"] is True
    assert result["job_deployment"]["status"] == "running"
    assert result["diff"]["before"]["status"] == "paused" and result["diff"]["after"]["status"] == "running"
    assert api.sent == [
        ("GET", PATH),
        ("GET", PATH + "/status"),
        ("POST", PATH + "/purge-queue"),
        ("POST", PATH + "/resume"),
        ("GET", PATH + "/status"),
    ]


def test_check_mode_predicts_a_purge_and_an_update_and_sends_no_write(api, run_module):
    existing(api, "running")
    result = run_module(main, dict(name="batch", purge_queue=True, scaling={"max_replica_count": 8}), check_mode=True)
    assert result["changed"] is True, result
    assert result["queue_purged"] is True
    assert result["job_deployment"]["scaling"] == dict(RECORD["scaling"], max_replica_count=8)
    assert result["job_deployment"]["status"] == "running"
    assert api.sent == [("GET", PATH), ("GET", PATH + "/status")]


def test_delete_waits_until_it_is_gone(api, run_module):
    existing(api, "running", "terminating", None)
    api.answer(responses.DELETE, PATH, status=202)
    result = run_module(main, dict(name="batch", state="absent"))
    assert result["changed"] is True, result
    assert result["job_deployment"] == {}
    assert api.sent == [
        ("GET", PATH),
        ("GET", PATH + "/status"),
        ("DELETE", PATH + "?timeout=0"),
        ("GET", PATH + "/status"),
        ("GET", PATH + "/status"),
    ]


def test_one_being_deleted_is_only_waited_for(api, run_module):
    existing(api, "terminating", None)
    result = run_module(main, dict(name="batch", state="absent"))
    assert result["changed"] is False, result
    assert result["job_deployment"] == {}
    assert api.sent == [("GET", PATH), ("GET", PATH + "/status"), ("GET", PATH + "/status")]


def test_one_being_deleted_is_waited_out_before_it_is_created_again(api, run_module):
    existing(api, "terminating", None, "running")
    api.answer(responses.POST, "/job-deployments", json=RECORD, status=201)
    result = run_module(main, dict(name="batch", containers=[{"image": "worker:1.0"}], compute=COMPUTE), diff=True)
    assert result["changed"] is True, result
    assert result["diff"]["before"] == {}  # what was being deleted is not what this run changed
    assert result["job_deployment"]["status"] == "running"
    assert api.sent == [
        ("GET", PATH),
        ("GET", PATH + "/status"),
        ("GET", PATH + "/status"),
        ("POST", "/job-deployments"),
        ("GET", PATH + "/status"),
    ]


CONFLICT = {"code": "conflict", "message": "a job deployment named batch exists"}
CREATE = dict(name="batch", containers=[{"image": "worker:1.0"}], compute=COMPUTE)


def test_a_create_refused_as_taken_adopts_what_another_run_created_meanwhile(api, run_module):
    api.answer(responses.GET, PATH, json=NOT_FOUND, status=404)
    api.answer(responses.POST, "/job-deployments", json=CONFLICT, status=409)
    existing(api, "running")  # read again after the refusal: another run's deployment
    result = run_module(main, CREATE)
    assert result["changed"] is True, result
    assert result["job_deployment"] == dict(RECORD, status="running")
    assert api.sent == [("GET", PATH), ("POST", "/job-deployments"), ("GET", PATH), ("GET", PATH + "/status")]


def test_a_name_still_held_by_a_deletion_is_waited_for(api, run_module):
    api.answer(responses.GET, PATH, json=NOT_FOUND, status=404)
    api.answer(responses.POST, "/job-deployments", json=CONFLICT, status=409)
    api.answer(responses.GET, PATH, json=NOT_FOUND, status=404)  # nobody holds it but a deletion
    api.answer(responses.POST, "/job-deployments", json=RECORD, status=201)
    api.answer(responses.GET, PATH + "/status", json={"status": "running"})
    result = run_module(main, CREATE)
    assert result["changed"] is True, result
    assert result["job_deployment"] == dict(RECORD, status="running")
    assert api.sent == [
        ("GET", PATH),
        ("POST", "/job-deployments"),
        ("GET", PATH),
        ("POST", "/job-deployments"),
        ("GET", PATH + "/status"),
    ]


def test_a_name_still_held_by_a_deletion_fails_a_run_that_may_not_wait_with_advice(api, run_module):
    api.answer(responses.GET, PATH, json=NOT_FOUND, status=404)
    api.answer(responses.POST, "/job-deployments", json=CONFLICT, status=409)
    result = run_module(main, dict(CREATE, wait=False))
    assert result["failed"] is True
    assert result["failure"]["code"] == "conflict"
    assert "may still be being deleted: retry in a moment, or set wait: true to wait for it" in result["msg"]
    assert api.sent == [("GET", PATH), ("POST", "/job-deployments"), ("GET", PATH)]


def test_one_being_deleted_fails_a_run_that_may_not_wait(api, run_module):
    existing(api, "terminating")
    result = run_module(main, dict(name="batch", compute=COMPUTE), check_mode=True)
    assert result["failed"] is True
    assert "is being deleted (status terminating)" in result["msg"]
    assert api.sent == [("GET", PATH), ("GET", PATH + "/status")]


def test_bad_input_is_refused_before_any_request(api, run_module):
    purge_on_delete = run_module(main, dict(name="batch", state="absent", purge_queue=True))
    assert purge_on_delete["failed"] is True
    assert "purge_queue does not apply to state=absent" in purge_on_delete["msg"]
    bad_name = run_module(main, dict(name="-batch", state="absent"))
    assert bad_name["msg"].startswith("name: '-batch' is not a DNS label")
    bad_env = run_module(
        main, dict(name="batch", containers=[{"image": "w", "env": [{"name": "A-B", "value": "1"}]}], compute=COMPUTE)
    )
    assert "containers[0].env: 'A-B' is not a variable name" in bad_env["msg"]
    no_replicas = run_module(main, dict(name="batch", scaling={"max_replica_count": 0}))
    assert no_replicas["msg"] == "scaling.max_replica_count: must be at least 1"
    assert api.sent == []
