"""SSH host keys pinned per instance, end to end, with checking on: the emulator gives each
instance, jump host and worker its own loopback address (127.1.x.y) and each address gets its
own sshd with its own host key, as real hosts have. The inventory plugin's hosts carry
HostKeyAlias=cloudcompute-<id> and the collection's known_hosts file; ansible's own SSH settings
are left as they are (connection reuse included), host_key_checking stays on.

Scenarios: first contact records every host's key under its alias (workers and their jump host
through a ProxyCommand pinned the same way) and a second play connects with
StrictHostKeyChecking=yes; the same instance answering with another key is refused, naming it.
"""

import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import pytest
import requests
import yaml
from local_sshd import SSHD, free_port

BIN = os.path.dirname(sys.executable)

SETUP = """
- name: Deploy an instance and a cluster with the test key
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Register the key
      cloudcompute.cloud.ssh_key:
        name: "{{ prefix }}-key"
        public_key: "{{ lookup('ansible.builtin.file', public_key_file) }}"
    - name: Deploy the instance
      cloudcompute.cloud.instance:
        hostname: "{{ prefix }}-vm"
        instance_type: CPU.4V.16G
        image: ubuntu-24.04
        location_code: FIN-01
        ssh_keys: ["{{ prefix }}-key"]
    - name: Deploy the cluster
      cloudcompute.cloud.cluster:
        hostname: "{{ prefix }}-hpc"
        cluster_type: 16H100
        image: ubuntu-24.04-cuda-12.8-cluster
        location_code: FIN-01
        shared_volume: {name: "{{ prefix }}-home", size: 100}
        ssh_keys: ["{{ prefix }}-key"]
"""


class Sshds:
    """One sshd per address, each with its own host key, all on one port."""

    def __init__(self, directory, port, user, authorized_keys):
        self.directory, self.port, self.user, self.authorized_keys = directory, port, user, authorized_keys
        self.processes = {}

    def start(self, address):
        home = self.directory / f"{address}-{uuid.uuid4().hex[:6]}"
        home.mkdir(parents=True)
        key = home / "host_ed25519"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
        (home / "sshd_config").write_text(
            f"Port {self.port}\nListenAddress {address}\nAllowUsers {self.user}@127.0.0.0/8\nHostKey {key}\n"
            f"PidFile {home}/sshd.pid\nAuthorizedKeysFile {self.authorized_keys}\nPubkeyAuthentication yes\n"
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
            "UsePAM no\nStrictModes no\nAllowTcpForwarding yes\nSubsystem sftp internal-sftp\n"
        )
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        log = open(home / "sshd.log", "w")  # noqa: SIM115 - kept open for the process's life
        process = subprocess.Popen([SSHD, "-D", "-e", "-f", str(home / "sshd_config")], stdout=log, stderr=log)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection((address, self.port), timeout=0.5).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, (home / "sshd.log").read_text()
                time.sleep(0.05)
        self.processes[address] = process
        return key.with_suffix(".pub").read_text().split()[:2]

    def stop(self, address):
        process = self.processes.pop(address)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)

    def stop_all(self):
        for address in list(self.processes):
            self.stop(address)


def run(command, env):
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture
def sshds(tmp_path):
    user = (
        os.environ.get("USER")
        or subprocess.run(["id", "-un"], capture_output=True, text=True, check=True).stdout.strip()
    )
    servers = Sshds(tmp_path / "sshd", free_port(), user, tmp_path / "authorized_keys")
    yield servers
    servers.stop_all()


