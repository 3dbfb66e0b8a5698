"""The self-healing spot fleet for real: ansible-rulebook runs the collection's rulebook
(cloudcompute.cloud.spot_recovery, with the instances event source) against an emulator on the
demo timing profile; spot instances are evicted through the control API, and the replacements
must come back running with the same hostname, tags and kept volumes, on spot in the fleet's
candidates or on demand when spot is gone, checked by the ready role over real SSH (loopback
instances served by a local sshd), and once however often the eviction is reported."""

import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest
import requests
import yaml
from cloudcompute_emulator.testing import run_emulator

BIN = os.path.dirname(sys.executable)
COLLECTION = pathlib.Path(__file__).resolve().parents[2]
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

    def deploy_member(self, hostname, tags, description=None):
        return self.call(
            "POST",
            "/instances",
            json={
                "instance_type": "CPU.4V.16G",
                "image": "ubuntu-24.04",
                "hostname": hostname,
                "location_code": "FIN-01",
                "is_spot": True,
                "ssh_key_ids": [self.key_id],
                "volumes": [{"name": hostname + "-data", "size": 10, "type": "NVMe"}],
                **({"description": description} if description else {}),
            },
        ).text.strip('"'), tags

    def tag(self, instance_id, tags):
        for key, value in tags.items():
            self.call("POST", f"/instances/{instance_id}/tags", json={"key": key, "value": value})

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
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@pytest.fixture
def ssh_access(demo_emulator, sshd, tmp_path):
    """Replacements reachable over real SSH: loopback addresses from the emulator, served by the
    local sshd, which lets in the key the fleet is deployed with; the ssh client configuration
    (``config``) pins the sshd's host key and names that key (``public_key``)."""
    demo_emulator.control.update_settings(instance_ip_mode="loopback")
    client_key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(client_key)], check=True)
    public_key = client_key.with_suffix(".pub").read_text()
    (sshd["directory"] / "authorized_keys").write_text(public_key)  # as the instances' first boot would
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text("* {}\n".format(" ".join((sshd["directory"] / "host_ed25519.pub").read_text().split()[:2])))
    (tmp_path / "ssh_config").write_text(
        f"Host *\n  UserKnownHostsFile {known_hosts}\n  StrictHostKeyChecking yes\n  IdentityFile {client_key}\n  IdentitiesOnly yes\n"
        "  BatchMode yes\n  ConnectTimeout 2\n"
    )
    return {"public_key": public_key, "config": tmp_path / "ssh_config"}


def ansible_bin(core):
    """The bin/ directory of ansible-core's ``floor`` (2.16, the checkout's .venv-floor) or
    ``ceiling`` (the interpreter running the tests)."""
    if core == "ceiling":
        return BIN
    repo = os.environ.get("REPO")
    if not repo:
        pytest.fail("REPO must name the repository checkout (with .venv-floor); run the suite with tools/test.sh")
    return os.path.join(repo, ".venv-floor", "bin")


def start_rulebook(emulator, ansible_env, tmp_path, rulebook, inventory, core="ceiling", **env):
    """ansible-rulebook running ``rulebook`` (a name or a file), as a user starts it, with ``env``
    added to its environment; its playbooks run on ansible-core's ``core`` (floor or ceiling)."""
    (tmp_path / "inventory.yml").write_text(yaml.safe_dump(inventory))
    (tmp_path / "vars.yml").write_text("spot_recovery_interval: 1\n")
    playbook_bin = ansible_bin(core)
    env = ansible_env(
        **env,
        # ansible-rulebook runs ansible-galaxy and ansible-playbook: the first on PATH
        PATH=os.pathsep.join([playbook_bin, BIN, os.environ["PATH"]]),
        ANSIBLE_COLLECTIONS_PATH=os.environ["ANSIBLE_COLLECTIONS_PATH"],
        ANSIBLE_PYTHON_INTERPRETER=os.path.join(playbook_bin, "python"),
        CLOUDCOMPUTE_API_URL=emulator.api_url,
        CLOUDCOMPUTE_CLIENT_ID=emulator.client_id,
        CLOUDCOMPUTE_CLIENT_SECRET=emulator.client_secret,
        CLOUDCOMPUTE_TOKEN_CACHE=str(tmp_path / "tokens"),
    )
    log = tmp_path / "ansible-rulebook.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [os.path.join(BIN, "ansible-rulebook"), "-r", rulebook, "-i", "inventory.yml", "--vars", "vars.yml", "-v"],
            cwd=tmp_path,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    process.log = log
    return process


