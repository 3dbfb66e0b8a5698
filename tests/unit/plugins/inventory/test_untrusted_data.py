"""The inventory plugin given what a project member or a hostile API can put in its answers:
reserved and unsafe host names, Jinja in names, tags and descriptions, addresses carrying SSH
options, wrong types, secrets; and several projects and exclusions in one source."""

import json
import os
import shlex
import stat
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml
from ansible.errors import AnsibleParserError

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiClient

ALL_STATUSES = {"filters": {"status": []}, "include_clusters": False}
ANSIBLE_PLAYBOOK = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")


@pytest.fixture
def api(emulator_reset):
    """The emulator's API, as a project member calls it (with an SSH key, which deploys need)."""
    client = ApiClient(
        api_url=emulator_reset.api_url,
        client_id=emulator_reset.client_id,
        client_secret=emulator_reset.client_secret,
        token_cache=None,
    )
    client.post(
        "/ssh-keys",
        {"name": "member", "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q"},
    )
    return client


def deploy(api, hostname, **fields):
    body = dict(hostname=hostname, image="ubuntu-24.04", instance_type="CPU.4V.16G", location_code="FIN-01", **fields)
    return api.create("/instances", body, find_existing=lambda: None)


# ------------------------------------------------------------------------------- host names

# Valid host names for the API, with a meaning of their own for Ansible or this plugin.
RESERVED = ["all", "ungrouped", "localhost", "127.0.0.1", "cloudcompute"]
# Names the API refuses as host names, but a hostname template can make (from descriptions
# here): the plugin's generated group names, pattern characters, Jinja.
UNSAFE = {
    "cloudcompute_instances": "cloudcompute_instances",
    "web 01": "web_01",
    "db[1:3]": "db_1_3_",
    "a,b": "a_b",
    "!x": "_x",
    "{{ 7 * 7 }}": "___7___7___",
}


def test_reserved_and_unsafe_names_get_a_safe_name_with_a_warning(inventory_run, api, messages):
    """On ansible-core 2.16 to 2.18 the hostname template would evaluate the Jinja in a
    description (``{{ 7 * 7 }}`` becoming ``49``) were API data not marked unsafe."""
    ids = {name: deploy(api, name, description=name) for name in RESERVED + ["web-01.example.com"]}
    ids.update((name, deploy(api, "described-%d" % number, description=name)) for number, name in enumerate(UNSAFE))
    inventory = inventory_run.parse(dict(ALL_STATUSES, hostname="{{ cloudcompute_description }}"))
    expected = [f"{name}_{ids[name]}" for name in RESERVED]
    expected += [(f"{safe}_{ids[name]}").lstrip("_") for name, safe in UNSAFE.items()]
    assert sorted(inventory.hosts) == sorted(expected + ["web-01.example.com"])
    # the implicit localhost stays Ansible's; every host is only in this plugin's groups
    assert "localhost" not in inventory.hosts
    assert sorted(host.name for host in inventory.groups["cloudcompute"].get_hosts()) == sorted(inventory.hosts)
    assert len(messages["warning"]) == len(RESERVED) + len(UNSAFE)
    assert any("'all'" in warning and ids["all"] in warning for warning in messages["warning"])