def test_host_keys_are_pinned_per_instance(emulator, control, sshds, tmp_path, request):
    control.update_settings(instance_ip_mode="loopback")
    client_key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(client_key)], check=True)
    sshds.authorized_keys.write_text(client_key.with_suffix(".pub").read_text())
    # The agent's and ssh's connection sockets: a socket path must fit in 108 bytes, and pytest's
    # temporary directory may be deeper (tools/test.sh's full run puts it under a lane directory).
    sockets = pathlib.Path(tempfile.mkdtemp(prefix="hk-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(sockets, ignore_errors=True))
    # the key in an agent, as users have it: the hop to the jump host authenticates with it too
    agent_socket = sockets / "agent.sock"
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", str(agent_socket)], stdout=subprocess.DEVNULL)
    request.addfinalizer(lambda: (agent.terminate(), agent.wait(timeout=10)))
    while not agent_socket.exists():
        time.sleep(0.05)
    subprocess.run(
        ["ssh-add", "-q", str(client_key)], env=dict(os.environ, SSH_AUTH_SOCK=str(agent_socket)), check=True
    )
    known_hosts = tmp_path / "tokens" / "known_hosts"
    env = dict(
        os.environ,
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_LOCALHOST_WARNING="0",
        ANSIBLE_HOST_KEY_CHECKING="1",
        ANSIBLE_TIMEOUT="5",
        ANSIBLE_SSH_CONTROL_PATH_DIR=str(sockets / "cp1"),
        CLOUDCOMPUTE_API_URL=emulator.api_url,
        CLOUDCOMPUTE_CLIENT_ID=emulator.client_id,
        CLOUDCOMPUTE_CLIENT_SECRET=emulator.client_secret,
        CLOUDCOMPUTE_TOKEN_CACHE=str(tmp_path / "tokens"),
        SSH_AUTH_SOCK=str(agent_socket),
    )
    env.pop("ANSIBLE_SSH_ARGS", None)
    prefix = f"hk-{uuid.uuid4().hex[:6]}"
    (tmp_path / "setup.yml").write_text(SETUP)
    setup = run(
        [os.path.join(BIN, "ansible-playbook"), str(tmp_path / "setup.yml"), "-i", "localhost,", "-c", "local",
         "-e", json.dumps({"prefix": prefix, "public_key_file": f"{client_key}.pub",
                           "ansible_python_interpreter": sys.executable})],
        env,
    )  # fmt: skip
    assert setup.returncode == 0, setup.stdout[-6000:]

    token = {"Authorization": "Bearer " + emulator.access_token()}
    instance = requests.get(emulator.api_url + "/instances", headers=token, timeout=30).json()[0]
    cluster = requests.get(emulator.api_url + "/clusters", headers=token, timeout=30).json()[0]
    addresses = {instance["id"]: instance["ip"], cluster["id"]: cluster["ip"]}
    addresses.update((worker["id"], worker["private_ip"]) for worker in cluster["worker_nodes"])
    assert len(set(addresses.values())) == 4
    host_keys = {resource_id: sshds.start(address) for resource_id, address in addresses.items()}

    config = tmp_path / "hk.cloudcompute.yml"
    config.write_text(
        yaml.safe_dump(
            {
                "plugin": "cloudcompute.cloud.cloudcompute",
                "worker_connect_with": "private_ip",
                "jump_host_user": sshds.user,
                "jump_host_port": sshds.port,
                "compose": {
                    "ansible_port": str(sshds.port),
                    "ansible_user": f"'{sshds.user}'",
                    "ansible_python_interpreter": f"'{sys.executable}'",
                },
            }
        )
    )
    ping = [os.path.join(BIN, "ansible"), "-i", str(config), "all", "-m", "ansible.builtin.ping", "-o"]

    # first contact: every key learned, under its instance's alias, from its own sshd
    first = run(ping, env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert len(re.findall(r"\| SUCCESS =>", first.stdout)) == 4, first.stdout
    pinned = {}
    for line in known_hosts.read_text().splitlines():
        alias, key_type, key = line.split()[:3]
        pinned.setdefault(alias, []).append([key_type, key])
    assert pinned == {f"cloudcompute-{resource_id}": [key] for resource_id, key in host_keys.items()}, pinned

    # second play, a fresh connection: StrictHostKeyChecking=yes and the pinned keys
    listing = json.loads(run([os.path.join(BIN, "ansible-inventory"), "-i", str(config), "--list"], env).stdout)
    args = {name: hostvars["ansible_ssh_common_args"] for name, hostvars in listing["_meta"]["hostvars"].items()}
    args = {
        name: value.get("__ansible_unsafe", value) if isinstance(value, dict) else value for name, value in args.items()
    }
    assert all("StrictHostKeyChecking=yes" in value and "accept-new" not in value for value in args.values()), args
    env["ANSIBLE_SSH_CONTROL_PATH_DIR"] = str(sockets / "cp2")
    second = run(ping, env)
    assert second.returncode == 0 and len(re.findall(r"\| SUCCESS =>", second.stdout)) == 4, second.stdout
    assert known_hosts.read_text().count("\n") == 4

    # the same instance answering with another key: refused, naming the instance
    sshds.stop(instance["ip"])
    sshds.start(instance["ip"])
    env["ANSIBLE_SSH_CONTROL_PATH_DIR"] = str(sockets / "cp3")
    changed = run(ping, env)
    assert changed.returncode != 0
    refused = [line for line in changed.stdout.splitlines() if line.startswith(f"{prefix}-vm ")]
    assert refused and "UNREACHABLE" in refused[0], changed.stdout
    assert f"cloudcompute-{instance['id']}" in changed.stdout, changed.stdout
    assert len(re.findall(r"\| SUCCESS =>", changed.stdout)) == 3, changed.stdout  # the others still answer
