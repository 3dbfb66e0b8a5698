"""The inventory plugin against a real emulator: hosts, variables, groups, filters, the
constructed options, caching, request counts and errors."""

import os
import shlex
import time

import pytest
import requests
from ansible.errors import AnsibleParserError
from ansible.parsing.dataloader import DataLoader
from ansible.parsing.vault import VaultLib, VaultSecret

try:
    from ansible.parsing.vault import VaultSecretsContext
except ImportError:  # ansible-core < 2.19: the loader's secrets are enough
    VaultSecretsContext = None


INSTANCES_ONLY = {"include_clusters": False}


def host_names(inventory, group=None):
    """Every host, or the hosts of one group."""
    if group is None:
        return sorted(inventory.hosts)
    return sorted(host.name for host in inventory.groups[group].get_hosts())


def host_vars(inventory, name):
    return inventory.get_host(name).vars


def api_calls(control, path=None):
    return [
        entry
        for entry in control.requests()["requests"]
        if entry["path"] != "/v1/oauth2/token" and (path is None or entry["path"] == path)
    ]


def token_calls(control):
    return [entry for entry in control.requests()["requests"] if entry["path"] == "/v1/oauth2/token"]


@pytest.fixture
def fleet(control):
    """Three running CPU instances in FIN-01 tagged env=prod, two running GPU instances in
    ICE-01 tagged env=dev and gpu, one offline instance."""
    control.seed(
        instances=3,
        hostname_prefix="web",
        location_code="FIN-01",
        instance_type="CPU.4V.16G",
        tags={"env": "prod", "role": "web"},
    )
    control.seed(
        instances=2,
        hostname_prefix="train",
        location_code="ICE-01",
        instance_type="1A100.22V",
        tags={"env": "dev", "gpu": ""},
    )
    control.seed(instances=1, hostname_prefix="idle", status="offline")
    control.clear_requests()
    return control


# ---------------------------------------------------------------------- hosts and variables


def test_running_instances_become_hosts_with_prefixed_variables(inventory_run, fleet):
    inventory = inventory_run.parse(INSTANCES_ONLY)
    assert host_names(inventory) == ["train-00001", "train-00002", "web-00001", "web-00002", "web-00003"]

    listed = {instance["hostname"]: instance for instance in fleet.resources("instances")}
    web = host_vars(inventory, "web-00001")
    assert web["ansible_host"] == listed["web-00001"]["ip"]
    assert web["cloudcompute_id"] == listed["web-00001"]["id"]
    assert web["cloudcompute_hostname"] == "web-00001"
    assert web["cloudcompute_status"] == "running"
    assert web["cloudcompute_location"] == "FIN-01"
    assert web["cloudcompute_instance_type"] == "CPU.4V.16G"
    assert web["cloudcompute_cpu"]["number_of_cores"] == 4
    assert web["cloudcompute_tags"] == {"env": "prod", "role": "web"}
    assert web["cloudcompute_host_kind"] == "instance"
    assert "cloudcompute_jupyter_token" not in web
    assert not [
        name
        for name in web
        if not name.startswith(("cloudcompute_", "ansible_host", "ansible_ssh_common_args", "inventory_"))
    ]
    # the host key is pinned to the instance, in the collection's known_hosts beside the token cache
    assert web["cloudcompute_host_key_alias"] == "cloudcompute-" + listed["web-00001"]["id"]
    options = shlex.split(web["ansible_ssh_common_args"])
    assert options[::2] == ["-o"] * 4
    assert options[1] == "HostKeyAlias=cloudcompute-" + listed["web-00001"]["id"]
    assert options[3].startswith("UserKnownHostsFile=/") and options[3].endswith("/known_hosts")
    assert options[5:] == ["StrictHostKeyChecking=accept-new", "-o", "HashKnownHosts=no"]
    assert os.stat(options[3].split("=", 1)[1]).st_mode & 0o777 == 0o600


def test_default_groups(inventory_run, fleet):
    inventory = inventory_run.parse(INSTANCES_ONLY)
    assert host_names(inventory, "cloudcompute") == host_names(inventory)
    assert host_names(inventory, "cloudcompute_instances") == host_names(inventory)
    assert host_names(inventory, "cloudcompute_location_fin_01") == ["web-00001", "web-00002", "web-00003"]
    assert host_names(inventory, "cloudcompute_location_ice_01") == ["train-00001", "train-00002"]
    assert host_names(inventory, "cloudcompute_instance_type_1a100_22v") == ["train-00001", "train-00002"]
    assert host_names(inventory, "cloudcompute_status_running") == host_names(inventory)
    assert "cloudcompute_status_offline" not in inventory.groups


