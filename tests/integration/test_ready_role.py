"""End to end: the ready role on loopback instances of the emulator, served by a local sshd.

The instances are deployed with the instance module (the emulator gives them 127.1.x.y
addresses) and reached over real SSH. This machine has neither cloud-init nor nvidia-smi, so
the role waits for the startup marker, and its GPU check must fail the GPU instance saying that
nvidia-smi is missing, while the CPU instance is ready. A host whose marker never appears and
one that answers on no port fail with their own reasons.
"""

import json
import os
import subprocess
import sys
import time
import uuid

import pytest
from local_sshd import free_port
from test_inventory_ssh import BIN, run

PLAYBOOK = """
- name: Deploy two loopback instances and add them, and an address nobody answers on, to the inventory
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Register the test key
      cloudcompute.cloud.ssh_key:
        name: "{{ prefix }}-key"
        public_key: "{{ lookup('ansible.builtin.file', public_key_file) }}"

    - name: Deploy the instances
      cloudcompute.cloud.instance:
        hostname: "{{ prefix }}-{{ item.name }}"
        instance_type: "{{ item.type }}"
        image: "{{ item.image }}"
        location_code: FIN-01
        ssh_keys: ["{{ prefix }}-key"]
      loop:
        - {name: gpu, type: 1H100.80S.30V, image: ubuntu-24.04-cuda-12.8-open-docker}
        - {name: cpu, type: CPU.4V.16G, image: ubuntu-24.04}
      register: deployed

    - name: Add them to the inventory
      ansible.builtin.add_host:
        name: "{{ item.instance.hostname }}"
        groups: [new]
        ansible_host: "{{ item.instance.ip }}"
        cloudcompute_instance_type: "{{ item.instance.instance_type }}"
        ready_startup_marker: "{{ marker }}"
      loop: "{{ deployed.results }}"
      loop_control:
        label: "{{ item.instance.hostname }}"

    - name: A second name for the CPU instance, whose startup never finishes
      ansible.builtin.add_host:
        name: "{{ prefix }}-late"
        groups: [new]
        ansible_host: "{{ deployed.results[1].instance.ip }}"
        cloudcompute_instance_type: CPU.4V.16G
        ready_startup_marker: "{{ marker }}.never"
        ready_timeout: 2

    - name: An address where nothing answers
      ansible.builtin.add_host:
        name: "{{ prefix }}-ghost"
        groups: [new]
        ansible_host: 127.1.250.250
        ansible_port: "{{ closed_port }}"
        cloudcompute_instance_type: CPU.4V.16G
        ready_timeout: 3

- name: Wait until the new hosts are ready
  hosts: new
  gather_facts: false
  vars:
    ready_check_gpus: true
  roles:
    - cloudcompute.cloud.ready

- name: Report
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Write every host's readiness
      ansible.builtin.copy:
        dest: "{{ report }}"
        content: "{{ dict(groups['new'] | zip(groups['new'] | map('extract', hostvars, 'cloudcompute_ready'))) | to_json }}"
        mode: "0600"
"""


