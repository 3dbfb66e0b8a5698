#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: cluster
short_description: Deploy, tag, power and discontinue Cloud Compute GPU clusters
version_added: 0.1.0
description:
  - Deploy a multi-node GPU cluster (a jump host and worker nodes sharing a file system mounted
    at C(/home)) with every option of the API, wait until its jump host has an address and its
    workers are up, converge its tags and the power state of its worker nodes, and discontinue
    it.
  - A cluster is identified by O(id), else by O(hostname).
  - The API cannot change a cluster after it is deployed, except its tags and the power state
    of its nodes. When O(cluster_type), O(image), O(location_code), O(description),
    O(contract), O(extension_settings), O(ssh_keys), O(startup_script) or (by O(id))
    O(hostname) differ from the live cluster, the module fails naming them, before any change;
    it never discontinues and re-deploys a cluster by itself.
  - O(shared_volume) and O(existing_volumes) only shape the deployment; afterwards the shared
    volumes are managed with M(cloudcompute.cloud.volume) (they can be renamed and grown, not
    detached, while the cluster exists).
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.wait
  - cloudcompute.cloud.tags
  - cloudcompute.cloud.placement
  - cloudcompute.cloud.placement.cluster
  - cloudcompute.cloud.cost
  - cloudcompute.cloud.cost.RUNWAY
  - cloudcompute.cloud.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  id:
    description:
      - Id of the cluster. Takes precedence over O(hostname) for finding it. An id that does
        not exist fails (nothing is deployed under it), except for O(state=absent).
    type: str
  hostname:
    description:
      - Hostname of the cluster (its jump host); required to deploy one. Worker nodes get
        hostnames of their own, chosen by the API.
    type: str
    aliases: [name]
  cluster_type:
    description:
      - Cluster type code, for example V(16H100) (M(cloudcompute.cloud.cluster_type_info) lists
        them). Required to deploy.
    type: str
  image:
    description:
      - Cluster image type, for example V(ubuntu-24.04-cuda-12.8-cluster)
        (M(cloudcompute.cloud.image_info) with O(cloudcompute.cloud.image_info#module:kind=cluster)
        lists them). Required to deploy.
    type: str
  location_code:
    description:
      - Location to deploy in, for example V(FIN-01). Required to deploy.
    type: str
    aliases: [location]
  description:
    description:
      - Free text description.
    type: str
  contract:
    description:
      - Contract type. The API currently deploys clusters with V(PAY_AS_YOU_GO) only (its
        default) and refuses V(LONG_TERM).
    type: str
    choices: [PAY_AS_YOU_GO, LONG_TERM]
  extension_settings:
    description:
      - What happens when the contract period ends (V(auto_renew), V(pay_as_you_go) or
        V(end_contract)). Without it the API picks. The deprecated C(auto_rental_extension) and
        C(turn_to_pay_as_you_go) flags of the API are not offered; this option replaces them.
    type: str
    choices: [auto_renew, pay_as_you_go, end_contract]
  shared_volume:
    description:
      - The new shared file system mounted at C(/home) on every node. Required to deploy.
    type: dict
    suboptions:
      name:
        description: Name of the shared volume.
        type: str
        required: true
      size:
        description: Size in GB.
        type: int
        required: true
  existing_volumes:
    description:
      - Names or ids of detached shared file systems (for example those a discontinued cluster
        left behind), in O(location_code), to mount on the new cluster as well.
    type: list
    elements: str
  ssh_keys:
    description:
      - Names or ids of the SSH keys installed on the jump host. The API needs at least one to
        deploy.
    type: list
    elements: str
  startup_script:
    description:
      - Name or id of the startup script to run on first boot.
    type: str
  nodes:
    description:
      - Power states of worker nodes, by worker hostname (or node id). Workers not listed are
        left alone. Needs the cluster provisioned, so the module waits for that first (also
        with O(wait=false)).
      - The API names the workers (M(cloudcompute.cloud.cluster_info) shows them). A hostname
        the cluster does not have fails before any node is powered; on a deploy, only once the
        cluster is up, so check mode cannot tell.
    type: list
    elements: dict
    suboptions:
      hostname:
        description: Hostname (or id) of a worker node of the cluster.
        type: str
        required: true
        aliases: [name]
      state:
        description:
          - V(running) boots the node when it is shut down; V(stopped) shuts it down.
        type: str
        choices: [running, stopped]
        default: running
      force:
        description:
          - With O(nodes[].state=stopped), shut the node down by force instead of asking its
            OS to shut down.
        type: bool
        default: false
  state:
    description:
      - V(present) deploys the cluster when it does not exist, and converges the tags and
        O(nodes) of an existing one.
      - V(absent) discontinues the cluster. Its local storage is deleted; its shared volumes
        are detached and kept (and charged) unless O(delete_shared_volumes=true).
    type: str
    choices: [present, absent]
    default: present
  delete_shared_volumes:
    description:
      - With O(state=absent), delete the cluster's shared volumes too, once the cluster is
        gone (so the module waits for that, also with O(wait=false)). They go to the trash,
        restorable for 96 hours, unless O(delete_permanently=true).
    type: bool
    default: false
  delete_permanently:
    description:
      - With O(delete_shared_volumes=true), delete the shared volumes for good instead of
        moving them to the trash.
    type: bool
    default: false
notes:
  - Discontinuing the cluster forgets the SSH host keys pinned for its jump host and workers
    in the collection's known_hosts (M(cloudcompute.cloud.known_hosts) says which file).
  - O(wait) waits until the cluster is V(running) with its jump host address and its worker
    nodes (after a deploy), until the worker nodes of O(nodes) reach their state, or until the
    cluster is gone (O(state=absent)), all within the one O(wait_timeout).
  - The diff shows the workers of O(nodes) only, and O(extension_settings) only when it is given;
    the API chooses worker hostnames and the default extension settings, so check mode could
    not predict them.
  - Without O(placement) and O(on_no_capacity), a deploy the API answers with 503 (no capacity
    for the cluster type in the location) fails at once with the API's message;
    M(cloudcompute.cloud.availability_info) with
    O(cloudcompute.cloud.availability_info#module:kind=cluster) shows where there is capacity.
    With them, see O(placement).
  - "API calls of a deploy with O(placement) and N candidates: one list (by hostname), one
    availability read, two public catalog reads (cluster types, volume types), one deploy per
    candidate that had capacity but answered 503 and one more availability read after it when
    another candidate had capacity, the deploy that succeeds, then the reads of the wait. With
    O(on_no_capacity=wait), each further round costs one availability read, whatever N is."
  - "API calls: a run that changes nothing costs one read (by id) or one list (by hostname), and
    one more list for each of O(ssh_keys) and O(startup_script) given by name rather than id."
  - "Cost: a deploy (or its check mode prediction) is priced from the public catalogs of cluster
    types and volume types, read without a token, once each and only when a cluster is to be
    deployed: the cluster type's price plus the new shared volume (C(NVMe_Shared_Cluster)), its
    size times the price per GB-month over 730 hours, as the API charges it. An existing cluster
    reports the price the API reports for it, without its shared volumes
    (M(cloudcompute.cloud.volume) and M(cloudcompute.cloud.cost_info) report those)."
seealso:
  - plugin: cloudcompute.cloud.offers
    plugin_type: lookup
  - module: cloudcompute.cloud.cluster_info
  - module: cloudcompute.cloud.cluster_type_info
  - module: cloudcompute.cloud.volume
  - module: cloudcompute.cloud.tag
"""

EXAMPLES = r"""
- name: A 16 x H100 cluster with a 2 TB shared /home
  cloudcompute.cloud.cluster:
    hostname: hpc-1
    cluster_type: 16H100
    image: ubuntu-24.04-cuda-12.8-cluster
    location_code: FIN-01
    shared_volume:
      name: hpc-1-home
      size: 2000
    ssh_keys: [alice-laptop, ci]
    startup_script: slurm-accounts
    extension_settings: pay_as_you_go
    tags:
      project: llm
  register: hpc

- name: Where to log in, and the workers behind the jump host
  ansible.builtin.debug:
    msg: "ssh root@{{ hpc.cluster.ip }}; workers {{ hpc.cluster.worker_nodes | map(attribute='hostname') | list }}"

- name: Shut one worker down, and make sure the other one runs
  cloudcompute.cloud.cluster:
    hostname: hpc-1
    nodes:
      - hostname: hpc-1-worker-1
        state: stopped
      - hostname: hpc-1-worker-2
        state: running

- name: A second cluster that also mounts the first one's datasets volume
  cloudcompute.cloud.cluster:
    hostname: hpc-2
    cluster_type: 16H100
    image: ubuntu-24.04-cuda-12.8-cluster
    location_code: FIN-01
    shared_volume: {name: hpc-2-home, size: 500}
    existing_volumes: [datasets]
    ssh_keys: [ci]

- name: Discontinue it; its shared volumes are kept, detached
  cloudcompute.cloud.cluster:
    hostname: hpc-2
    state: absent
  register: gone

- name: Which volumes were kept
  ansible.builtin.debug:
    var: gone.detached_volume_ids

- name: Discontinue the first one and delete its shared volumes for good
  cloudcompute.cloud.cluster:
    hostname: hpc-1
    state: absent
    delete_shared_volumes: true
    delete_permanently: true

- name: A 16-GPU cluster wherever one is free, waiting up to two hours
  cloudcompute.cloud.cluster:
    hostname: pretrain
    image: ubuntu-24.04-cuda-12.8-cluster
    shared_volume:
      name: pretrain-home
      size: 2000
    ssh_keys: [alice-laptop]
    placement:
      locations: [FIN-01, FIN-02, FIN-03]
      cluster_types: [16H100, 16H200]
      strategy: cheapest
    on_no_capacity: wait
    wait_timeout: 7200
  register: pretrain
"""

RETURN = r"""
cluster:
  description:
    - The cluster as the API returns it (after waiting, when waiting); empty after
      O(state=absent).
    - In check mode, the cluster as the run would leave it (id null when not deployed yet).
  returned: always
  type: dict
  contains:
    id:
      description: Id of the cluster.
      type: str
      sample: 0b6f5d8e-8a51-4d0c-9a7e-1f2e3d4c5b6a
    hostname:
      description: Hostname of the cluster (its jump host).
      type: str
      sample: hpc-1
    status:
      description: Status, for example V(running) or V(provisioning).
      type: str
      sample: running
    cluster_type:
      description: Cluster type code.
      type: str
      sample: 16H100
    image:
      description: Cluster image type.
      type: str
      sample: ubuntu-24.04-cuda-12.8-cluster
    location:
      description: Location code.
      type: str
      sample: FIN-01
    ip:
      description: Address of the jump host; null until the cluster is running.
      type: str
      sample: 192.0.2.20
    description:
      description: Description (empty when none was given).
      type: str
    contract:
      description: Contract type.
      type: str
      sample: PAY_AS_YOU_GO
    extension_settings:
      description: What happens when the contract period ends.
      type: str
      sample: pay_as_you_go
    price_per_hour:
      description: Price per hour of the whole cluster.
      type: float
    ssh_key_ids:
      description: Ids of the SSH keys of the jump host.
      type: list
      elements: str
    startup_script_id:
      description: Id of its startup script, or null.
      type: str
    shared_volumes:
      description: Its shared volumes (id, name, mount_point, size_in_gigabytes); one is mounted at C(/home).
      type: list
      elements: dict
    worker_nodes:
      description:
        - Its worker nodes (id, hostname, public_ip, private_ip, status); empty until the
          cluster is running. Workers are reached from the jump host by ssh to their hostname.
      type: list
      elements: dict
    tags:
      description: Tags, as a dictionary of key (lowercase) to value (V("") for a freeform tag).
      type: dict
    tag_ids:
      description:
        - The id of each tag, by key.
        - In check mode, V(null) for a tag not added yet.
      type: dict
deleted_volume_ids:
  description: Ids of the shared volumes deleted with the cluster (or, in check mode, that would be).
  returned: when O(state=absent)
  type: list
  elements: str
detached_volume_ids:
  description: Ids of the shared volumes the discontinued cluster left detached; they are kept and charged.
  returned: when O(state=absent)
  type: list
  elements: str
cost:
  description:
    - What the cluster itself costs per hour after the run (in check mode, would cost), and what
      makes that price up. Its shared volumes are not included (RV(deploy_cost) adds the one a
      deploy creates), so the same cluster reports the same cost on every run.
    - For a deploy, predicted from the public catalogs (check mode) or the API's price of the new
      cluster (a real run); the prediction equals what the API charges once the cluster exists.
    - For an existing cluster, the price the API reports for it. V(0) with an empty basis once
      it is discontinued.
    - With C(--diff), the diff's before and after carry the hourly price too.
  returned: always
  type: dict
  contains:
    price_per_hour:
      description: The total per hour.
      type: float
      sample: 36.64
    currency:
      description: The currency of the prices.
      type: str
      sample: usd
    basis:
      description: What makes the price up, each C(item) with its C(price_per_hour).
      type: list
      elements: dict
      sample:
        - {item: cluster 16H100, price_per_hour: 36.64}
deploy_cost:
  description:
    - What the deploy commits to per hour, in the shape of RV(cost) - the cluster, then its new
      shared volume at its catalog price - and what O(max_price_per_hour) and
      O(min_balance_hours) weigh.
  returned: when the run deployed the cluster (in check mode, would deploy it)
  type: dict
  sample:
    price_per_hour: 36.968767
    currency: usd
    basis:
      - {item: cluster 16H100, price_per_hour: 36.64}
      - {item: shared volume hpc-home NVMe_Shared_Cluster 800 GB, price_per_hour: 0.328767}
runway:
  description:
    - With O(min_balance_hours), when a deploy was planned, the project's balance, its hourly
      charge with the deploy and the hours the balance lasts at that charge.
  returned: when O(min_balance_hours) was given and a cluster was (or would be) deployed
  type: dict
  sample: {balance: 5000.0, currency: usd, price_per_hour: 37.2, runway_hours: 134.41}
placement:
  description:
    - Where the cluster was deployed (or, in check mode, would be) and why; for an existing
      cluster, where it is (RV(placement.tried) empty).
  returned: when O(placement) or O(on_no_capacity=wait) was given and the cluster exists or was deployed
  type: dict
  contains:
    location_code:
      description: Location of the cluster.
      type: str
      sample: FIN-02
    cluster_type:
      description: Its cluster type.
      type: str
      sample: 16H100
    spot:
      description: Always false (clusters have no spot capacity).
      type: bool
      sample: false
    price_per_hour:
      description: Hourly price, from the catalog (or the cluster's own, when it exists).
      type: float
      sample: 36.64
    tried:
      description:
        - Each candidate looked at, in order, up to the chosen one (of the last round, when
          waiting); C(outcome) is V(deployed), V(predicted) (check mode), V(no_capacity),
          V(no_capacity_on_deploy) (availability said yes, the deploy answered 503),
          V(over_price_cap) (the deploy there would cost more than O(max_price_per_hour); the
          entry then carries that C(price_per_hour)) or V(not_offered) (the catalog does not sell
          the cluster type).
      type: list
      elements: dict
      sample:
        - {location_code: FIN-01, cluster_type: 16H100, spot: false, outcome: no_capacity}
        - {location_code: FIN-02, cluster_type: 16H100, spot: false, outcome: deployed}
"""

import functools

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import api_path, path_value
from ansible_collections.cloudcompute.cloud.plugins.module_utils._compute import (
    Compute,
    compute_argument_spec,
    power_action,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost_report import cost, reported_price
from ansible_collections.cloudcompute.cloud.plugins.module_utils._lookups import GOING_AWAY, SETTING_UP
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule, ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import Step, fetch_or_none, ignoring

# The statuses of a provisioned cluster: its jump host has an address and its workers exist.
PROVISIONED = ("running", "offline")
NODE_STATUS = {"running": "running", "stopped": "offline"}


def is_up(cluster):
    """Running, with the jump host's address and the workers: what a finished deploy has."""
    return bool(cluster and cluster.get("status") == "running" and cluster.get("ip") and cluster.get("worker_nodes"))


class Cluster(Compute):
    key = "cluster"
    path = "/clusters"
    type_option = "cluster_type"
    removal = "discontinue"
    being_removed = "being discontinued"
    immutable = Compute.immutable + (("extension_settings", "extension_settings"),)
    compared_when_reported = ("extension_settings",)  # not reported: nothing to compare
    placed_options = ("cluster_type", "location_code")
    required_to_deploy = ("cluster_type", "image", "location_code", "shared_volume")
    passed_options = ("extension_settings",)
    type_label = "cluster type "
    existing_volumes = ()  # the records of the volumes a new cluster mounts, once its request is built
    capacity_hint = (
        "cloudcompute.cloud.availability_info with kind=cluster lists the cluster types with capacity "
        "per location: choose another location or cluster type, or retry later."
    )

    def check_options(self):
        params = self.params
        if params["shared_volume"] and params["shared_volume"]["size"] < 1:
            raise ModuleFailure("shared_volume: size must be at least 1 GB")
        nodes = params["nodes"] or []
        seen = set()
        for node in nodes:
            if node["force"] and node["state"] != "stopped":
                raise ModuleFailure(f"nodes: force only applies to state=stopped (node {node['hostname']})")
            if node["hostname"] in seen:
                raise ModuleFailure(f"nodes: node {node['hostname']} is listed more than once")
            seen.add(node["hostname"])
        if params["state"] == "absent" and nodes:
            raise ModuleFailure("nodes only applies to state=present")
        if params["state"] != "absent" and params["delete_shared_volumes"]:
            raise ModuleFailure("delete_shared_volumes only applies to state=absent")
        if params["delete_permanently"] and not params["delete_shared_volumes"]:
            raise ModuleFailure("delete_permanently only applies with delete_shared_volumes=true")

    def settled(self, found):
        if self.params["nodes"] and found.get("status") in SETTING_UP and not self.module.check_mode:
            return self.wait_up(found["id"])  # its worker nodes can be powered once it is up
        return found

    def removal_left(self, found):
        # a cluster already being discontinued only changes when its volumes are to be deleted
        return bool(self.params["delete_shared_volumes"] and self.attached_volume_ids(found))

    # ----------------------------------------------------------------------- waiting

    def wait_up(self, cluster_id):
        return self.wait_for(cluster_id, is_up, f"cluster {cluster_id} to be running with its jump host and workers")

    # ------------------------------------------------------------------------ view

    def managed_nodes(self, cluster):
        """``{hostname: status}`` of the workers ``nodes`` names (hostname or id) that exist."""
        wanted = [node["hostname"] for node in self.params["nodes"] or []]
        return {
            node.get("hostname"): node.get("status")
            for node in (cluster or {}).get("worker_nodes") or []
            if node.get("hostname") in wanted or node.get("id") in wanted
        }

    def view(self, resource):
        if not resource:
            return {}
        shown = super().view(resource)
        volumes = [
            {"name": volume.get("name"), "size_in_gigabytes": volume.get("size_in_gigabytes")}
            for volume in resource.get("shared_volumes") or []
        ]
        shown["shared_volumes"] = sorted(
            volumes, key=lambda volume: (str(volume["name"]), str(volume["size_in_gigabytes"]))
        )
        # the API picks a default the module cannot know, so it is shown only when asked for
        if self.params["extension_settings"] is not None:
            shown["extension_settings"] = resource.get("extension_settings")
        if self.params["nodes"]:
            shown["nodes"] = self.managed_nodes(resource)
        return shown

    # ------------------------------------------------------------------------ deploy

    def own_request(self):
        body = {"shared_volume": dict(self.params["shared_volume"])}  # its name and size
        records = [self.volume_references.record(reference) for reference in self.params["existing_volumes"] or []]
        self.existing_volumes = list({volume["id"]: volume for volume in records}.values())
        if self.existing_volumes:
            body["existing_volumes"] = [{"id": volume["id"]} for volume in self.existing_volumes]
        return body

    def predicted_deploy(self, body):
        new = body["shared_volume"]
        shared = [{"id": None, "name": new["name"], "mount_point": "/home", "size_in_gigabytes": new["size"]}]
        shared.extend(
            {"id": volume["id"], "name": volume.get("name"), "size_in_gigabytes": volume.get("size")}
            for volume in self.existing_volumes
        )
        # the API names the workers; the node step predicts those the task names
        return dict(
            super().predicted_deploy(body),
            extension_settings=body.get("extension_settings"),
            ip=None,
            shared_volumes=shared,
            worker_nodes=[],
        )

    def deploy_cost(self, body):
        return self.prices.cluster_deploy(body)

    def discard(self, created, body):
        # the API deletes the shared volumes created with it once it is gone
        kept = {volume["id"] for volume in body.get("existing_volumes") or []}
        created_volumes = [volume_id for volume_id in self.attached_volume_ids(created) if volume_id not in kept]
        self.discontinue(created["id"])
        if created_volumes:
            self.wait_gone(created["id"])
            self.delete_volumes(created_volumes, permanently=True, wait=False)

    # ------------------------------------------------------------------------- nodes

    def node_plan(self, cluster):
        """``[(node, action, status)]`` for the listed workers not in their state yet, checked
        before any change: every worker must exist and be able to get there."""
        workers = cluster.get("worker_nodes") or []
        plan = []
        for spec in self.params["nodes"] or []:
            node = next((node for node in workers if spec["hostname"] in (node.get("id"), node.get("hostname"))), None)
            if node is None:
                names = ", ".join(sorted(node.get("hostname") for node in workers)) or "none yet"
                raise ModuleFailure(
                    f"cluster {cluster.get('hostname')} has no worker node {spec['hostname']!r} (its workers: {names})"
                )
            target = NODE_STATUS[spec["state"]]
            what = f"worker node {node.get('hostname')} of cluster {cluster.get('hostname')}"
            action = power_action(what, node.get("status"), target, spec["force"], "boot", "booted")
            if action:
                plan.append((node, action, target))
        return plan

    def predicted_nodes(self, cluster):
        """``cluster`` with the workers ``nodes`` names in their listed state; one still being set up
        comes up running, with the workers the task names (the API names the others)."""
        targets = {spec["hostname"]: NODE_STATUS[spec["state"]] for spec in self.params["nodes"] or []}
        workers = cluster.get("worker_nodes") or [
            {"id": None, "hostname": hostname, "status": "running"} for hostname in targets
        ]
        after = dict(cluster, worker_nodes=[])
        for node in workers:
            status = targets.get(node.get("id"), targets.get(node.get("hostname"), node.get("status")))
            after["worker_nodes"].append(dict(node, status=status))
        if after.get("status") in SETTING_UP:
            after["status"] = "running"
        return after

    def powering_nodes(self):
        """The step powering the listed workers, planned on the cluster it is given: after a
        deploy, its workers exist once it is up."""

        def apply(cluster):
            targets = {}
            for node, action, status in self.node_plan(cluster):
                node_actions = self.item_path(cluster["id"], "nodes", path_value(node["id"], "node id"), "actions")
                self.client.post(node_actions, {"action": action}, idempotent=True)
                targets[node["id"]] = status
            if not targets:
                return cluster
            if not self.params["wait"]:
                return self.fetch(cluster["id"])

            def reached(current):
                statuses = {node.get("id"): node.get("status") for node in current.get("worker_nodes") or []}
                return all(statuses.get(node_id) == status for node_id, status in targets.items())

            statuses = ", ".join(sorted(set(targets.values())))
            return self.wait_for(
                cluster["id"], reached, f"the worker nodes of cluster {cluster['id']} to be {statuses}"
            )

        return Step("power nodes", apply, self.predicted_nodes)

    def after_deploy_steps(self):
        return [self.powering_nodes()] if self.params["nodes"] else []

    def state_steps(self, current):
        status = current.get("status")
        if self.params["nodes"] and status not in PROVISIONED + SETTING_UP:
            raise ModuleFailure(f"cluster {current.get('hostname')} is {status}: its worker nodes cannot be powered")
        if status in SETTING_UP:
            # check mode, or no nodes (a real run with nodes waited until it was up): its workers
            # do not exist yet and come up running
            changes = any(spec["state"] != "running" for spec in self.params["nodes"] or [])
            return [self.finishing_setup(lambda cluster: self.wait_up(cluster["id"]), self.predicted_nodes, changes)]
        # checked before any change: every listed worker exists and can get to its state
        return [self.powering_nodes()] if self.node_plan(current) else []

    # ----------------------------------------------------------------------- removal

    def discontinue(self, cluster_id):
        self.client.put(self.path, {"actions": [{"action": "discontinue", "id": cluster_id}]})

    def delete_volumes(self, volume_ids, permanently, wait):
        paths = {volume_id: api_path("/volumes", path_value(volume_id, "volume id")) for volume_id in volume_ids}
        for path in paths.values():
            with ignoring(404):  # gone meanwhile: that is what we wanted
                self.client.delete(path, json_body={"is_permanent": permanently})
        if not wait:
            return
        for volume_id, path in paths.items():
            self.budget.until(
                functools.partial(fetch_or_none, self.client, path),
                lambda volume: volume is None or volume.get("status") == "deleted",
                f"shared volume {volume_id} to be deleted",
            )

    def removal_steps(self, current):
        doomed = self.attached_volume_ids(current) if self.params["delete_shared_volumes"] else []
        self.deleted_volume_ids = doomed

        def apply(cluster):
            if cluster.get("status") not in GOING_AWAY:
                with ignoring(404):  # gone meanwhile: that is what we wanted
                    self.discontinue(cluster["id"])
            self.forget_host_keys(cluster)
            # the API deletes a shared volume only once its cluster is gone
            if self.params["wait"] or doomed:
                self.wait_gone(cluster["id"])
            if doomed:
                self.delete_volumes(doomed, self.params["delete_permanently"], self.params["wait"])
            elif self.attached_volume_ids(cluster):
                volumes = ", ".join(f"{volume.get('name')} ({volume['id']})" for volume in cluster["shared_volumes"])
                self.module.warn(
                    f"cluster {cluster.get('hostname')} left its shared volumes {volumes} detached; they are kept and "
                    "charged until deleted (cloudcompute.cloud.volume with state=absent, or delete_shared_volumes=true)"
                )

        return [Step("discontinue", apply, lambda _cluster: None)]

    # ------------------------------------------------------------------------ result

    def attached_volume_ids(self, resource):
        return [volume["id"] for volume in resource.get("shared_volumes") or []]

    def existing_cost(self, cluster):
        return cost([(f"cluster {cluster.get('cluster_type')}", reported_price(cluster))])


def main():
    argument_spec = compute_argument_spec(
        Cluster,
        dict(
            contract=dict(type="str", choices=["PAY_AS_YOU_GO", "LONG_TERM"]),
            extension_settings=dict(type="str", choices=["auto_renew", "pay_as_you_go", "end_contract"]),
            shared_volume=dict(
                type="dict", options=dict(name=dict(type="str", required=True), size=dict(type="int", required=True))
            ),
            nodes=dict(
                type="list",
                elements="dict",
                options=dict(
                    hostname=dict(type="str", required=True, aliases=["name"]),
                    state=dict(type="str", choices=["running", "stopped"], default="running"),
                    force=dict(type="bool", default=False),
                ),
            ),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            delete_shared_volumes=dict(type="bool", default=False),
        ),
    )
    module = CloudComputeModule(argument_spec=argument_spec, required_one_of=[("id", "hostname")])
    Cluster(module).run()


if __name__ == "__main__":
    main()
