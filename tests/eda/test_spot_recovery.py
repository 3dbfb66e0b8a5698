"""The self-healing spot fleet for real: ansible-rulebook runs the collection's rulebook
(cloudcompute.cloud.spot_recovery, with the instances event source) against an emulator on the
demo timing profile; spot instances are evicted through the control API, and the replacements
must come back running with the same hostname, tags and kept volumes."""

import os
import signal
import subprocess
import sys
import time

import pytest
import requests

from cloudcompute_emulator.testing import run_emulator

BIN = os.path.dirname(sys.executable)
PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA7v8M0pXSGfM2n4TlbVa3w4uyCr/nm0Ue2dQ1+jCqBo eda"


@pytest.fixture(scope="module")
def demo_emulator():
    with run_emulator(profile="demo") as emulator:
        yield emulator


class Api:
    def __init__(self, emulator):
        self.url = emulator.api_url
        self.session = requests.Session()
        self.session.headers["Authorization"] = "Bearer " + emulator.access_token()

    def call(self, method, path, **kwargs):
        response = self.session.request(method, self.url + path, timeout=30, **kwargs)
        assert response.ok, response.text
        return response

    def deploy_member(self, hostname, tags):
        return self.call("POST", "/instances", json={
            "instance_type": "CPU.4V.16G", "image": "ubuntu-24.04", "hostname": hostname, "location_code": "FIN-01",
            "is_spot": True, "ssh_key_ids": [self.key_id],
            "volumes": [{"name": hostname + "-data", "size": 10, "type": "NVMe"}],
        }).text.strip('"'), tags

    def tag(self, instance_id, tags):
        for key, value in tags.items():
            self.call("POST", "/instances/%s/tags" % instance_id, json={"key": key, "value": value})

    def instances(self):
        return {instance["hostname"]: instance for instance in self.call("GET", "/instances").json()}


def live_instances(control):
    """The emulator's records (the control API is not rate limited: the source and the playbook
    have the project's quota to themselves)."""
    return {record["hostname"]: record for record in control.resources("instances") if not record.get("removed_at")}


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(0.1)
    raise AssertionError("timed out after %s s waiting for %s" % (timeout, what))


@pytest.fixture
def rulebook(demo_emulator, ansible_env, tmp_path):
    """ansible-rulebook running the rulebook, as a user starts it, until the test ends."""
    (tmp_path / "inventory.yml").write_text("all:\n  hosts:\n    localhost:\n      ansible_connection: local\n")
    (tmp_path / "vars.yml").write_text("spot_recovery_interval: 1\n")
    env = ansible_env(
        PATH=BIN + os.pathsep + os.environ["PATH"],  # ansible-rulebook runs ansible-galaxy and ansible-playbook
        ANSIBLE_COLLECTIONS_PATH=os.environ["ANSIBLE_COLLECTIONS_PATH"],
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
        CLOUDCOMPUTE_API_URL=demo_emulator.api_url,
        CLOUDCOMPUTE_CLIENT_ID=demo_emulator.client_id,
        CLOUDCOMPUTE_CLIENT_SECRET=demo_emulator.client_secret,
        CLOUDCOMPUTE_TOKEN_CACHE=str(tmp_path / "tokens"),
    )
    log = tmp_path / "ansible-rulebook.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [os.path.join(BIN, "ansible-rulebook"), "-r", "cloudcompute.cloud.spot_recovery",
             "-i", "inventory.yml", "--vars", "vars.yml", "-v"],
            cwd=tmp_path, env=env, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    process.log = log
    try:
        yield process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        print(log.read_text()[-4000:])


def test_evicted_fleet_members_come_back(demo_emulator, rulebook, record_property):
    control = demo_emulator.control
    control.reset()
    api = Api(demo_emulator)
    api.key_id = api.call("POST", "/ssh-keys", json={"name": "eda", "key": PUBLIC_KEY}).text.strip('"')
    members = dict(api.deploy_member(name, {"fleet": "train", "rank": str(rank)}) for rank, name in
                   enumerate(["train-0", "train-1", "train-2"]))
    loner = api.deploy_member("loner", {"owner": "me"})[0]
    for instance_id, tags in list(members.items()) + [(loner, {"owner": "me"})]:
        api.tag(instance_id, tags)
    wait_for(lambda: all(i["status"] == "running" for i in live_instances(control).values()), 30, "the fleet running")
    before = api.instances()
    # the source has taken stock of the fleet once it has listed the instances twice
    since = control.requests()["total"]
    wait_for(lambda: control.requests(since=since, path="/v1/instances", method="GET")["count"] >= 2, 60,
             "the rulebook's source polling (ansible-rulebook log: %s)" % rulebook.log)

    # two members and the loner evicted at once; then the third member, with spot capacity gone
    evicted_at = time.monotonic()
    for hostname in ("train-0", "train-1", "loner"):
        control.evict(before[hostname]["id"])

    def replaced(hostnames):
        current = live_instances(control)
        return all(name in current and current[name]["id"] != before[name]["id"]
                   and current[name]["status"] == "running" for name in hostnames)

    wait_for(lambda: replaced(["train-0", "train-1"]), 120, "the replacements running")
    recovery_seconds = time.monotonic() - evicted_at
    record_property("eviction_to_running_seconds", round(recovery_seconds, 1))
    print("eviction -> replacement running: %.1f s (demo profile)" % recovery_seconds)
    after = api.instances()

    for hostname in ("train-0", "train-1"):
        old, new = before[hostname], after[hostname]
        assert new["is_spot"] and new["instance_type"] == old["instance_type"] and new["location"] == old["location"]
        assert {(t["key"], t["value"]) for t in new["tags"]} == {(t["key"], t["value"]) for t in old["tags"]}
        # the kept OS volume boots it and the kept data volume is attached again
        assert sorted(new["volume_ids"]) == sorted(old["volume_ids"])
        assert new["os_volume_id"] == old["os_volume_id"]
    assert "loner" not in after  # not in a fleet: left alone

    control.evict(before["train-2"]["id"])
    control.set_capacity("CPU.4V.16G", "FIN-01", 0, is_spot=True)  # after the eviction freed its unit
    wait_for(lambda: replaced(["train-2"]), 120, "the on-demand replacement running")
    after = api.instances()
    assert after["train-2"]["is_spot"] is False
    assert sorted(after["train-2"]["volume_ids"]) == sorted(before["train-2"]["volume_ids"])
    assert rulebook.poll() is None  # still watching