def test_hostvars_prefix_and_hostname_template(inventory_run, fleet):
    inventory = inventory_run.parse(
        dict(INSTANCES_ONLY, hostvars_prefix="cc_", hostname="{{ cc_hostname }}.{{ cc_location | lower }}")
    )
    assert "web-00001.fin-01" in host_names(inventory)
    assert host_vars(inventory, "train-00002.ice-01")["cc_tags"] == {"env": "dev", "gpu": ""}
    assert "cloudcompute_id" not in host_vars(inventory, "web-00001.fin-01")


def test_a_failing_hostname_template_is_one_clear_line(inventory_run, fleet):
    message = one_line_error(inventory_run, dict(INSTANCES_ONLY, hostname="{{ cloudcompute_no_such_field.x }}"))
    assert "the hostname template failed" in message


def test_an_invalid_prefix_is_refused(inventory_run):
    with pytest.raises(AnsibleParserError, match="hostvars_prefix"):
        inventory_run.parse(dict(INSTANCES_ONLY, hostvars_prefix="cc-"))


def test_a_taken_name_gets_the_id_appended_with_a_warning(inventory_run, control, messages):
    control.seed(instances=1, hostname_prefix="twin")
    second = control.seed(instances=1, hostname_prefix="twin")["instance_ids"][0]
    inventory = inventory_run.parse(INSTANCES_ONLY)
    assert host_names(inventory) == sorted(["twin-00001", "twin-00001_" + second])
    assert any(second in warning for warning in messages["warning"])


# ------------------------------------------------------------------------------ addresses


def test_connect_with_private_ip_keeps_hosts_without_one_and_says_so_at_v(inventory_run, fleet, messages):
    inventory = inventory_run.parse(dict(INSTANCES_ONLY, connect_with="private_ip"))
    assert len(host_names(inventory)) == 5
    assert all("ansible_host" not in host_vars(inventory, name) for name in host_names(inventory))
    assert len(messages["v"]) == 1
    assert "5 hosts have no private_ip" in messages["v"][0]
    assert "web-00001" in messages["v"][0]


def test_connect_with_hostname(inventory_run, fleet):
    inventory = inventory_run.parse(dict(INSTANCES_ONLY, connect_with="hostname"))
    assert host_vars(inventory, "web-00002")["ansible_host"] == "web-00002"


# -------------------------------------------------------------------------------- filters


def test_status_filter_takes_several_statuses_or_none(inventory_run, fleet):
    both = inventory_run.parse(dict(INSTANCES_ONLY, filters={"status": ["running", "offline"]}))
    assert len(host_names(both)) == 6
    assert host_names(both, "cloudcompute_status_offline") == ["idle-00001"]
    every = inventory_run.parse(dict(INSTANCES_ONLY, filters={"status": []}))
    assert len(host_names(every)) == 6
    offline = inventory_run.parse(dict(INSTANCES_ONLY, filters={"status": "offline"}))
    assert host_names(offline) == ["idle-00001"]
    queries = [entry["query"] for entry in api_calls(fleet, "/v1/instances")]
    assert queries == ["", "", "status=offline"]  # several statuses are filtered locally


def test_location_and_instance_type_filters(inventory_run, fleet):
    inventory = inventory_run.parse(dict(INSTANCES_ONLY, filters={"location": ["ICE-01"]}))
    assert host_names(inventory) == ["train-00001", "train-00002"]
    inventory = inventory_run.parse(dict(INSTANCES_ONLY, filters={"instance_type": "CPU.4V.16G", "location": "FIN-01"}))
    assert host_names(inventory) == ["web-00001", "web-00002", "web-00003"]


def test_tag_filters_are_sent_to_the_api(inventory_run, fleet):
    inventory = inventory_run.parse(dict(INSTANCES_ONLY, filters={"tags": {"ENV": "dev", "gpu": None}}))
    assert host_names(inventory) == ["train-00001", "train-00002"]
    inventory = inventory_run.parse(dict(INSTANCES_ONLY, filters={"tags": {"gpu": ""}}))
    assert host_names(inventory) == ["train-00001", "train-00002"]
    queries = [entry["query"] for entry in api_calls(fleet, "/v1/instances")]
    assert queries == ["status=running&tag=env%3Ddev&tag=gpu", "status=running&tag=gpu%3D"]


