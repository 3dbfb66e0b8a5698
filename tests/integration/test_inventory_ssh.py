"""End to end: SSH key -> deploy -> inventory -> SSH, for real, ProxyJump included.

The emulator gives instances, jump hosts and workers loopback addresses (127.1.x.y); one local
sshd on a free port answers on all of them and accepts only the keys registered for the
deployed instance (written to its AuthorizedKeysFile, as the cloud's first boot would). Then
``ansible -i cloudcompute.yml all -m ping`` must reach every host the API reports, the workers
through their jump host.

The SSH client configuration given to ansible (``-F``) only isolates the test from the
runner's ``~/.ssh``: it pins the sshd's host key and names the test's identity. The route to
each host (address, port, user, ProxyJump) comes from the inventory alone.

The instance and the cluster are deployed with raw API calls (``ansible.builtin.uri``): the
``instance`` and ``cluster`` modules do not exist yet.
"""

import os
import re
import subprocess
import sys
import uuid

import requests
import yaml

BIN = os.path.dirname(sys.executable)

SETUP_PLAYBOOK = """
- name: Register a key and deploy an instance and a cluster with it
  hosts: localhost
  gather_facts: false
  vars:
    api_url: "{{ lookup('ansible.builtin.env', 'CLOUDCOMPUTE_API_URL') }}"
  tasks:
    - name: Register the test key
      cloudcompute.cloud.ssh_key:
        name: "{{ prefix }}-key"
        public_key: "{{ lookup('ansible.builtin.file', public_key_file) }}"
      register: key

    - name: Get a token for the raw deploy calls
      ansible.builtin.uri:
        url: "{{ api_url }}/oauth2/token"
        method: POST
        body_format: json
        body:
          grant_type: client_credentials
          client_id: "{{ lookup('ansible.builtin.env', 'CLOUDCOMPUTE_CLIENT_ID') }}"
          client_secret: "{{ lookup('ansible.builtin.env', 'CLOUDCOMPUTE_CLIENT_SECRET') }}"
      register: token
      no_log: true

    - name: Deploy an instance with the key
      ansible.builtin.uri:
        url: "{{ api_url }}/instances"
        method: POST
        headers: {Authorization: "Bearer {{ token.json.access_token }}"}
        body_format: json
        body:
          hostname: "{{ prefix }}-vm"
          instance_type: CPU.4V.16G
          image: ubuntu-24.04
          location_code: FIN-01
          ssh_key_ids: ["{{ key.ssh_key.id }}"]
        status_code: 202
        return_content: true
      register: instance

    - name: Deploy a cluster with the key
      ansible.builtin.uri:
        url: "{{ api_url }}/clusters"
        method: POST
        headers: {Authorization: "Bearer {{ token.json.access_token }}"}
        body_format: json
        body:
          hostname: "{{ prefix }}-hpc"
          cluster_type: 16H100
          image: ubuntu-24.04-cuda-12.8-cluster
          location_code: FIN-01
          shared_volume: {name: "{{ prefix }}-home", size: 100}
          ssh_key_ids: ["{{ key.ssh_key.id }}"]
        status_code: 202
      register: cluster

    - name: Wait until both are running
      ansible.builtin.uri:
        url: "{{ api_url }}/{{ item }}"
        headers: {Authorization: "Bearer {{ token.json.access_token }}"}
      loop:
        - instances/{{ instance.content | trim | replace('"', '') }}
        - clusters/{{ cluster.json.id }}
      register: deployed
      until: deployed.json.status == 'running'
      retries: 100
      delay: 0.2

    - name: Read the keys the instance was deployed with
      cloudcompute.cloud.ssh_key_info:
        id: "{{ deployed.results[0].json.ssh_key_ids[0] }}"
      register: instance_keys

    - name: Install them as the hosts' authorized keys, as the cloud's first boot does
      ansible.builtin.copy:
        dest: "{{ authorized_keys_file }}"
        content: "{{ instance_keys.ssh_keys | map(attribute='key') | join('\\n') }}\\n"
        mode: "0600"
"""


def run(command, env, **options):
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False, **options)


