"""Durability: with --state-file every answered change survives kill -9 and a restart."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time

from conftest import ED25519_KEY, ApiClient

from cloudcompute_emulator.testing import run_emulator


def test_state_survives_kill_and_restart(tmp_path) -> None:
    state_file = str(tmp_path / "state.sqlite")
    with run_emulator(state_file=state_file, profile="realistic", client_id="demo-id", client_secret="demo-secret") as first:
        token = first.access_token()
        api = ApiClient(first.api_url, token)
        key_id = api.ssh_key("durable", ED25519_KEY)
        instance_id = api.deploy(hostname="survivor", ssh_key_ids=[key_id], tags=[{"key": "keep", "value": "yes"}])
        volume_id = api.create_volume(name="vault")
        cluster_id = api.ok("POST", "/clusters", 202, json={
            "cluster_type": "16H100", "hostname": "hpc", "image": "ubuntu-24.04-cuda-12.8-cluster", "location_code": "FIN-01",
            "shared_volume": {"name": "home", "size": 100}, "ssh_key_ids": [key_id], "tags": [{"key": "keep"}]}).json()["id"]
        group_id = api.ok("POST", "/instance-groups", 201, json={
            "name": "web", "instance_type": "CPU.4V.16G", "location_code": "FIN-01",
            "template": {"image": "ubuntu-24.04", "ssh_key_ids": [key_id]}}).json()["id"]
        retired_group = api.ok("POST", "/instance-groups", 201, json={
            "name": "old", "instance_type": "CPU.4V.16G", "location_code": "FIN-01", "template": {"image": "ubuntu-24.04"}}).json()["id"]
        api.ok("DELETE", f"/instance-groups/{retired_group}", 204)
        api.ok("POST", "/container-deployments", 201, json={
            "name": "web", "containers": [{"image": "nginx:1"}], "compute": {"name": "L40S", "size": 1}})
        api.ok("POST", "/job-deployments", 201, json={"name": "batch", "containers": [{"image": "w:1"}], "compute": {"name": "A100", "size": 1}})
        api.ok("POST", "/job-deployments/batch/pause", 201)
        first.control.advance_clock(20)  # realistic profile: instance provisioning, volume detached
        api.ok("DELETE", f"/volumes/{volume_id}", 202)
        first.control.set_capacity("1V100.6V", "FIN-01", 0)
        first.control.update_settings(rate_limits={"project_quota": 400})
        status_before = api.instance(instance_id)["status"]
        member = first.control.create_credentials(role="member")
        first.kill()  # SIGKILL: no shutdown code runs

    with run_emulator(state_file=state_file) as second:
        assert (second.client_id, second.client_secret) == ("demo-id", "demo-secret")
        assert second.inference_api_key == first.inference_api_key
        api = ApiClient(second.api_url, token)  # the old access token is still valid
        instance = api.instance(instance_id)
        assert instance["hostname"] == "survivor" and instance["status"] == status_before == "provisioning"
        assert instance["tags"][0]["key"] == "keep"
        assert api.volume(volume_id)["status"] == "deleted"
        cluster = api.ok("GET", f"/clusters/{cluster_id}").json()
        assert cluster["status"] == "ordered" and cluster["tags"][0]["key"] == "keep" and cluster["worker_nodes"] == []
        assert [group["id"] for group in api.ok("GET", "/instance-groups").json()] == [group_id]
        assert api.ok("GET", f"/instance-groups/{group_id}").json()["template"]["ssh_key_ids"] == [key_id]
        assert {row["id"] for row in second.control.resources("instance_groups")} == {group_id, retired_group}
        assert api.ok("GET", "/container-deployments/web/status").json()["status"] == "image_pulling"
        assert api.ok("GET", "/job-deployments/batch/status").json()["status"] == "paused"
        assert [key["id"] for key in api.ok("GET", "/ssh-keys").json()] == [key_id]
        assert second.control.capacity("1V100.6V", "FIN-01")["available"] == 0
        assert second.control.settings()["rate_limits"]["project_quota"] == 400
        assert second.control.settings()["profile"] == "realistic"
        assert second.access_token(member["client_id"], member["client_secret"])
        audit = api.ok("GET", "/audit/log", params={"page_size": 100}).json()["data"]
        assert any(event["subject"] == instance_id for event in audit)
        # pending transitions carry on where they were
        second.control.advance_clock(700)
        api = ApiClient(second.api_url, second.access_token())
        assert api.instance(instance_id)["status"] == "running"
        cluster = api.ok("GET", f"/clusters/{cluster_id}").json()
        assert cluster["status"] == "running" and len(cluster["worker_nodes"]) == 2 and cluster["ip"]
        assert api.ok("GET", "/container-deployments/web/status").json()["status"] == "healthy"
        second.stop()

    with run_emulator(state_file=state_file) as third:
        api = ApiClient(third.api_url, third.access_token())
        assert api.instance(instance_id)["status"] == "running"
        assert api.ok("GET", f"/clusters/{cluster_id}").json()["worker_nodes"] == cluster["worker_nodes"]
        third.control.reset()
        assert api.ok("GET", "/instances").json() == []
        third.kill()
    with run_emulator(state_file=state_file) as fourth:
        assert ApiClient(fourth.api_url, fourth.access_token()).ok("GET", "/instances").json() == []


def test_cli_banner_and_credentials_file(tmp_path) -> None:
    credentials_file = tmp_path / "credentials.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "cloudcompute_emulator", "--port", "0", "--profile", "demo", "--no-rate-limit",
         "--token-ttl", "60", "--client-id", "my-id", "--client-secret", "my-secret", "--credentials-file", str(credentials_file)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        started = time.monotonic()
        while not credentials_file.exists():
            assert process.poll() is None, process.stdout.read()
            assert time.monotonic() - started < 10
            time.sleep(0.02)
        assert time.monotonic() - started < 6  # about a second when the machine is idle
        published = json.loads(credentials_file.read_text())
        assert stat.S_IMODE(os.stat(credentials_file).st_mode) == 0o600
        assert published["client_id"] == "my-id" and published["client_secret"] == "my-secret"
        assert published["api_url"].startswith("http://127.0.0.1:") and published["api_url"].endswith("/v1")
        assert published["inference_api_key"].startswith("ccik-")
        api = ApiClient(published["api_url"])
        token = api.ok("POST", "/oauth2/token", json={"grant_type": "client_credentials", "client_id": "my-id",
                                                      "client_secret": "my-secret"}).json()
        assert token["expires_in"] == 60
        listing = ApiClient(published["api_url"], token["access_token"]).ok("GET", "/instances")
        assert "ratelimit" not in listing.headers
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=10)
    assert published["api_url"] in output and "my-secret" in output and "demo profile" in output


def test_cli_help_and_bad_settings() -> None:
    result = subprocess.run([sys.executable, "-m", "cloudcompute_emulator", "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0
    for option in ("--state-file", "--token-ttl", "--no-rate-limit", "--rate-window", "--instance-ip-mode", "--credentials-file"):
        assert option in result.stdout
    result = subprocess.run([sys.executable, "-m", "cloudcompute_emulator", "--port", "0", "--settings-json", '{"profile": "slow"}'],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and "invalid settings" in result.stderr