def stop_rulebook(process):
    process.send_signal(signal.SIGINT)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    print(process.log.read_text()[-6000:])


def deploy_fleet(emulator, public_key, members, loners=(), sources=1, description=None):
    """Deploy and tag the members (``{hostname: tags}``) and loners; wait until they run and the
    rulebook's ``sources`` have taken stock of them; return them as the API lists them."""
    control = emulator.control
    api = Api(emulator)
    api.key_id = api.call("POST", "/ssh-keys", json={"name": "eda", "key": public_key}).text.strip('"')
    for hostname, tags in dict(members, **dict.fromkeys(loners, {"owner": "me"})).items():
        api.tag(api.deploy_member(hostname, tags, description)[0], tags)
    wait_for(lambda: all(i["status"] == "running" for i in live_instances(control).values()), 30, "the fleet running")
    # a source has taken stock of the fleet once it has listed the instances twice
    since = control.requests()["total"]
    wait_for(
        lambda: control.requests(since=since, path="/v1/instances", method="GET")["count"] >= 2 * sources,
        60,
        "the rulebook's source polling",
    )
    return api, api.instances()


def replaced(control, before, hostnames):
    current = live_instances(control)
    return all(
        name in current and current[name]["id"] != before[name]["id"] and current[name]["status"] == "running"
        for name in hostnames
    )


def test_evicted_fleet_members_come_back_ready(demo_emulator, ansible_env, ssh_access, sshd, tmp_path, record_property):
    control = demo_emulator.control
    control.reset()
    marker = tmp_path / "startup-finished"
    marker.write_text("")  # the startup script's last step, on every (loopback) instance
    rulebook = start_rulebook(
        demo_emulator,
        ansible_env,
        tmp_path,
        "cloudcompute.cloud.spot_recovery",
        inventory={
            "all": {
                "hosts": {"localhost": {"ansible_connection": "local"}},
                # the fleet's candidates: the bigger type first, then the one it had
                "vars": {"spot_recovery_candidates": {"train": {"instance_types": ["CPU.8V.32G", "CPU.4V.16G"]}}},
                "children": {
                    "spot_recovery_replacements": {
                        "vars": {
                            "ansible_port": sshd["port"],
                            "ansible_user": sshd["user"],
                            "ansible_python_interpreter": sys.executable,
                            "ansible_ssh_transfer_method": "piped",  # the test's sshd has no sftp subsystem
                            "ready_startup_marker": str(marker),
                            "ready_timeout": 30,
                        }
                    }
                },
            }
        },
        ANSIBLE_SSH_ARGS="-F {}".format(ssh_access["config"]),
    )
    try:
        api, before = deploy_fleet(
            demo_emulator,
            ssh_access["public_key"],
            {
                name: {"fleet": "train", "rank": str(rank)}
                for rank, name in enumerate(["train-0", "train-1", "train-2"])
            },
            loners=["loner"],
        )

        # two members and the loner evicted at once; then the third member, with spot capacity gone
        evicted_at = time.monotonic()
        for hostname in ("train-0", "train-1", "loner"):
            control.evict(before[hostname]["id"])
        wait_for(lambda: replaced(control, before, ["train-0", "train-1"]), 120, "the replacements running")
        recovery_seconds = time.monotonic() - evicted_at
        record_property("eviction_to_running_seconds", round(recovery_seconds, 1))
        print(f"eviction -> replacement running: {recovery_seconds:.1f} s (demo profile)")
        after = api.instances()

        for hostname in ("train-0", "train-1"):
            old, new = before[hostname], after[hostname]
            # on spot again, on the fleet's first candidate type, where its kept volumes are
            assert new["is_spot"] and new["instance_type"] == "CPU.8V.32G" and new["location"] == old["location"]
            assert {(t["key"], t["value"]) for t in new["tags"]} == {(t["key"], t["value"]) for t in old["tags"]}
            # the kept OS volume boots it and the kept data volume is attached again
            assert sorted(new["volume_ids"]) == sorted(old["volume_ids"])
            assert new["os_volume_id"] == old["os_volume_id"]
        assert "loner" not in after  # not in a fleet: left alone

        control.evict(before["train-2"]["id"])
        for instance_type in ("CPU.8V.32G", "CPU.4V.16G"):  # after the eviction freed its unit
            control.set_capacity(instance_type, "FIN-01", 0, is_spot=True)
        wait_for(lambda: replaced(control, before, ["train-2"]), 120, "the on-demand replacement running")
        after = api.instances()
        assert after["train-2"]["is_spot"] is False and after["train-2"]["instance_type"] == "CPU.8V.32G"
        assert sorted(after["train-2"]["volume_ids"]) == sorted(before["train-2"]["volume_ids"])

        # each recovery says where it landed and what it tried, then checks the replacement is ready
        wait_for(lambda: rulebook.log.read_text().count("PLAY RECAP") == 3, 60, "the three recoveries finished")
        log = re.sub(r"\x1b\[[0-9;]*m", "", rulebook.log.read_text())  # ansible-playbook's colours
        assert re.search(
            r"train-2 is back as {}: CPU\.8V\.32G in FIN-01, on demand \(running\).*Tried: "
            r"CPU\.8V\.32G in FIN-01 spot: no_capacity; CPU\.4V\.16G in FIN-01 spot: no_capacity; "
            r"CPU\.8V\.32G in FIN-01 on demand: deployed\"".format(after["train-2"]["id"]),
            log,
        )
        for hostname in ("train-0", "train-1"):
            assert re.search(
                r"{} is back as {}: CPU\.8V\.32G in FIN-01, spot \(running\).*Tried: "
                r"CPU\.8V\.32G in FIN-01 spot: deployed\"".format(hostname, after[hostname]["id"]),
                log,
            )
        sshd_log = sshd["log"].read_text()
        for hostname in ("train-0", "train-1", "train-2"):
            # the ready role reached it over SSH at its address and found it ready (else it fails the host)
            assert " on %s port %d " % (after[hostname]["ip"], sshd["port"]) in sshd_log
            assert re.search(rf"\n{hostname}\s*: ok=\d+\s+changed=0\s+unreachable=0\s+failed=0", log)
        assert rulebook.poll() is None  # still watching
    finally:
        stop_rulebook(rulebook)


