"""A hostile API answer through the real ``cluster`` role: the jump host's ``ip`` is rewritten,
by a proxy on loopback in front of the emulator, into SSH options (``-E <file>`` to append to a
file of the attacker's choice and turn host key checking off, or a ``ProxyCommand``). The role
must add no connection variable built from it, and the SSH connection to the workers must not
write the file or run the command: the file system is the witness. The cluster's name is a valid
group name, so the role must not name its group after the jump host (Ansible would warn).
"""

import http.server
import json
import os
import subprocess
import sys
import threading

import pytest
import requests
from cloudcompute_emulator.testing import run_emulator
from conftest import report

BIN = os.path.dirname(sys.executable)
OUTCOMES = []

PLAYBOOK = """
- name: Deploy a cluster through the role, against an API whose answers were tampered with
  hosts: localhost
  gather_facts: false
  pre_tasks:
    - name: Register a key for the jump host
      cloudcompute.cloud.ssh_key:
        name: hostile-key
        public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q inject@test
  roles:
    - role: cloudcompute.cloud.cluster
      vars:
        cluster_ssh_keys: [hostile-key]
        cluster_hostname: hostilehpc
        cluster_type: 16H100
        cluster_location_code: FIN-01
        cluster_wait_timeout: 120
        cluster_jump_host_user: "{{ jump_user }}"

- name: Connect to the workers (nothing answers; what matters is what ssh was told to do)
  hosts: hostilehpc_cluster_workers
  gather_facts: false
  tasks:
    - name: Ping
      ansible.builtin.ping:
      ignore_unreachable: true

- name: Keep the hosts' connection variables
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Write them
      ansible.builtin.copy:
        dest: "{{ report }}"
        mode: "0600"
        content: >-
          {{ dict(groups['hostilehpc_cluster'] | zip(groups['hostilehpc_cluster']
             | map('extract', hostvars) | map('dict2items')
             | map('selectattr', 'key', 'in', ['ansible_host', 'ansible_ssh_common_args']) | map('items2dict'))) | to_json }}
"""


class RewritingProxy:
    """Forwards every request to the emulator; in the answers about clusters, the jump host's
    ``ip`` becomes ``hostile``."""

    def __init__(self, upstream, hostile):
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                answer = requests.request(
                    self.command, upstream + self.path, data=body, headers=headers, timeout=60, allow_redirects=False
                )
                content = answer.content
                if self.path.startswith("/v1/clusters") and "json" in answer.headers.get("Content-Type", ""):
                    content = json.dumps(proxy.rewrite(answer.json())).encode()
                self.send_response(answer.status_code)
                for key, value in answer.headers.items():
                    if key.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = forward

        self.hostile = hostile
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def rewrite(self, value):
        if isinstance(value, list):
            return [self.rewrite(item) for item in value]
        if isinstance(value, dict):
            if "worker_nodes" in value and value.get("ip"):
                value = dict(value, ip=self.hostile)
            return {key: self.rewrite(item) for key, item in value.items()}
        return value

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def emulator():
    with run_emulator(profile="test", rate_limits={"enabled": False}) as running:
        yield running
    report("ssh option injection", "; ".join(OUTCOMES))


CASES = {
    "log file and checking off": ("127.0.0.1 -E {witness} -o StrictHostKeyChecking=no -o ConnectTimeout=2", "root"),
    "ProxyCommand, no jump user": ("127.0.0.1 -o 'ProxyCommand=touch {witness}'", ""),
    "ProxyCommand as the host": ("-oProxyCommand=touch${{IFS}}{witness}", ""),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_jump_host_address_never_reaches_ssh(emulator, tmp_path, case):
    template, jump_user = CASES[case]
    witness = tmp_path / "witness"
    hostile = template.format(witness=witness)
    proxy = RewritingProxy(emulator.base_url, hostile)
    playbook = tmp_path / "cluster.yml"
    playbook.write_text(PLAYBOOK)
    report_file = tmp_path / "hosts.json"
    env = dict(
        os.environ,
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_LOCALHOST_WARNING="0",
        ANSIBLE_TIMEOUT="3",
        CLOUDCOMPUTE_API_URL=proxy.url + "/v1",
        CLOUDCOMPUTE_CLIENT_ID=emulator.client_id,
        CLOUDCOMPUTE_CLIENT_SECRET=emulator.client_secret,
        CLOUDCOMPUTE_TOKEN_CACHE=str(tmp_path / "tokens"),
    )
    try:
        run = subprocess.run(
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
                json.dumps({"jump_user": jump_user, "report": str(report_file)}),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    finally:
        proxy.close()
        emulator.control.reset()
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-6000:]
    assert not witness.exists(), f"ssh wrote or ran what the API said: {witness}"
    hosts = json.loads(report_file.read_text())
    assert set(hosts) == {"hostilehpc", "hostilehpc-worker-1", "hostilehpc-worker-2"}, hosts
    assert hosts["hostilehpc"] == {}, hosts  # no ansible_host from an address that is no address
    for name in ("hostilehpc-worker-1", "hostilehpc-worker-2"):
        assert "ansible_ssh_common_args" not in hosts[name], hosts
    assert "neither an IP address nor a host name" in output
    # a cluster name that is a valid group name is not made the group's name as well
    assert "Found both group and host with same name" not in output
    OUTCOMES.append(f"{case}: refused, nothing written or run")