def test_unknown_or_malformed_filters_are_refused(inventory_run):
    with pytest.raises(AnsibleParserError, match="unknown filters colour"):
        inventory_run.parse(dict(INSTANCES_ONLY, filters={"colour": "blue"}))
    with pytest.raises(AnsibleParserError, match="filters.tags must be a dictionary"):
        inventory_run.parse(dict(INSTANCES_ONLY, filters={"tags": ["env=prod"]}))
    with pytest.raises(AnsibleParserError, match="filters.location must be a string or a list"):
        inventory_run.parse(dict(INSTANCES_ONLY, filters={"location": {"FIN-01": True}}))


# ---------------------------------------------------------------------------- constructed


def test_compose_groups_and_keyed_groups(inventory_run, fleet):
    inventory = inventory_run.parse(
        dict(
            INSTANCES_ONLY,
            compose={
                "ansible_user": "'ubuntu'",
                "ansible_port": "2222",
                "cores": "cloudcompute_cpu.number_of_cores",
                "label": "inventory_hostname ~ '@' ~ cloudcompute_location",
            },
            groups={"gpu_hosts": "'gpu' in cloudcompute_tags"},
            keyed_groups=[
                {"key": "cloudcompute_tags.env", "prefix": "env"},
                {"key": "cloudcompute_tags.role | default([])", "prefix": "role"},
            ],
        )
    )
    web = host_vars(inventory, "web-00001")
    # ansible-core before 2.19 gives composed values as text (unless jinja2_native is on)
    assert (web["ansible_user"], int(web["ansible_port"]), int(web["cores"])) == ("ubuntu", 2222, 4)
    assert web["label"] == "web-00001@FIN-01"
    assert host_names(inventory, "gpu_hosts") == ["train-00001", "train-00002"]
    assert host_names(inventory, "env_prod") == ["web-00001", "web-00002", "web-00003"]
    assert host_names(inventory, "env_dev") == ["train-00001", "train-00002"]
    assert host_names(inventory, "role_web") == ["web-00001", "web-00002", "web-00003"]


def test_compose_can_override_ansible_host(inventory_run, fleet):
    inventory = inventory_run.parse(
        dict(INSTANCES_ONLY, compose={"ansible_host": "cloudcompute_hostname ~ '.example'"})
    )
    assert host_vars(inventory, "web-00003")["ansible_host"] == "web-00003.example"


def test_strict_makes_a_broken_compose_fail(inventory_run, fleet):
    options = dict(INSTANCES_ONLY, compose={"broken": "cloudcompute_no_such_field.x"})
    assert "broken" not in host_vars(inventory_run.parse(options), "web-00001")
    with pytest.raises(Exception, match="Could not set broken"):
        inventory_run.parse(dict(options, strict=True))


# ------------------------------------------------------------------- requests and caching


def test_one_request_per_list_and_the_token_cache_shared_with_the_modules(inventory_run, control):
    control.seed(instances=250)
    control.clear_requests()
    inventory_run.parse()
    calls = api_calls(control)
    assert sorted(entry["path"] for entry in calls) == ["/v1/clusters", "/v1/instances"]
    assert len(token_calls(control)) == 1

    control.clear_requests()
    inventory_run.parse()  # a second run reuses the cached token
    assert len(api_calls(control)) == 2
    assert token_calls(control) == []


def test_include_clusters_false_skips_the_clusters_request(inventory_run, fleet):
    inventory_run.parse(INSTANCES_ONLY)
    assert [entry["path"] for entry in api_calls(fleet)] == ["/v1/instances"]


CACHED = dict(INSTANCES_ONLY, cache=True, cache_plugin="ansible.builtin.jsonfile")


@pytest.fixture
def cached(tmp_path):
    return dict(CACHED, cache_connection=str(tmp_path / "inventory-cache"))


def test_a_cache_hit_makes_no_api_request_and_rebuilds_groups(inventory_run, fleet, cached):
    first = inventory_run.parse(cached)
    fleet.clear_requests()
    second = inventory_run.parse(dict(cached, keyed_groups=[{"key": "cloudcompute_tags.env", "prefix": "env"}]))
    assert fleet.requests()["requests"] == []
    assert host_names(second) == host_names(first)
    assert host_names(second, "env_dev") == ["train-00001", "train-00002"]  # grouping options apply at once