def test_ansible_pings_every_host_the_api_reports_workers_through_their_jump_host(emulator, control, sshd, tmp_path):
    control.update_settings(instance_ip_mode="loopback")
    client_key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(client_key)], check=True)
    ssh_config = tmp_path / "ssh_config"
    known_hosts = tmp_path / "known_hosts"
    host_key = (sshd["directory"] / "host_ed25519.pub").read_text().split()[:2]
    known_hosts.write_text("* {}\n".format(" ".join(host_key)))
    ssh_config.write_text(
        f"Host *\n  UserKnownHostsFile {known_hosts}\n  StrictHostKeyChecking yes\n  IdentityFile {client_key}\n"
        "  IdentitiesOnly yes\n  BatchMode yes\n"
    )

    env = dict(
        os.environ,
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_LOCALHOST_WARNING="0",
        ANSIBLE_INVENTORY_UNPARSED_FAILED="1",
        CLOUDCOMPUTE_API_URL=emulator.api_url,
        CLOUDCOMPUTE_CLIENT_ID=emulator.client_id,
        CLOUDCOMPUTE_CLIENT_SECRET=emulator.client_secret,
        CLOUDCOMPUTE_TOKEN_CACHE=str(tmp_path / "tokens"),
    )
    prefix = f"e2e-{uuid.uuid4().hex[:6]}"
    playbook = tmp_path / "setup.yml"
    playbook.write_text(SETUP_PLAYBOOK)
    setup = run(
        [
            os.path.join(BIN, "ansible-playbook"),
            str(playbook),
            "-i",
            "localhost,",
            "-c",
            "local",
            "-e",
            f"ansible_python_interpreter={sys.executable}",
            "-e",
            f"prefix={prefix}",
            "-e",
            f"public_key_file={client_key}.pub",
            "-e",
            "authorized_keys_file=%s" % (sshd["directory"] / "authorized_keys"),
        ],
        env,
    )
    assert setup.returncode == 0, setup.stdout[-10000:] + setup.stderr[-3000:]
    assert (sshd["directory"] / "authorized_keys").read_text().split()[:2] == (
        client_key.with_suffix(".pub")
    ).read_text().split()[:2]

    config = tmp_path / "e2e.cloudcompute.yml"
    config.write_text(
        yaml.safe_dump(
            {
                "plugin": "cloudcompute.cloud.cloudcompute",
                # loopback mode: a worker's private address is one the jump host (this machine) reaches
                "worker_connect_with": "private_ip",
                "jump_host_user": sshd["user"],
                "jump_host_port": sshd["port"],
                # this test's ssh configuration (-F) pins the one sshd's key and names the identity,
                # which a plain ProxyJump passes on to its hop; test_host_keys.py covers the pinned hops
                "host_keys": False,
                "compose": {
                    "ansible_port": str(sshd["port"]),
                    "ansible_user": "'{}'".format(sshd["user"]),
                    "ansible_python_interpreter": f"'{sys.executable}'",
                },
            }
        )
    )
    env["ANSIBLE_SSH_ARGS"] = f"-F {ssh_config}"
    ping = run([os.path.join(BIN, "ansible"), "-i", str(config), "all", "-m", "ansible.builtin.ping", "-o"], env)
    assert ping.returncode == 0, ping.stdout + ping.stderr
    pinged = sorted(re.findall(r"^(\S+) \| SUCCESS => .*\"ping\": \"pong\"", ping.stdout, re.MULTILINE))

    token = {"Authorization": "Bearer " + emulator.access_token()}
    instances = requests.get(emulator.api_url + "/instances", headers=token, timeout=30).json()
    clusters = requests.get(emulator.api_url + "/clusters", headers=token, timeout=30).json()
    workers = [worker for cluster in clusters for worker in cluster["worker_nodes"]]
    reported = sorted(
        [instance["hostname"] for instance in instances]
        + [cluster["hostname"] for cluster in clusters]
        + [worker["hostname"] for worker in workers]
    )
    assert reported == sorted([prefix + "-vm", prefix + "-hpc", prefix + "-hpc-worker-1", prefix + "-hpc-worker-2"])
    assert pinged == reported
    assert all(address.startswith("127.") for address in [instances[0]["ip"], clusters[0]["ip"]])

    # Each worker was reached by a connection forwarded by the jump host's sshd (ProxyJump),
    # to the worker's own address.
    log = sshd["log"].read_text()
    forwarded = set(
        re.findall(r"server_request_direct_tcpip: originator \S+ port \d+, target (\S+) port %d" % sshd["port"], log)
    )
    assert set(worker["private_ip"] for worker in workers) <= forwarded, log[-5000:]
    assert instances[0]["ip"] not in forwarded  # the instance was reached directly
