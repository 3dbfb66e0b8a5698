"""extensions/audit/event_query.yml: Automation Platform's indirect managed-node counting.

The controller applies each module's jq query to the result of every task of that module
(``event_data.res`` of its job events) and stores one managed-node record per output. Here a
job runs the modules against the emulator through ansible-runner, the queries are applied with
the ``jq`` bindings the controller itself uses to the events of that job, and the records must
be exactly the machines the job managed, as the info modules list them afterwards.
"""

import pathlib
import re

import ansible_runner
import jq
import yaml

COLLECTION = pathlib.Path(__file__).resolve().parents[2]
QUERIES = yaml.safe_load((COLLECTION / "extensions" / "audit" / "event_query.yml").read_text())
# The controller buckets nodes by these facts; values are lowercase_with_underscores.
TAXONOMY = ("infra_type", "infra_bucket", "device_type")
NORMALIZED = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*$")

PLAYBOOK = """\
- name: Machines managed by a job
  hosts: localhost
  gather_facts: false
  tasks:
    - name: A key to deploy with (the API wants one in the project)
      cloudcompute.cloud.ssh_key:
        name: audit
        public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q audit@test

    - name: Two instances
      cloudcompute.cloud.instance:
        hostname: "{{ item }}"
        instance_type: CPU.4V.16G
        image: ubuntu-24.04
        location_code: FIN-01
      loop: [audit-a, audit-b]

    - name: The same again (no change, still managed)
      cloudcompute.cloud.instance:
        hostname: audit-a
        instance_type: CPU.4V.16G
        image: ubuntu-24.04
        location_code: FIN-01

    - name: A third one, in check mode only (never created, so not counted)
      cloudcompute.cloud.instance:
        hostname: audit-never
        instance_type: CPU.4V.16G
        image: ubuntu-24.04
        location_code: FIN-01
      check_mode: true

    - name: Stop both
      cloudcompute.cloud.instance_state:
        instances: [audit-a, audit-b]
        state: stopped

    - name: A cluster with its workers
      cloudcompute.cloud.cluster:
        hostname: audit-hpc
        cluster_type: 16H100
        image: ubuntu-24.04-cuda-12.8-cluster
        location_code: FIN-01
        ssh_keys: [audit]
        shared_volume:
          name: audit-hpc-home
          size: 100

    - name: What exists now
      cloudcompute.cloud.instance_info:
      register: instances

    - name: And the clusters
      cloudcompute.cloud.cluster_info:
      register: clusters

    - name: Hand the listing to the test
      ansible.builtin.set_stats:
        data:
          instances: "{{ instances.instances }}"
          clusters: "{{ clusters.clusters }}"
"""


def test_queries_are_valid_jq_for_modules_of_the_collection():
    modules = set(yaml.safe_load((COLLECTION / "meta" / "runtime.yml").read_text())["action_groups"]["all"])
    assert QUERIES
    for name, spec in QUERIES.items():
        assert name.startswith("cloudcompute.cloud.") and name.split(".")[-1] in modules, name
        jq.compile(spec["query"])


def test_queries_count_the_machines_a_job_managed(emulator_reset, credential, execution_environment, tmp_path):
    private = tmp_path / "private"
    (private / "project").mkdir(parents=True)
    (private / "project" / "audit.yml").write_text(PLAYBOOK)
    events = []
    result = ansible_runner.interface.run(
        private_data_dir=str(private),
        ident="audit",
        playbook="audit.yml",
        envvars=credential["env"],
        suppress_env_files=True,
        quiet=True,
        event_handler=lambda event: events.append(event) or True,
    )
    stdout = (private / "artifacts" / "audit" / "stdout").read_text()
    assert result.status == "successful", stdout[-10000:]

    records, by_task = [], {}
    for event in events:
        data = event.get("event_data", {})
        if event["event"] != "runner_on_ok" or data.get("resolved_action") not in QUERIES:
            continue
        found = jq.compile(QUERIES[data["resolved_action"]]["query"]).input_value(data["res"]).all()
        by_task[data["task"]] = sorted(record["name"] for record in found)
        records += found
    # the looped task's result is a list of results, one per item: both instances are counted there
    assert by_task["Two instances"] == ["audit-a", "audit-b"]
    assert by_task["A third one, in check mode only (never created, so not counted)"] == []
    assert by_task["Stop both"] == ["audit-a", "audit-b"]

    for record in records:
        assert record["name"] and record["canonical_facts"]["id"], record
        for key in TAXONOMY:
            assert NORMALIZED.match(record["facts"][key]), (key, record)

    listing = next(event["event_data"]["artifact_data"] for event in events if event["event"] == "playbook_on_stats")
    expected = {(instance["id"], instance["hostname"], "instance") for instance in listing["instances"]}
    for cluster in listing["clusters"]:
        expected.add((cluster["id"], cluster["hostname"], "cluster_jump_host"))
        expected.update((worker["id"], worker["hostname"], "cluster_worker") for worker in cluster["worker_nodes"])
    counted = {(record["canonical_facts"]["id"], record["name"], record["facts"]["device_type"]) for record in records}
    assert counted == expected
    assert len({item[1] for item in expected if item[2] == "instance"}) == 2  # audit-a, audit-b; not audit-never
    assert any(item[2] == "cluster_worker" for item in expected), "the cluster has no workers to count"