def test_the_cache_expires_after_cache_timeout(inventory_run, fleet, cached):
    inventory_run.parse(dict(cached, cache_timeout=1))
    fleet.seed(instances=1, hostname_prefix="late")
    time.sleep(1.2)
    fleet.clear_requests()
    inventory = inventory_run.parse(dict(cached, cache_timeout=1))
    assert len(api_calls(fleet)) == 1
    assert "late-00001" in host_names(inventory)


def test_the_cache_ignores_answers_fetched_for_other_api_filters(inventory_run, fleet, cached):
    inventory_run.parse(cached)
    fleet.clear_requests()
    inventory = inventory_run.parse(dict(cached, filters={"tags": {"env": "prod"}}))
    assert [entry["query"] for entry in api_calls(fleet)] == ["status=running&tag=env%3Dprod"]
    assert host_names(inventory) == ["web-00001", "web-00002", "web-00003"]
    # location is filtered locally: the cached answers serve it
    fleet.clear_requests()
    inventory = inventory_run.parse(dict(cached, filters={"tags": {"env": "prod"}, "location": "ICE-01"}))
    assert api_calls(fleet) == [] and host_names(inventory) == []


def test_flush_cache_fetches_and_refreshes_the_cache(inventory_run, fleet, cached):
    inventory_run.parse(cached)
    fleet.seed(instances=1, hostname_prefix="late")
    fleet.clear_requests()
    assert "late-00001" in host_names(inventory_run.parse(cached, cache=False))
    assert len(api_calls(fleet)) == 1
    fleet.clear_requests()
    assert "late-00001" in host_names(inventory_run.parse(cached))
    assert api_calls(fleet) == []


# --------------------------------------------------------------------------------- errors


def one_line_error(inventory_run, options, **parse_options):
    with pytest.raises(AnsibleParserError) as failure:
        inventory_run.parse(options, **parse_options)
    message = str(failure.value.message)
    assert "\n" not in message
    assert message.startswith("cloudcompute inventory: ")
    return message


def test_bad_credentials_fail_with_one_clear_line(inventory_run, emulator):
    message = one_line_error(inventory_run, dict(INSTANCES_ONLY, client_secret="wrong"))
    assert "POST /oauth2/token failed (HTTP 401, unauthorized_request)" in message
    assert "wrong" not in message and emulator.client_secret not in message


def test_an_unreachable_api_fails_with_one_clear_line(inventory_run):
    started = time.monotonic()
    message = one_line_error(inventory_run, dict(INSTANCES_ONLY, api_url="http://127.0.0.1:9/v1"))
    assert "no response from http://127.0.0.1:9/v1" in message
    assert time.monotonic() - started < 5  # few retries: the inventory does not hang


def test_persistent_429_fails_with_one_clear_line(inventory_run, control):
    control.add_fault(method="GET", path="/v1/instances", status=429, retry_after=1)
    message = one_line_error(inventory_run, INSTANCES_ONLY)
    assert "GET /instances failed (HTTP 429, rate_limit_exceeded)" in message


def test_a_passing_429_is_waited_out(inventory_run, fleet):
    fleet.add_fault(method="GET", path="/v1/instances", status=429, retry_after=1, count=1)
    assert len(host_names(inventory_run.parse(INSTANCES_ONLY))) == 5


def test_missing_credentials_are_named(inventory_run, monkeypatch):
    monkeypatch.delenv("CLOUDCOMPUTE_CLIENT_SECRET")
    message = one_line_error(inventory_run, INSTANCES_ONLY)
    assert "client_secret" in message and "CLOUDCOMPUTE_CLIENT_SECRET" in message
    monkeypatch.setenv("CLOUDCOMPUTE_CLIENT_SECRET", "")
    message = one_line_error(inventory_run, INSTANCES_ONLY)
    assert "client_secret" in message and "CLOUDCOMPUTE_CLIENT_SECRET" in message


def test_with_a_fresh_cache_an_api_failure_serves_the_cache_with_a_warning(inventory_run, fleet, cached, messages):
    inventory_run.parse(cached)
    fleet.add_fault(method="GET", path="/v1/instances", status=500)
    inventory = inventory_run.parse(cached, cache=False)
    assert len(host_names(inventory)) == 5
    assert len(messages["warning"]) == 1
    assert "HTTP 500" in messages["warning"][0] and "cached" in messages["warning"][0]


def test_an_expired_cache_is_not_served_when_the_api_fails(inventory_run, fleet, cached):
    inventory_run.parse(dict(cached, cache_timeout=1))
    fleet.add_fault(method="GET", path="/v1/instances", status=500)
    time.sleep(1.2)
    one_line_error(inventory_run, dict(cached, cache_timeout=1))


