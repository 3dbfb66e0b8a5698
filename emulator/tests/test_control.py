"""The control API: reset, credentials, seeding at scale, request log, settings, clock, dumps."""

from __future__ import annotations

import time

import pytest
import requests
from conftest import ApiClient, assert_error, wait_for

from cloudcompute_emulator.control import EmulatorControlError


def test_health_and_clock(control) -> None:
    assert control.health()["status"] == "ok"
    before = control.clock()
    after = control.advance_clock(3600)
    assert after["offset_seconds"] == before["offset_seconds"] + 3600
    with pytest.raises(EmulatorControlError) as error:
        control.advance_clock(-1)
    assert error.value.status == 400


def test_reset_keeps_credentials_unless_asked(api: ApiClient, emulator_reset) -> None:
    control = emulator_reset.control
    api.ssh_key()
    extra = control.create_credentials(role="admin")
    control.add_fault(path="/v1/nothing", status=500)
    control.reset()
    assert api.ok("GET", "/ssh-keys").json() == []  # resources gone, the old token still works
    assert control.faults()["faults"] == []
    assert emulator_reset.access_token(extra["client_id"], extra["client_secret"])
    control.reset(credentials=True)
    assert_error(api.get("/ssh-keys"), 401, "unauthorized_request")  # every token is gone
    with pytest.raises(requests.HTTPError):
        emulator_reset.access_token(extra["client_id"], extra["client_secret"])
    # the launch credential and inference key are made again, the same
    assert emulator_reset.access_token()
    assert control.credentials()["launch"]["inference_api_key"] == emulator_reset.inference_api_key


def test_credentials_endpoint(control, emulator_reset) -> None:
    created = control.create_credentials(role="member", client_id="ci-member", client_secret="s3cret")
    assert created == {"client_id": "ci-member", "client_secret": "s3cret", "project_id": emulator_reset.project_id,
                       "role": "member", "user_id": created["user_id"]}
    listed = control.credentials()
    assert listed["default_project_id"] == emulator_reset.project_id
    assert "ci-member" in {item["client_id"] for item in listed["credentials"]}
    with pytest.raises(EmulatorControlError):
        control.create_credentials(role="superuser")
    with pytest.raises(EmulatorControlError):
        control.create_credentials(role="owner", client_id="ci-member", project_id="elsewhere")


def test_seed_ten_thousand_instances_fast(api: ApiClient, control) -> None:
    started = time.perf_counter()
    result = control.seed(instances=10_000, volumes=50, clusters=2, tags={"fleet": "big"}, hostname_prefix="node")
    assert time.perf_counter() - started < 4
    assert len(result["instance_ids"]) == 10_000 and len(result["volume_ids"]) == 50
    assert len(result["cluster_ids"]) == 2 and result["unsupported"] == []
    control.clear_requests()
    started = time.perf_counter()
    listing = api.ok("GET", "/instances")
    elapsed = time.perf_counter() - started
    instances = listing.json()
    # the server's own time (the request log) about half a second on an idle machine; the
    # client's includes moving 8 MB. Both bounds leave room for the other xdist worker (and
    # whatever else) sharing the two cores.
    [entry] = control.requests(path="/v1/instances")["requests"]
    assert len(instances) == 10_000 and entry["duration_ms"] < 2000 and elapsed < 4, (entry["duration_ms"], elapsed)
    assert instances[0]["hostname"] == "node-00001" and instances[0]["status"] == "running" and instances[0]["ip"]
    assert len({instance["ip"] for instance in instances}) == 10_000
    assert instances[0]["tags"][0]["key"] == "fleet"
    assert len(api.ok("GET", "/instances", params={"tag": "fleet=big", "status": "running"}).json()) == 10_000
    assert len(api.ok("GET", "/volumes").json()) == 10_052  # with the two clusters' shared volumes
    started = time.perf_counter()
    api.ok("GET", f"/instances/{result['instance_ids'][5000]}")
    assert time.perf_counter() - started < 0.1


def test_seed_options(api: ApiClient, control, settle) -> None:
    result = control.seed(instances=3, status="ordered", instance_type="1A100.22V", location_code="FIN-02", is_spot=True,
                          tags=[{"key": "a"}], hostname_prefix="gpu")
    instance = api.instance(result["instance_ids"][0])
    assert instance["status"] == "ordered" and instance["location"] == "FIN-02" and instance["is_spot"]
    settle()
    assert api.instance(result["instance_ids"][0])["status"] == "running"
    with pytest.raises(EmulatorControlError):
        control.seed(instances=1, instance_type="nope")
    with pytest.raises(EmulatorControlError):
        control.seed(instances=1, colour="red")  # unknown options are refused