def test_an_eviction_seen_twice_is_replaced_once(demo_emulator, ansible_env, tmp_path):
    """The same eviction reported twice (as two activations watching one project would: here two
    sources of one rulebook) runs the playbook twice, in parallel, and one replacement comes back."""
    control = demo_emulator.control
    control.reset()
    shipped = yaml.safe_load((COLLECTION / "extensions/eda/rulebooks/spot_recovery.yml").read_text())
    shipped[0]["sources"].append(dict(shipped[0]["sources"][0], name="The same instance changes again"))
    (tmp_path / "twice.yml").write_text(yaml.safe_dump(shipped))
    rulebook = start_rulebook(
        demo_emulator,
        ansible_env,
        tmp_path,
        str(tmp_path / "twice.yml"),
        inventory={
            "all": {"hosts": {"localhost": {"ansible_connection": "local"}}, "vars": {"spot_recovery_run_ready": False}}
        },
    )
    try:
        before = deploy_fleet(demo_emulator, PUBLIC_KEY, {"solo-0": {"fleet": "solo"}}, sources=2)[1]
        control.evict(before["solo-0"]["id"])
        wait_for(lambda: rulebook.log.read_text().count("PLAY RECAP") == 2, 120, "both recoveries finished")
        log = rulebook.log.read_text()
        assert log.count("solo-0 is back as {}".format(live_instances(control)["solo-0"]["id"])) == 2
        records = [record for record in control.resources("instances") if record["hostname"] == "solo-0"]
        # the evicted one and a single replacement: the second run found it and deployed nothing
        assert len(records) == 2, records
        replacement = live_instances(control)["solo-0"]
        assert replacement["status"] == "running" and replacement["id"] != before["solo-0"]["id"]
        assert sorted(replacement["volume_ids"]) == sorted(before["solo-0"]["volume_ids"])
        assert rulebook.poll() is None
    finally:
        stop_rulebook(rulebook)


def jinja_payloads():
    """Jinja that touches a file of its own (a short path: tag values are at most 127 characters)
    per field it is put in, and the directory those files would appear in."""
    directory = pathlib.Path(tempfile.mkdtemp(prefix="eda-", dir="/tmp"))
    return directory, {
        field: "{{ lookup('pipe', 'touch %s') }}" % (directory / field) for field in ("description", "tag", "hostname")
    }