# ---------------------------------------------------------------------------- credentials


def test_credentials_may_be_templates(inventory_run, fleet, monkeypatch, emulator):
    monkeypatch.setenv("ELSEWHERE_SECRET", emulator.client_secret)
    monkeypatch.delenv("CLOUDCOMPUTE_CLIENT_SECRET")
    options = dict(INSTANCES_ONLY, client_secret="{{ lookup('ansible.builtin.env', 'ELSEWHERE_SECRET') }}")
    assert len(host_names(inventory_run.parse(options))) == 5


def test_credentials_may_be_vault_encrypted(inventory_run, fleet, monkeypatch, emulator, tmp_path):
    monkeypatch.delenv("CLOUDCOMPUTE_CLIENT_SECRET")
    secrets = [("default", VaultSecret(b"inventory-test"))]
    encrypted = VaultLib(secrets).encrypt(emulator.client_secret).decode()
    path = tmp_path / "vaulted.cloudcompute.yml"
    path.write_text(
        "plugin: cloudcompute.cloud.cloudcompute\ninclude_clusters: false\nclient_secret: !vault |\n"
        + "".join(f"  {line}\n" for line in encrypted.splitlines())
    )
    loader = DataLoader()
    loader.set_vault_secrets(secrets)
    if VaultSecretsContext:
        monkeypatch.setattr(VaultSecretsContext, "_current", VaultSecretsContext(secrets))  # as the CLI sets it up
    inventory = inventory_run.parse_file(path, loader=loader)
    assert len(host_names(inventory)) == 5


# ------------------------------------------------------------------------------- clusters


@pytest.fixture
def cluster(control):
    """One running 16H100 cluster (jump host and 2 workers) in FIN-01 tagged env=prod."""
    cluster_id = control.seed(
        clusters=1, hostname_prefix="hpc", location_code="FIN-01", cluster_type="16H100", tags={"env": "prod"}
    )["cluster_ids"][0]
    control.clear_requests()
    return next(record for record in control.resources("clusters") if record["id"] == cluster_id)


JUMP_HOST = "hpc-cluster-00001"
WORKERS = ["hpc-cluster-00001-worker-1", "hpc-cluster-00001-worker-2"]


def test_a_cluster_gives_its_jump_host_and_workers(inventory_run, cluster):
    inventory = inventory_run.parse()
    assert host_names(inventory) == [JUMP_HOST] + WORKERS
    jump = host_vars(inventory, JUMP_HOST)
    assert jump["ansible_host"] == cluster["ip"]
    assert jump["cloudcompute_host_kind"] == "jump_host"
    assert jump["cloudcompute_cluster_type"] == "16H100"
    assert jump["cloudcompute_tags"] == {"env": "prod"}
    assert [node["hostname"] for node in jump["cloudcompute_worker_nodes"]] == WORKERS
    assert "HostKeyAlias=cloudcompute-" + cluster["id"] in jump["ansible_ssh_common_args"]

    worker = host_vars(inventory, WORKERS[0])
    node = cluster["worker_nodes"][0]
    assert worker["ansible_host"] == WORKERS[0]  # the jump host reaches workers by hostname
    # both hops pinned: the worker under its own id, the jump host (in the ProxyCommand) under the cluster's
    words = shlex.split(worker["ansible_ssh_common_args"])
    assert words[1] == "HostKeyAlias=cloudcompute-" + node["id"]
    proxy = shlex.split(words[-1].split("=", 1)[1])
    assert words[-1].startswith("ProxyCommand=") and proxy[:3] == ["ssh", "-W", "[%h]:%p"]
    assert "HostKeyAlias=cloudcompute-" + cluster["id"] in proxy and proxy[-1] == "root@" + cluster["ip"]
    assert worker["cloudcompute_host_kind"] == "worker"
    assert worker["cloudcompute_id"] == node["id"]
    assert worker["cloudcompute_private_ip"] == node["private_ip"]
    assert worker["cloudcompute_public_ip"] == node["public_ip"]
    assert worker["cloudcompute_cluster_id"] == cluster["id"]
    assert worker["cloudcompute_cluster_hostname"] == JUMP_HOST
    assert worker["cloudcompute_cluster_type"] == "16H100"
    assert worker["cloudcompute_location"] == "FIN-01"
    assert worker["cloudcompute_tags"] == {"env": "prod"}

    assert host_names(inventory, "cloudcompute_cluster_hpc_cluster_00001") == [JUMP_HOST] + WORKERS
    assert host_names(inventory, "cloudcompute_jump_hosts") == [JUMP_HOST]
    assert host_names(inventory, "cloudcompute_workers") == WORKERS
    assert host_names(inventory, "cloudcompute_location_fin_01") == [JUMP_HOST] + WORKERS
    assert host_names(inventory, "cloudcompute_status_running") == [JUMP_HOST] + WORKERS