def test_ready_role_on_loopback_hosts(emulator, control, sshd, tmp_path):
    control.update_settings(instance_ip_mode="loopback")
    client_key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(client_key)], check=True)
    # the key the instances are deployed with, installed as their first boot would
    (sshd["directory"] / "authorized_keys").write_text(client_key.with_suffix(".pub").read_text())
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text("* {}\n".format(" ".join((sshd["directory"] / "host_ed25519.pub").read_text().split()[:2])))
    ssh_config = tmp_path / "ssh_config"
    ssh_config.write_text(
        f"Host *\n  UserKnownHostsFile {known_hosts}\n  StrictHostKeyChecking yes\n  IdentityFile {client_key}\n"
        "  IdentitiesOnly yes\n  BatchMode yes\n  ConnectTimeout 2\n"
    )
    marker = tmp_path / "startup-finished"
    marker.write_text("")  # the startup script's last step
    prefix = f"ready-{uuid.uuid4().hex[:6]}"
    report = tmp_path / "report.json"
    playbook = tmp_path / "ready.yml"
    playbook.write_text(PLAYBOOK)
    env = dict(
        os.environ,
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_LOCALHOST_WARNING="0",
        ANSIBLE_HOST_KEY_CHECKING="1",
        ANSIBLE_SSH_ARGS=f"-F {ssh_config}",
        CLOUDCOMPUTE_API_URL=emulator.api_url,
        CLOUDCOMPUTE_CLIENT_ID=emulator.client_id,
        CLOUDCOMPUTE_CLIENT_SECRET=emulator.client_secret,
        CLOUDCOMPUTE_TOKEN_CACHE=str(tmp_path / "tokens"),
    )
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        json.dumps(
            {
                "all": {
                    "hosts": {
                        "localhost": {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
                    },
                    "vars": {
                        "ansible_port": sshd["port"],
                        "ansible_user": sshd["user"],
                        "ansible_python_interpreter": sys.executable,
                    },
                }
            }
        )
    )
    result = run(
        [
            os.path.join(BIN, "ansible-playbook"),
            str(playbook),
            "-i",
            str(inventory),
            "-e",
            f"prefix={prefix}",
            "-e",
            f"public_key_file={client_key}.pub",
            "-e",
            f"marker={marker}",
            "-e",
            f"report={report}",
            "-e",
            "closed_port=%d" % free_port(),
        ],
        env,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 2, output[-10000:]  # some hosts failed, the play went on
    ready = json.loads(report.read_text())

    gpu = ready[prefix + "-gpu"]
    assert gpu["connected"] is True and gpu["startup_finished"] is True
    assert gpu["gpus_expected"] == 1 and gpu["gpus_found"] is None and gpu["ok"] is False
    assert gpu["reasons"] == ["nvidia-smi is missing: no NVIDIA driver, but 1H100.80S.30V has 1 H100 GPU(s)"]
    assert f"{prefix}-gpu is not ready: nvidia-smi is missing" in output

    assert ready[prefix + "-cpu"] == {
        "connected": True,
        "startup_finished": True,
        "gpus_expected": 0,
        "gpus_found": None,
        "gpu_model": None,
        "ok": True,
        "reasons": [],
    }

    late = ready[prefix + "-late"]
    assert late["connected"] is True and late["startup_finished"] is False and late["ok"] is False
    assert late["reasons"] == [f"the startup marker {marker}.never did not appear within 2s"]

    ghost = ready[prefix + "-ghost"]
    assert ghost["connected"] is False and ghost["startup_finished"] is False and ghost["ok"] is False
    assert ghost["reasons"][0].startswith("no connection within 3s")


WEDGED_PLAYBOOK = """
- name: The GPU check on a host whose nvidia-smi hangs (a wedged driver), or prints no name column
  hosts: wedged, nameless
  gather_facts: false
  vars:
    ready_startup: none
    ready_check_gpus: true
    ready_instance_type: 1H100.80S.30V
    ready_nvidia_smi_timeout: 2
  roles:
    - cloudcompute.cloud.ready
"""


def test_a_hanging_or_nameless_nvidia_smi_fails_the_gpu_check_in_time(tmp_path):
    wedged = tmp_path / "wedged-nvidia-smi"
    wedged.write_text("#!/bin/sh\nsleep 600\n")
    nameless = tmp_path / "nameless-nvidia-smi"
    nameless.write_text("#!/bin/sh\nprintf 'index, memory.total [MiB]\\n0, 81559 MiB\\n'\n")
    for script in (wedged, nameless):
        script.chmod(0o755)
    playbook = tmp_path / "wedged.yml"
    playbook.write_text(WEDGED_PLAYBOOK)
    inventory = tmp_path / "hosts.yml"
    common = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    inventory.write_text(
        json.dumps(
            {
                "all": {
                    "hosts": {
                        "wedged": dict(common, ready_nvidia_smi=str(wedged)),
                        "nameless": dict(common, ready_nvidia_smi=str(nameless)),
                    }
                }
            }
        )
    )
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0", ANSIBLE_LOCALHOST_WARNING="0")
    started = time.monotonic()
    try:
        result = subprocess.run(
            [os.path.join(BIN, "ansible-playbook"), str(playbook), "-i", str(inventory)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the ready role hung on a wedged nvidia-smi")
    assert time.monotonic() - started < 100
    assert result.returncode == 2, result.stdout + result.stderr
    assert "wedged is not ready: nvidia-smi lists 0 working GPU(s)" in result.stdout, result.stdout
    assert "nvidia-smi did not answer within 2 s" in result.stdout, result.stdout
    assert "nameless is not ready: nvidia-smi lists 0 working GPU(s)" in result.stdout, result.stdout
    assert "Traceback" not in result.stdout + result.stderr
