"""cluster's plan and prediction, against a scripted API: what a task reads, what it sends and
what it reports, for a no-op, a deploy (check mode), a worker node change, a discontinue with
its shared volumes and a change the API cannot make."""

import responses

from ansible_collections.cloudcompute.cloud.plugins.modules.cluster import main

CLUSTER_ID = "2a2b3c4d-0000-4000-8000-000000000001"
WORKER_ID = "2a2b3c4d-0000-4000-8000-0000000000b1"
SHARED_VOLUME_ID = "2a2b3c4d-0000-4000-8000-0000000000c1"
RUNNING = {
    "id": CLUSTER_ID,
    "hostname": "train",
    "status": "running",
    "cluster_type": "16H200",
    "image": "ubuntu-24.04-cuda",
    "location": "FIN-01",
    "description": "",
    "contract": "PAY_AS_YOU_GO",
    "extension_settings": None,
    "ip": "10.0.0.2",
    "ssh_key_ids": [],
    "startup_script_id": None,
    "tags": [],
    "price_per_hour": 50.0,
    "shared_volumes": [{"id": SHARED_VOLUME_ID, "name": "home", "size_in_gigabytes": 500}],
    "worker_nodes": [{"id": WORKER_ID, "hostname": "train-worker-1", "status": "running"}],
    "created_at": "2026-11-01T10:00:00Z",
}
ONE = "/clusters/" + CLUSTER_ID
DEPLOY = dict(
    hostname="train",
    cluster_type="16H200",
    image="ubuntu-24.04-cuda",
    location_code="FIN-01",
    shared_volume=dict(name="home", size=500),
)


def test_a_cluster_in_its_state_is_one_read_and_no_change(api, run_module):
    api.answer(responses.GET, "/clusters", json=[RUNNING])
    result = run_module(main, dict(DEPLOY, nodes=[dict(hostname="train-worker-1", state="running")]), diff=True)
    assert result["changed"] is False
    assert result["cluster"]["id"] == CLUSTER_ID
    assert result["diff"]["before"] == result["diff"]["after"]
    assert result["cost"]["price_per_hour"] == 50.0
    assert api.sent == [("GET", "/clusters")]


def test_check_mode_predicts_the_deploy_with_its_nodes_and_cost_and_sends_no_write(api, run_module):
    api.answer(responses.GET, "/clusters", json=[])
    api.answer(responses.GET, "/cluster-types", json=[{"cluster_type": "16H200", "price_per_hour": "50.0"}])
    api.answer(
        responses.GET,
        "/volume-types",
        json=[{"type": "NVMe_Shared_Cluster", "price": {"price_per_month_per_gb": 0.146}}],
    )
    result = run_module(main, dict(DEPLOY, nodes=[dict(hostname="train-worker-1", state="stopped")]), check_mode=True)
    assert result["changed"] is True, result
    cluster = result["cluster"]
    assert (cluster["id"], cluster["status"], cluster["location"]) == (None, "running", "FIN-01")
    assert cluster["worker_nodes"] == [{"id": None, "hostname": "train-worker-1", "status": "offline"}]
    assert cluster["shared_volumes"][0]["size_in_gigabytes"] == 500
    assert result["deploy_cost"]["price_per_hour"] == 50.1  # the cluster, and 500 GB of shared volume
    # its own price, as a later run reports it from the API
    assert result["cost"] == {
        "price_per_hour": 50.0,
        "currency": "usd",
        "basis": [{"item": "cluster 16H200", "price_per_hour": 50.0}],
    }
    assert api.sent == [("GET", "/clusters"), ("GET", "/cluster-types"), ("GET", "/volume-types")]


def test_a_worker_node_is_shut_down(api, run_module):
    node_actions = f"{ONE}/nodes/{WORKER_ID}/actions"
    api.answer(responses.GET, "/clusters", json=[RUNNING])
    api.answer(responses.POST, node_actions, status=202)
    api.answer(
        responses.GET, ONE, json=dict(RUNNING, worker_nodes=[dict(RUNNING["worker_nodes"][0], status="offline")])
    )
    result = run_module(
        main, dict(hostname="train", nodes=[dict(hostname="train-worker-1", state="stopped")]), diff=True
    )
    assert result["changed"] is True, result
    assert (result["diff"]["before"]["nodes"], result["diff"]["after"]["nodes"]) == (
        {"train-worker-1": "running"},
        {"train-worker-1": "offline"},
    )
    assert api.sent == [("GET", "/clusters"), ("POST", node_actions), ("GET", ONE)]
    assert api.body(1) == {"action": "shutdown"}