def test_worker_address_and_proxy_jump_options(inventory_run, cluster):
    inventory = inventory_run.parse(
        {"worker_connect_with": "private_ip", "jump_host_user": "ubuntu", "jump_host_port": 2222, "host_keys": False}
    )
    worker = host_vars(inventory, WORKERS[1])
    assert worker["ansible_host"] == cluster["worker_nodes"][1]["private_ip"]
    assert worker["ansible_ssh_common_args"] == "-o ProxyJump=ubuntu@{}:2222".format(cluster["ip"])
    inventory = inventory_run.parse({"jump_host_user": "", "connect_with": "hostname", "host_keys": False})
    assert host_vars(inventory, WORKERS[1])["ansible_ssh_common_args"] == "-o ProxyJump=" + JUMP_HOST


def test_workers_without_a_jump_host_address_are_kept_and_named_at_v(inventory_run, cluster, messages):
    inventory = inventory_run.parse({"connect_with": "private_ip"})  # clusters report no private address
    assert host_names(inventory) == [JUMP_HOST] + WORKERS
    assert "Proxy" not in host_vars(inventory, WORKERS[0])["ansible_ssh_common_args"]
    assert any("1 hosts have no private_ip" in message and JUMP_HOST in message for message in messages["v"])
    assert any("2 workers have no ProxyJump" in message for message in messages["v"])


def test_include_workers_and_include_clusters(inventory_run, cluster):
    assert host_names(inventory_run.parse({"include_workers": False})) == [JUMP_HOST]
    assert host_names(inventory_run.parse({"include_clusters": False})) == []


def test_cluster_filters_are_applied_to_the_answer(inventory_run, cluster, control):
    control.seed(clusters=1, hostname_prefix="lab", location_code="FIN-02", cluster_type="16H100", tags={"env": "dev"})
    control.seed(clusters=1, hostname_prefix="off", location_code="FIN-01", status="offline")
    jump_hosts = "cloudcompute_jump_hosts"
    assert host_names(inventory_run.parse(), jump_hosts) == ["hpc-cluster-00001", "lab-cluster-00001"]
    assert host_names(inventory_run.parse({"filters": {"location": "FIN-02"}}), jump_hosts) == ["lab-cluster-00001"]
    assert host_names(inventory_run.parse({"filters": {"tags": {"env": "prod"}}}), jump_hosts) == ["hpc-cluster-00001"]
    assert host_names(inventory_run.parse({"filters": {"cluster_type": ["32H100"]}})) == []
    offline = inventory_run.parse({"filters": {"status": "offline"}})
    assert host_names(offline, jump_hosts) == ["off-cluster-00001"]
    assert host_names(offline, "cloudcompute_workers") == ["off-cluster-00001-worker-1", "off-cluster-00001-worker-2"]


def test_a_worker_is_kept_by_its_own_status(inventory_run, cluster, emulator):
    worker_id = cluster["worker_nodes"][0]["id"]
    response = requests.post(
        "{}/clusters/{}/nodes/{}/actions".format(emulator.api_url, cluster["id"], worker_id),
        json={"action": "shutdown"},
        headers={"Authorization": "Bearer " + emulator.access_token()},
        timeout=10,
    )
    assert response.status_code == 202
    time.sleep(0.1)  # the test profile completes a node action in 0.02 s
    assert host_names(inventory_run.parse()) == [JUMP_HOST, WORKERS[1]]
    everything = inventory_run.parse({"filters": {"status": []}})
    assert host_names(everything, "cloudcompute_status_offline") == [WORKERS[0]]


def test_a_cluster_still_provisioning_has_a_jump_host_without_address(inventory_run, control, messages):
    control.update_settings(profile="realistic")  # provisioning lasts minutes, not 0.1 s
    control.seed(clusters=1, hostname_prefix="new", status="provisioning")
    inventory = inventory_run.parse({"filters": {"status": "provisioning"}})
    assert host_names(inventory) == ["new-cluster-00001"]
    assert "ansible_host" not in host_vars(inventory, "new-cluster-00001")
    assert any("new-cluster-00001" in message for message in messages["v"])