def test_jinja_from_the_api_is_never_templated(inventory_run, api, tmp_path, ansible_env):
    """End to end with ansible-playbook (this suite runs on ansible-core 2.16 and the ceiling):
    Jinja in a description, a tag and a variable composed from them stays text, and a host named
    localhost does not take over ``hosts: localhost``. (Jinja in names: the test above.)"""
    marker = tmp_path / "templated"
    lookup = f"{{{{ lookup('ansible.builtin.pipe', 'touch {marker}') }}}}"
    deploy(api, "localhost")
    deploy(api, "notebook", description=lookup, tags=[{"key": "note", "value": "{{ 6 * 7 }}"}])
    config = inventory_run.write_config(dict(ALL_STATUSES, compose={"described": "cloudcompute_description"}))
    seen = tmp_path / "seen.json"
    playbook = tmp_path / "play.yml"
    playbook.write_text(
        yaml.safe_dump(
            [
                {
                    "hosts": "localhost",
                    "gather_facts": False,
                    "tasks": [
                        {"ansible.builtin.command": "true"},  # over SSH to the instance if localhost were hijacked
                        {
                            "ansible.builtin.copy": {
                                "dest": str(seen),
                                "content": "{{ groups['cloudcompute'] | map('extract', hostvars) "
                                "| map('dict2items') | map('items2dict') | list | to_json }}",
                            }
                        },
                    ],
                }
            ]
        )
    )
    environment = ansible_env(
        ANSIBLE_COLLECTIONS_PATH=os.environ["ANSIBLE_COLLECTIONS_PATH"],
        CLOUDCOMPUTE_API_URL=os.environ["CLOUDCOMPUTE_API_URL"],
        CLOUDCOMPUTE_CLIENT_ID=os.environ["CLOUDCOMPUTE_CLIENT_ID"],
        CLOUDCOMPUTE_CLIENT_SECRET=os.environ["CLOUDCOMPUTE_CLIENT_SECRET"],
        CLOUDCOMPUTE_TOKEN_CACHE=os.environ["CLOUDCOMPUTE_TOKEN_CACHE"],
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_HOST_KEY_CHECKING="false",
    )
    run = subprocess.run(
        [ANSIBLE_PLAYBOOK, "-i", str(config), str(playbook)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert not marker.exists()
    hosts = {host["cloudcompute_hostname"]: host for host in json.loads(seen.read_text())}
    assert hosts["notebook"]["cloudcompute_description"] == lookup
    assert hosts["notebook"]["described"] == lookup
    assert hosts["notebook"]["cloudcompute_tags"] == {"note": "{{ 6 * 7 }}"}


# -------------------------------------------------------------------------------- secrets


def test_the_inventory_cache_is_private_and_holds_no_jupyter_token(inventory_run, control, tmp_path):
    control.seed(instances=2, hostname_prefix="nb")
    tokens = [instance["jupyter_token"] for instance in control.resources("instances")]
    assert all(tokens)
    options = dict(
        ALL_STATUSES,
        cache=True,
        cache_plugin="ansible.builtin.jsonfile",
        cache_connection=str(tmp_path / "inventory-cache"),
    )
    previous_umask = os.umask(0o022)
    try:
        inventory_run.parse(options)
        (cache_file,) = (tmp_path / "inventory-cache").iterdir()
        assert stat.S_IMODE(cache_file.stat().st_mode) == 0o600
        os.chmod(cache_file, 0o644)  # left by an earlier version
        inventory = inventory_run.parse(options, cache=False)
        assert stat.S_IMODE(cache_file.stat().st_mode) == 0o600
    finally:
        os.umask(previous_umask)
    text = cache_file.read_text()
    assert "nb-00001" in text
    assert not [token for token in tokens if token in text]
    assert "jupyter_token" not in text
    # served from the cache, the hosts are the same
    assert sorted(inventory_run.parse(options).hosts) == sorted(inventory.hosts) == ["nb-00001", "nb-00002"]


# ------------------------------------------------------------- several projects, exclusions


def test_several_projects_in_one_source(inventory_run, control, monkeypatch, messages):
    second = control.create_credentials(role="member", project_id="second-project")
    control.seed(instances=2, hostname_prefix="web")
    second_ids = control.seed(instances=1, hostname_prefix="web", project_id=second["project_id"])["instance_ids"]
    control.clear_requests()
    first = {
        "name": "main",
        "client_id": os.environ["CLOUDCOMPUTE_CLIENT_ID"],
        "client_secret": "{{ lookup('ansible.builtin.env', 'CLOUDCOMPUTE_CLIENT_SECRET') }}",
    }
    monkeypatch.delenv("CLOUDCOMPUTE_CLIENT_ID")
    inventory = inventory_run.parse(
        {
            "include_clusters": False,
            "projects": [
                first,
                {"name": "second", "client_id": second["client_id"], "client_secret": second["client_secret"]},
            ],
        }
    )
    twin = "web-00001_" + second_ids[0]
    assert sorted(inventory.hosts) == sorted(["web-00001", "web-00002", twin])
    assert inventory.get_host("web-00002").vars["cloudcompute_project"] == "main"
    assert inventory.get_host(twin).vars["cloudcompute_project"] == "second"
    assert [host.name for host in inventory.groups["cloudcompute_project_second"].get_hosts()] == [twin]
    assert len(inventory.groups["cloudcompute_project_main"].get_hosts()) == 2
    listed = [entry for entry in control.requests()["requests"] if entry["path"] == "/v1/instances"]
    assert sorted(entry["client_id"] for entry in listed) == sorted([first["client_id"], second["client_id"]])


def test_the_cluster_hosts_of_a_project_carry_its_name(inventory_run, control):
    second = control.create_credentials(role="member", project_id="second-project")
    control.seed(clusters=1, hostname_prefix="hpc", project_id=second["project_id"])
    main = {
        "client_id": os.environ["CLOUDCOMPUTE_CLIENT_ID"],
        "client_secret": os.environ["CLOUDCOMPUTE_CLIENT_SECRET"],
    }
    projects = [
        dict(main, name="main"),
        dict(name="second", client_id=second["client_id"], client_secret=second["client_secret"]),
    ]
    inventory = inventory_run.parse({"projects": projects, "host_keys": False})
    cluster_hosts = ["hpc-cluster-00001", "hpc-cluster-00001-worker-1", "hpc-cluster-00001-worker-2"]
    assert sorted(inventory.hosts) == cluster_hosts
    assert sorted(host.name for host in inventory.groups["cloudcompute_project_second"].get_hosts()) == cluster_hosts
    assert [inventory.get_host(name).vars["cloudcompute_project"] for name in cluster_hosts] == ["second"] * 3
    assert inventory.get_host(cluster_hosts[1]).vars["ansible_ssh_common_args"].startswith("-o ProxyJump=root@")


def test_projects_are_checked(inventory_run):
    for projects, message in (
        ([{"client_id": "a"}], "projects\\[0\\] has no client_secret"),
        ([{"client_id": "a", "client_secret": "b", "colour": 1}], "unknown options colour"),
        ([{"client_id": "a", "client_secret": "b"}] * 2, "different names"),
    ):
        with pytest.raises(AnsibleParserError, match=message):
            inventory_run.parse({"projects": projects})


def test_exclude_leaves_out_what_any_entry_matches(inventory_run, control):
    control.seed(instances=2, hostname_prefix="web", tags={"env": "prod"})
    control.seed(instances=1, hostname_prefix="test", tags={"env": "test"})
    control.seed(instances=1, hostname_prefix="gpu", location_code="ICE-01", instance_type="1A100.22V")
    control.seed(clusters=1, hostname_prefix="hpc", location_code="FIN-01", cluster_type="16H100")
    inventory = inventory_run.parse({"exclude": [{"tags": {"env": "test"}}, {"instance_type": ["1A100.22V"]}]})
    # the instance_type entry does not apply to clusters, so the cluster stays whole
    assert sorted(inventory.hosts) == [
        "hpc-cluster-00001",
        "hpc-cluster-00001-worker-1",
        "hpc-cluster-00001-worker-2",
        "web-00001",
        "web-00002",
    ]
    inventory = inventory_run.parse({"exclude": [{"location": ["FIN-01"]}]})
    assert sorted(inventory.hosts) == ["gpu-00001"]
    inventory = inventory_run.parse({"exclude": [{"status": ["running"]}], "filters": {"status": []}})
    assert sorted(inventory.hosts) == []
    with pytest.raises(AnsibleParserError, match="exclude\\[0\\] gives no filter"):
        inventory_run.parse({"exclude": [{}]})


# ---------------------------------------------------------------------- a hostile API


@pytest.fixture
def hostile_api(inventory_run, monkeypatch):
    """A loopback server answering the token exchange and then whatever the test puts in
    ``answers`` (path -> JSON text) to GET /v1/instances and /v1/clusters."""
    answers = {"/v1/instances": "[]", "/v1/clusters": "[]"}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.answer(json.dumps({"access_token": "hostile", "token_type": "Bearer", "expires_in": 3600}))

        def do_GET(self):
            self.answer(answers.get(self.path.split("?")[0], "[]"))

        def answer(self, text):
            body = text.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("CLOUDCOMPUTE_API_URL", "http://127.0.0.1:%d/v1" % server.server_address[1])
    monkeypatch.setenv("CLOUDCOMPUTE_TOKEN_CACHE", "false")
    yield answers
    server.shutdown()
    server.server_close()


def instance(**fields):
    return dict({"id": "i-{}".format(fields.get("hostname", "x")), "status": "running", "tags": []}, **fields)


def test_unsafe_addresses_give_no_connection_variables(inventory_run, hostile_api, messages):
    injection = "203.0.113.5 -oProxyCommand=touch /tmp/owned"
    hostile_api["/v1/instances"] = json.dumps(
        [
            instance(hostname="good", ip="192.0.2.10"),
            instance(hostname="option", ip="-oProxyCommand=touch /tmp/owned"),
            instance(hostname="spaced", ip=injection),
        ]
    )
    hostile_api["/v1/clusters"] = json.dumps(
        [
            dict(
                instance(hostname="bad-jump", ip=injection),
                worker_nodes=[{"id": "w1", "hostname": "bad-jump-worker-1", "status": "running"}],
            ),
            dict(
                instance(hostname="v6-jump", ip="2001:db8::5"),
                worker_nodes=[
                    {"id": "w2", "hostname": "v6-jump-worker-1", "status": "running"},
                    {"id": "w3", "hostname": "-oProxyCommand=id", "status": "running"},
                ],
            ),
        ]
    )
    inventory = inventory_run.parse({"jump_host_user": "ops", "host_keys": False})
    variables = dict((name, inventory.get_host(name).vars) for name in inventory.hosts)
    assert variables["good"]["ansible_host"] == "192.0.2.10"
    for name in ("option", "spaced", "bad-jump", "oProxyCommand_id_w3"):
        assert "ansible_host" not in variables[name], name
        assert "ansible_ssh_common_args" not in variables[name], name
    # no way through a jump host with an unsafe address
    assert "ansible_ssh_common_args" not in variables["bad-jump-worker-1"]
    arguments = variables["v6-jump-worker-1"]["ansible_ssh_common_args"]
    assert shlex.split(arguments) == ["-o", "ProxyJump=ops@[2001:db8::5]"]
    assert len([warning for warning in messages["warning"] if "neither an IP address nor a host name" in warning]) == 4


@pytest.mark.parametrize(
    "path, answer, expected",
    [
        ("/v1/instances", "[null]", "null as element 0 of GET /instances where a list of objects"),
        ("/v1/instances", '["i-1"]', "a string as element 0 of GET /instances"),
        ("/v1/instances", '{"id": "i-1"}', "answered an object to GET /instances where a list of objects"),
        ("/v1/instances", "not json", "answer to GET /instances is not JSON"),
        ("/v1/instances", '[{"id": 7}]', "an id of a number as element 0 of GET /instances"),
        ("/v1/instances", '[{"id": "i-1", "hostname": ["x"]}]', "hostname a list as element 0"),
        ("/v1/instances", '[{"id": "i-1", "tags": [null]}]', "tags that are not a list of {key, value}"),
        ("/v1/instances", '[{"id": "i-1", "tags": {"env": "prod"}}]', "tags that are not a list"),
        ("/v1/clusters", '[{"id": "c-1", "worker_nodes": [null]}]', "worker_nodes of cluster c-1"),
        ("/v1/clusters", '[{"id": "c-1", "worker_nodes": "w"}]', "worker_nodes of a string"),
    ],
)
def test_wrong_types_are_one_clear_error(inventory_run, hostile_api, path, answer, expected):
    hostile_api[path] = answer
    with pytest.raises(AnsibleParserError) as failure:
        inventory_run.parse({"filters": {"status": []}})
    message = str(failure.value.message)
    assert message.startswith("cloudcompute inventory: the API") and "\n" not in message
    assert expected in message


def test_a_null_tag_value_is_a_freeform_tag(inventory_run, hostile_api):
    hostile_api["/v1/instances"] = json.dumps([instance(hostname="a", tags=[{"id": "t", "key": "gpu", "value": None}])])
    inventory = inventory_run.parse({"filters": {"tags": {"gpu": ""}}})
    assert inventory.get_host("a").vars["cloudcompute_tags"] == {"gpu": ""}
