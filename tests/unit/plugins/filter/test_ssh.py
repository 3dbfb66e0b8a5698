"""The ssh_host_vars filter (the cluster and fleet roles' in-memory hosts): only an IP address
or a host name becomes ansible_host or reaches an SSH argument, and every value is quoted, so a
hostile API answer can never add an option to ssh's command line."""

import shlex

import pytest
from ansible.errors import AnsibleFilterError
from ansible.plugins.loader import filter_loader, init_plugin_loader

init_plugin_loader()
ssh_host_vars = filter_loader.get("cloudcompute.cloud.ssh_host_vars").j2_function

CLUSTER = {"id": "c1", "hostname": "hpc", "ip": "192.0.2.10"}
WORKER = {"id": "w1", "hostname": "hpc-worker-1", "private_ip": "10.0.0.2"}
HOSTILE = [
    "1.2.3.4 -E /tmp/x -o StrictHostKeyChecking=no",
    "-oProxyCommand=touch${IFS}/tmp/pwned",
    "1.2.3.4;touch /tmp/pwned",
    "{{ lookup('pipe', 'id') }}",
    "host\n-o ProxyCommand=x",
    "",
    None,
]


@pytest.fixture(autouse=True)
def known_hosts(tmp_path, monkeypatch):
    path = tmp_path / "cache" / "known_hosts"
    monkeypatch.setenv("CLOUDCOMPUTE_KNOWN_HOSTS", str(path))
    return path


def words(args):
    return shlex.split(args)


def test_a_worker_through_its_jump_host():
    result = ssh_host_vars(
        WORKER,
        address_field="private_ip",
        jump_host=CLUSTER,
        jump_host_user="admin",
        jump_host_port=2222,
        host_keys=False,
    )
    assert result["ansible_host"] == "10.0.0.2"
    assert result["problems"] == []
    assert words(result["ansible_ssh_common_args"])[:2] == ["-o", "ProxyJump=admin@192.0.2.10:2222"]


def test_both_hops_of_a_worker_are_pinned_in_the_collections_known_hosts(known_hosts):
    known_hosts.parent.mkdir(mode=0o700)
    known_hosts.write_text("cloudcompute-c1 ssh-ed25519 AAAAkey\n")  # the jump host was met before
    result = ssh_host_vars(WORKER, address_field="private_ip", jump_host=CLUSTER, jump_host_user="admin")
    options = words(result["ansible_ssh_common_args"])
    assert result["cloudcompute_host_key_alias"] == "cloudcompute-w1"
    assert options[:8] == [
        "-o", "HostKeyAlias=cloudcompute-w1", "-o", f"UserKnownHostsFile={known_hosts}",
        "-o", "StrictHostKeyChecking=accept-new", "-o", "HashKnownHosts=no",
    ]  # fmt: skip
    assert options[8] == "-o" and options[9].startswith("ProxyCommand=")
    # run by /bin/sh: one word per option, the jump host's own pin with checking on
    assert words(options[9].split("=", 1)[1]) == [
        "ssh", "-W", "[%h]:%p", "-p", "22",
        "-o", "HostKeyAlias=cloudcompute-c1", "-o", f"UserKnownHostsFile={known_hosts}",
        "-o", "StrictHostKeyChecking=yes", "-o", "HashKnownHosts=no", "admin@192.0.2.10",
    ]  # fmt: skip


def test_a_known_hosts_path_ssh_would_split_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("CLOUDCOMPUTE_KNOWN_HOSTS", str(tmp_path / "my hosts"))
    with pytest.raises(AnsibleFilterError, match="known_hosts path"):
        ssh_host_vars(CLUSTER)


@pytest.mark.parametrize("address", HOSTILE)
def test_a_jump_host_address_that_is_no_address_gives_no_connection_variables(address):
    jump = ssh_host_vars(dict(CLUSTER, ip=address))
    assert "ansible_host" not in jump
    worker = ssh_host_vars(WORKER, address_field="private_ip", jump_host=dict(CLUSTER, ip=address), jump_host_user="")
    assert "ansible_host" not in worker and "ansible_ssh_common_args" not in worker
    assert (jump["problems"] != []) == bool(address)
    assert worker["problems"]  # the worker has no way through its jump host, and says so


@pytest.mark.parametrize("address", HOSTILE[:5])
def test_a_worker_address_that_is_no_address_gives_no_connection_variables(address):
    worker = ssh_host_vars(dict(WORKER, private_ip=address), address_field="private_ip", jump_host=CLUSTER)
    assert "ansible_host" not in worker and "ansible_ssh_common_args" not in worker
    assert "neither an IP address nor a host name" in worker["problems"][0]


@pytest.mark.parametrize("user", ["a b", "-oProxyCommand=x", "root@evil", "x;y"])
def test_a_jump_host_user_ssh_would_not_take_as_one_name_is_refused(user):
    with pytest.raises(AnsibleFilterError, match="jump_host_user"):
        ssh_host_vars(WORKER, jump_host=CLUSTER, jump_host_user=user)


@pytest.mark.parametrize("port", [0, 70000, "22 -E x", True])
def test_a_port_that_is_no_port_is_refused(port):
    with pytest.raises(AnsibleFilterError, match="jump_host_port"):
        ssh_host_vars(WORKER, jump_host=CLUSTER, jump_host_port=port)


def test_ipv6_jump_host():
    result = ssh_host_vars(
        WORKER, address_field="private_ip", jump_host=dict(CLUSTER, ip="2001:db8::1"), host_keys=False
    )
    assert words(result["ansible_ssh_common_args"])[:2] == ["-o", "ProxyJump=root@[2001:db8::1]"]