def untouched(directory):
    try:
        return sorted(path.name for path in directory.iterdir())
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.parametrize("core", ["floor", "ceiling"])
def test_jinja_in_an_evicted_instance_is_data_through_the_rulebook(demo_emulator, ansible_env, tmp_path, core):
    """A project member's description and tag value holding Jinja reach the recovery playbook as
    data: nothing runs on the controller, and the replacement carries the same text."""
    control = demo_emulator.control
    control.reset()
    directory, payload = jinja_payloads()
    rulebook = start_rulebook(
        demo_emulator,
        ansible_env,
        tmp_path,
        "cloudcompute.cloud.spot_recovery",
        inventory={
            "all": {"hosts": {"localhost": {"ansible_connection": "local"}}, "vars": {"spot_recovery_run_ready": False}}
        },
        core=core,
    )
    try:
        tags = {"fleet": "safe", "note": payload["tag"]}
        api, before = deploy_fleet(demo_emulator, PUBLIC_KEY, {"safe-0": tags}, description=payload["description"])
        control.evict(before["safe-0"]["id"])
        wait_for(lambda: replaced(control, before, ["safe-0"]), 120, "the replacement running")
        wait_for(lambda: "PLAY RECAP" in rulebook.log.read_text(), 60, "the recovery finished")
        replacement = api.instances()["safe-0"]
        assert replacement["description"] == payload["description"]
        assert {tag["key"]: tag["value"] for tag in replacement["tags"]} == tags
        assert "safe-0 is back as {}".format(replacement["id"]) in rulebook.log.read_text()
        assert rulebook.poll() is None
    finally:
        stop_rulebook(rulebook)
        created = untouched(directory)
    assert created == [], "Jinja from the event ran on the controller"


def run_recovery_by_hand(core, ansible_env, emulator, tmp_path, event, **extra_vars):
    (tmp_path / "event.json").write_text(json.dumps({"ansible_eda": {"event": event}, **extra_vars}))
    playbook_bin = ansible_bin(core)
    return subprocess.run(
        [os.path.join(playbook_bin, "ansible-playbook"), "cloudcompute.cloud.spot_recovery", "-e", "@event.json"],
        cwd=tmp_path,
        env=ansible_env(
            ANSIBLE_COLLECTIONS_PATH=os.environ["ANSIBLE_COLLECTIONS_PATH"],
            ANSIBLE_PYTHON_INTERPRETER=os.path.join(playbook_bin, "python"),
            CLOUDCOMPUTE_API_URL=emulator.api_url,
            CLOUDCOMPUTE_CLIENT_ID=emulator.client_id,
            CLOUDCOMPUTE_CLIENT_SECRET=emulator.client_secret,
            CLOUDCOMPUTE_TOKEN_CACHE="false",
        ),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("core", ["floor", "ceiling"])
def test_jinja_in_an_event_given_by_hand_is_data(emulator_reset, ansible_env, tmp_path, core):
    """The event as extra vars (as ansible-rulebook and EDA controller pass it): Jinja in the
    description, a tag value and the hostname never runs; the recovery works with the literal
    description and tag, and a hostname the API refuses fails the run with the API's reason."""
    control = emulator_reset.control
    directory, payload = jinja_payloads()
    api = Api(emulator_reset)
    api.key_id = api.call("POST", "/ssh-keys", json={"name": "eda", "key": PUBLIC_KEY}).text.strip('"')
    tags = {"fleet": "hand", "note": payload["tag"]}
    instance_id = api.deploy_member("hand-0", tags, payload["description"])[0]
    api.tag(instance_id, tags)
    control.advance_clock(60)
    evicted = api.instances()["hand-0"]
    volume_ids = evicted["volume_ids"]
    control.evict(instance_id)
    control.advance_clock(120)
    assert "hand-0" not in api.instances()
    event = {"change": "removed", "evicted": True, "instance": evicted, "volume_ids": volume_ids}
    try:
        run = run_recovery_by_hand(
            core,
            ansible_env,
            emulator_reset,
            tmp_path,
            event,
            spot_recovery_run_ready=False,
            spot_recovery_wait_timeout=60,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        replacement = api.instances()["hand-0"]
        assert replacement["id"] != instance_id and replacement["description"] == payload["description"]
        assert {tag["key"]: tag["value"] for tag in replacement["tags"]} == tags
        assert sorted(replacement["volume_ids"]) == sorted(volume_ids)

        hostile = dict(event, instance=dict(evicted, hostname=payload["hostname"]))
        run = run_recovery_by_hand(core, ansible_env, emulator_reset, tmp_path, hostile, spot_recovery_run_ready=False)
        assert run.returncode != 0 and "hostname" in run.stdout, run.stdout + run.stderr
    finally:
        created = untouched(directory)
    assert created == [], "Jinja from the event ran on the controller"