def test_a_node_the_cluster_does_not_have_is_refused_before_any_write(api, run_module):
    api.answer(responses.GET, "/clusters", json=[RUNNING])
    result = run_module(main, dict(hostname="train", nodes=[dict(hostname="train-worker-9", state="stopped")]))
    assert result["failed"] is True
    assert "cluster train has no worker node 'train-worker-9' (its workers: train-worker-1)" in result["msg"]
    assert api.sent == [("GET", "/clusters")]


def test_a_discontinue_deletes_the_shared_volumes_once_the_cluster_is_gone(api, run_module):
    api.answer(responses.GET, "/clusters", json=[RUNNING])
    api.answer(responses.PUT, "/clusters", status=202)
    api.answer(responses.GET, ONE, status=404, json={"code": "not_found", "message": "no such cluster"})
    api.answer(responses.DELETE, "/volumes/" + SHARED_VOLUME_ID, status=202)
    result = run_module(main, dict(hostname="train", state="absent", delete_shared_volumes=True, wait=False))
    assert result["changed"] is True, result
    assert (result["deleted_volume_ids"], result["detached_volume_ids"]) == ([SHARED_VOLUME_ID], [])
    assert result["cluster"] == {}
    assert api.sent == [
        ("GET", "/clusters"),
        ("PUT", "/clusters"),
        ("GET", ONE),
        ("DELETE", "/volumes/" + SHARED_VOLUME_ID),
    ]
    assert api.body(1) == {"actions": [{"action": "discontinue", "id": CLUSTER_ID}]}


def test_a_discontinue_keeps_the_shared_volumes_detached(api, run_module):
    api.answer(responses.GET, "/clusters", json=[RUNNING])
    api.answer(responses.PUT, "/clusters", status=202)
    result = run_module(main, dict(hostname="train", state="absent", wait=False))
    assert result["changed"] is True, result
    assert (result["deleted_volume_ids"], result["detached_volume_ids"]) == ([], [SHARED_VOLUME_ID])
    assert api.sent == [("GET", "/clusters"), ("PUT", "/clusters")]


def test_a_discontinue_forgets_the_host_keys_of_the_jump_host_and_the_workers(api, run_module, known_hosts):
    known_hosts.write_text(f"cloudcompute-{CLUSTER_ID} ssh-ed25519 AAAA\ncloudcompute-{WORKER_ID} ssh-ed25519 AAAA\n")
    api.answer(responses.GET, "/clusters", json=[RUNNING])
    api.answer(responses.PUT, "/clusters", status=202)
    result = run_module(main, dict(hostname="train", state="absent", wait=False))
    assert result["changed"] is True, result
    assert known_hosts.read_text() == ""


def test_a_cluster_being_discontinued_is_no_change(api, run_module):
    api.answer(responses.GET, "/clusters", json=[dict(RUNNING, status="discontinued")])
    result = run_module(main, dict(hostname="train", state="absent", wait=False), diff=True)
    assert result["changed"] is False
    assert result["diff"] == {"before": {}, "after": {}}
    assert api.sent == [("GET", "/clusters")]


def test_a_change_the_api_cannot_make_is_refused_before_any_write(api, run_module):
    api.answer(responses.GET, "/clusters", json=[RUNNING])
    result = run_module(main, dict(DEPLOY, cluster_type="8B200"))
    assert result["failed"] is True
    assert result["msg"].startswith(f"cannot change cluster_type of existing cluster train ({CLUSTER_ID})")
    assert "discontinue the cluster (state=absent)" in result["msg"]
    assert result["immutable"] == {"cluster_type": {"desired": "8B200", "current": "16H200"}}
    assert api.sent == [("GET", "/clusters")]


def test_a_location_outside_the_placement_candidates_is_refused_before_any_request(api, run_module):
    result = run_module(main, dict(DEPLOY, location_code="FIN-02", placement=dict(locations=["FIN-01", "ICE-01"])))
    assert result["failed"] is True
    assert "location_code=FIN-02 is not among placement.locations" in result["msg"]
    assert api.sent == []