def test_request_log_is_exact(api: ApiClient, anonymous: ApiClient, control, emulator_reset) -> None:
    control.clear_requests()
    api.ok("GET", "/instances", params={"status": "running"})
    anonymous.get("/instances")
    anonymous.ok("POST", "/oauth2/token", data={"grant_type": "client_credentials", "client_id": emulator_reset.client_id,
                                                  "client_secret": emulator_reset.client_secret})
    api.post("/ssh-keys", json={})
    control.health()  # not logged
    log = control.requests()
    assert log["total"] == 4 and log["count"] == 4 and log["dropped"] == 0
    listing, refused, token, invalid = log["requests"]
    assert listing["method"] == "GET" and listing["path"] == "/v1/instances" and listing["query"] == "status=running"
    assert listing["status"] == 200 and listing["client_id"] == emulator_reset.client_id and listing["auth"] == "bearer"
    assert listing["timestamp"].endswith("Z") and listing["duration_ms"] > 0
    assert refused["status"] == 401 and refused["auth"] == "none" and refused["client_id"] is None
    assert token["grant_type"] == "client_credentials" and token["client_id"] == emulator_reset.client_id
    assert invalid["status"] == 400
    assert control.requests(since=listing["seq"], method="post")["count"] == 2
    assert control.requests(path="/v1/ssh-*")["count"] == 1
    assert control.requests(client_id=emulator_reset.client_id)["count"] == 3


def test_request_log_names_the_connection(api: ApiClient, anonymous: ApiClient, control) -> None:
    """``client_address`` is the TCP peer: one kept-alive connection keeps it, another differs."""
    control.clear_requests()
    api.ok("GET", "/locations")
    api.ok("GET", "/instance-types")
    anonymous.get("/instances")
    first, second, other = control.requests()["requests"]
    host, port = first["client_address"].rsplit(":", 1)
    assert host == "127.0.0.1" and int(port) > 0
    assert second["client_address"] == first["client_address"]
    assert other["client_address"] != first["client_address"] and other["client_address"].startswith("127.0.0.1:")


def test_request_log_is_bounded(api: ApiClient, control) -> None:
    control.update_settings(request_log_limit=3)
    control.clear_requests()
    for _ in range(5):
        api.get("/locations")
    log = control.requests()
    assert log["total"] == 5 and log["count"] == 3 and log["dropped"] == 2


def test_settings(control) -> None:
    settings = control.settings()
    assert settings["profile"] == "realistic" and settings["rate_limits"]["project_quota"] == 500
    assert settings["rate_limits"]["overrides"] == {"GET /v1/instances": 120, "GET /v1/volumes": 120}
    updated = control.update_settings(profile="demo", instance_ip_mode="loopback", rate_limits={"window_seconds": 5})
    assert updated["profile"] == "demo" and updated["rate_limits"]["window_seconds"] == 5
    assert updated["rate_limits"]["project_quota"] == 500
    for bad in ({"profile": "fast"}, {"token_ttl": 0}, {"rate_limits": {"endpoint_quota": 0}}, {"colour": 1}):
        with pytest.raises(EmulatorControlError) as error:
            control.update_settings(**bad)
        assert error.value.status == 400
    control.reset(settings=True)
    assert control.settings()["profile"] == "realistic"


def test_loopback_addresses(api: ApiClient, control, settle) -> None:
    control.update_settings(instance_ip_mode="loopback")
    api.ssh_key()
    ids = [api.deploy(hostname=f"h{index}") for index in range(2)]
    settle()
    assert [api.instance(instance_id)["ip"] for instance_id in ids] == ["127.1.0.1", "127.1.0.2"]


def test_resource_dumps(api: ApiClient, control, settle) -> None:
    api.ssh_key()
    instance_id = api.deploy()
    settle()
    api.action(instance_id, "delete")
    settle()
    key_id = api.ssh_key("second")
    api.ok("DELETE", f"/ssh-keys/{key_id}")
    kinds = control.kinds()
    assert kinds["instances"] == 0 and kinds["instances@removed"] == 1 and kinds["volumes"] == 1
    # removed and deleted rows stay visible to raw dumps
    [instance] = control.resources("instances")
    assert instance["id"] == instance_id and instance["removed_at"].endswith("Z")
    [os_volume] = control.resources("volumes")
    assert os_volume["status"] == "deleted" and os_volume["project_id"]
    assert {key["name"]: "removed_at" in key for key in control.resources("ssh_keys")} == {"key": False, "second": True}
    assert control.resources("no-such-kind") == []


@pytest.mark.parametrize("profile", ["test", "demo"])
def test_fast_profiles_progress_in_real_time(api: ApiClient, control, profile: str) -> None:
    control.update_settings(profile=profile)
    api.ssh_key()
    instance_id = api.deploy()
    # polled gently: the endpoint quota (60 per minute) applies to polling too
    wait_for(lambda: api.instance(instance_id)["status"] == "running", timeout=1 if profile == "test" else 10, interval=0.25)
