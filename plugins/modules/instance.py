#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: instance
short_description: Deploy, power and delete Cloud Compute GPU and CPU instances
version_added: 0.1.0
description:
  - Deploy an instance with every option of the API, start it, shut it down, hibernate it and
    delete it, choosing what happens to its volumes.
  - An instance is identified by O(id), else by O(hostname).
  - The API cannot change an instance after it is deployed, except its power state and its
    tags. When O(instance_type), O(image), O(location_code), O(description), O(contract),
    O(spot), O(ssh_keys), O(startup_script) or (by O(id)) O(hostname) differ from the live
    instance, the module fails naming them; it never deletes and re-deploys an instance by
    itself.
  - O(os_volume), O(volumes), O(existing_volumes), O(existing_os_volume) and O(coupon) only
    shape the deployment; afterwards the volumes are managed with M(cloudcompute.cloud.volume).
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.common.JUPYTER_TOKEN
  - cloudcompute.cloud.wait
  - cloudcompute.cloud.tags
  - cloudcompute.cloud.placement
  - cloudcompute.cloud.placement.instance
  - cloudcompute.cloud.cost
  - cloudcompute.cloud.cost.RUNWAY
  - cloudcompute.cloud.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  id:
    description:
      - Id of the instance. Takes precedence over O(hostname) for finding it. An id that does
        not exist fails (nothing is deployed under it), except for O(state=absent) and
        O(state=hibernated).
    type: str
  hostname:
    description:
      - Hostname of the instance; required to deploy one.
    type: str
    aliases: [name]
  instance_type:
    description:
      - Instance type code, for example V(1H100.80S.30V) or V(CPU.4V.16G)
        (M(cloudcompute.cloud.instance_type_info) lists them). Required to deploy.
    type: str
  image:
    description:
      - OS image type to deploy, for example V(ubuntu-24.04-cuda-12.8-open-docker)
        (M(cloudcompute.cloud.image_info) lists them). Required to deploy, unless
        O(existing_os_volume) is given.
    type: str
  existing_os_volume:
    description:
      - Name or id of a detached OS volume to boot from instead of an O(image), for example
        the OS volume kept by a hibernated instance or a customised copy of one. It must be in
        O(location_code).
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
      - Contract type. The API's default is pay as you go; V(SPOT) is the same as O(spot=true).
    type: str
    choices: [PAY_AS_YOU_GO, LONG_TERM, SPOT]
  spot:
    description:
      - Deploy a spot instance (cheaper, may be evicted at any time). What happens to its
        volumes on eviction is set per volume with C(on_spot_discontinue) in O(os_volume) and
        O(volumes).
    type: bool
    aliases: [is_spot]
  coupon:
    description:
      - Coupon code applied to the deployment.
    type: str
  ssh_keys:
    description:
      - Names or ids of the SSH keys to install. At least one SSH key must exist in the project
        before any instance can be deployed.
    type: list
    elements: str
  startup_script:
    description:
      - Name or id of the startup script to run on first boot.
    type: str
  os_volume:
    description:
      - Name and size of the new OS volume (when deploying from an O(image)). Without it the
        API picks both.
    type: dict
    suboptions:
      name:
        description: Name of the OS volume.
        type: str
        required: true
      size:
        description: Size in GB.
        type: int
        required: true
      on_spot_discontinue:
        description:
          - For a spot instance, what happens to the volume when the instance is evicted
            (API default V(keep_detached)).
        type: str
        choices: [keep_detached, move_to_trash, delete_permanently]
      tags:
        description: Tags of the volume, as a dictionary of key to value.
        type: dict
  volumes:
    description:
      - New data volumes created with the instance, in its location, and attached to it.
    type: list
    elements: dict
    suboptions:
      name:
        description: Name of the volume.
        type: str
        required: true
      size:
        description: Size in GB.
        type: int
        required: true
      type:
        description: Volume type, for example V(NVMe) or V(HDD).
        type: str
        required: true
      on_spot_discontinue:
        description:
          - For a spot instance, what happens to the volume when the instance is evicted
            (API default V(keep_detached)).
        type: str
        choices: [keep_detached, move_to_trash, delete_permanently]
      tags:
        description: Tags of the volume, as a dictionary of key to value.
        type: dict
  existing_volumes:
    description:
      - Names or ids of detached data volumes, in O(location_code), to attach at deployment.
    type: list
    elements: str
  state:
    description:
      - V(present) deploys the instance when it does not exist and otherwise leaves its power
        state alone.
      - V(running) deploys it or starts it; V(stopped) deploys it or shuts it down (with
        O(force=true) a forced shutdown). A shut-down instance is still charged.
      - V(hibernated) shuts the instance down when needed, then hibernates it; the instance is
        deleted and charging stops, but all its volumes are kept, detached. Deploy again from
        the kept OS volume with O(existing_os_volume) (and O(existing_volumes)) to resume.
      - V(absent) deletes the instance and the volumes chosen by O(delete_volumes).
    type: str
    choices: [present, running, stopped, absent, hibernated]
    default: present
  force:
    description:
      - With O(state=stopped) or O(state=hibernated), shut down by force (like pulling the
        plug) instead of asking the OS to shut down.
    type: bool
    default: false
  delete_volumes:
    description:
      - With O(state=absent), which attached volumes are deleted with the instance; the others
        are detached and kept. A data volume that is not listed is never deleted.
      - V(os) (the default) deletes the OS volume only, V(all) every attached volume
        (shared file systems attached to other instances too), V(none) none. Otherwise a list
        of names or ids of attached volumes, which may include V(os).
    type: list
    elements: str
    default: [os]
  delete_permanently:
    description:
      - With O(state=absent), delete the volumes chosen by O(delete_volumes) for good instead of
        moving them to the trash (where they stay restorable for 96 hours).
    type: bool
    default: false
notes:
  - Deleting or hibernating the instance forgets the SSH host key pinned for it in the
    collection's known_hosts (M(cloudcompute.cloud.known_hosts) says which file).
  - O(wait) waits until the instance is V(running) (O(state=running), O(state=present) after a
    deploy), V(offline) (O(state=stopped)) or gone (O(state=absent), O(state=hibernated)).
    Steps that need another to finish first (a shutdown before hibernating, a deploy before a
    shutdown) always wait for it, within the one O(wait_timeout).
  - A wait reads the project's instance list, which every process of this machine waiting for
    instances with the same O(api_url) and O(client_id) shares (a snapshot beside the token
    cache, used while it is younger than the wait's poll interval), so the forks of a
    host-per-instance play read one list per poll between them. The interval follows the
    status - seconds while it is due, a tenth of the instance's age while it is being set up,
    at most 15 seconds. To wait for many instances from one task, deploy them with
    O(wait=false) and wait with M(cloudcompute.cloud.instance_state).
  - Without O(placement) and O(on_no_capacity), a deploy the API answers with 503 (no capacity
    for the instance type in the location) fails at once with the API's message;
    M(cloudcompute.cloud.availability_info) and the P(cloudcompute.cloud.offers#lookup) lookup
    show where there is capacity. With them, see O(placement).
  - "API calls of a deploy with O(placement) and N candidates: one list (by hostname), one
    availability read (two with O(placement.on_demand_fallback)), one public catalog read
    (instance types; volume types too when O(os_volume) or O(volumes) are given), one deploy per
    candidate that had capacity but answered 503 and one more availability read (two with the
    fallback) after it when another candidate had capacity, the deploy that succeeds, then the
    reads of the wait for V(running). With O(on_no_capacity=wait), each further round costs one
    availability read (two with the fallback), whatever N is."
  - "API calls: a run that changes nothing costs one read (by id) or one list (by hostname), and
    one more list for each of O(ssh_keys) and O(startup_script) given by name rather than id."
  - "Cost: a deploy (or its check mode prediction) is priced from the public catalogs of instance
    types and volume types, read without a token, once each and only when something is to be
    deployed. The price of a new instance is the spot price for a spot instance and the on-demand
    price otherwise, also for O(contract=LONG_TERM) (a deploy names no long-term period, so no
    period discount applies). A volume costs its size times its type's price per GB-month over
    730 hours, as the API charges it. An existing instance reports the price the API reports for
    it, without its volumes (M(cloudcompute.cloud.volume) and M(cloudcompute.cloud.cost_info)
    report those)."
seealso:
  - plugin: cloudcompute.cloud.offers
    plugin_type: lookup
  - module: cloudcompute.cloud.instance_info
  - module: cloudcompute.cloud.volume
  - module: cloudcompute.cloud.ssh_key
  - module: cloudcompute.cloud.startup_script
"""

EXAMPLES = r"""
- name: A single H100 for a training run, with a data volume
  cloudcompute.cloud.instance:
    hostname: trainer-1
    instance_type: 1H100.80S.30V
    image: ubuntu-24.04-cuda-12.8-open-docker
    location_code: FIN-01
    ssh_keys: [alice-laptop, ci]
    startup_script: container-toolkit
    os_volume:
      name: trainer-1-os
      size: 200
    volumes:
      - name: trainer-1-data
        size: 1000
        type: NVMe
    tags:
      project: llm
      owner: alice
  register: trainer

- name: Its volumes
  ansible.builtin.debug:
    msg: "OS volume {{ trainer.instance.os_volume_id }}, all volumes {{ trainer.instance.volume_ids }}"

- name: A cheap spot instance whose volumes go to the trash if it is evicted
  cloudcompute.cloud.instance:
    hostname: sweep-7
    instance_type: 1A100.22V
    image: ubuntu-24.04-cuda-12.6-docker
    location_code: FIN-02
    spot: true
    ssh_keys: [ci]
    os_volume:
      name: sweep-7-os
      size: 100
      on_spot_discontinue: move_to_trash

- name: Shut it down for the night (still charged)
  cloudcompute.cloud.instance:
    hostname: trainer-1
    state: stopped

- name: Hibernate it instead (no longer charged, volumes kept)
  cloudcompute.cloud.instance:
    hostname: trainer-1
    state: hibernated

- name: Resume from the kept volumes
  cloudcompute.cloud.instance:
    hostname: trainer-1
    instance_type: 1H100.80S.30V
    existing_os_volume: trainer-1-os
    existing_volumes: [trainer-1-data]
    location_code: FIN-01
    ssh_keys: [alice-laptop, ci]
    state: running

- name: Delete it, with its OS volume and the data volume, for good
  cloudcompute.cloud.instance:
    hostname: trainer-1
    state: absent
    delete_volumes: [os, trainer-1-data]
    delete_permanently: true

- name: Deploy a fleet in parallel (one host per instance)
  hosts: gpu_fleet
  gather_facts: false
  tasks:
    - name: Each inventory host is an instance
      cloudcompute.cloud.instance:
        hostname: "{{ inventory_hostname }}"
        instance_type: CPU.8V.32G
        image: ubuntu-24.04
        location_code: FIN-01
        ssh_keys: [ci]
        state: running
      delegate_to: localhost

- name: Eight H100s in whichever Finnish or Icelandic location has them, waiting up to an hour
  cloudcompute.cloud.instance:
    hostname: trainer-8
    image: ubuntu-24.04-cuda-12.8-open-docker
    placement:
      locations: [FIN-01, FIN-03, ICE-01]
      instance_types: [8H100.80S.176V, 8H200.141S.176V]
    on_no_capacity: wait
    wait_timeout: 3600
  register: trainer8

- name: The cheapest spot H100 that costs at most 3 USD an hour with its volumes, in any Finnish location
  cloudcompute.cloud.instance:
    hostname: cheap-h100
    image: ubuntu-24.04-cuda-12.8-open-docker
    spot: true
    os_volume:
      name: cheap-h100-os
      size: 100
    placement:
      locations: [FIN-01, FIN-02, FIN-03]
      instance_types: [1H100.80S.30V, 2H100.80S.60V]
      strategy: cheapest
    max_price_per_hour: 3
    min_balance_hours: 48
  register: cheap

- name: What the run committed to (deploy_cost when it deploys, else the instance alone)
  vars:
    committed: "{{ cheap.deploy_cost | default(cheap.cost) }}"
  ansible.builtin.debug:
    msg: "{{ committed.price_per_hour }} {{ committed.currency }}/h: {{ committed.basis | map(attribute='item') | join(', ') }}"

- name: Where it landed
  ansible.builtin.debug:
    msg: "{{ trainer8.placement.instance_type }} in {{ trainer8.placement.location_code }} at {{ trainer8.placement.price_per_hour }}/h"

- name: The cheapest spot A100 or L40S anywhere, on-demand if no spot capacity is left
  cloudcompute.cloud.instance:
    hostname: sweep-9
    image: ubuntu-24.04-cuda-12.8-open-docker
    spot: true
    placement:
      locations: [FIN-01, FIN-02, ICE-01]
      instance_types: [1A100.22V, 1L40S.20V]
      strategy: cheapest
      on_demand_fallback: true
"""

RETURN = r"""
instance:
  description:
    - The instance as the API returns it (after waiting, when waiting); empty after
      O(state=absent) and O(state=hibernated).
    - In check mode, the instance as the run would leave it (id null when not deployed yet).
  returned: always
  type: dict
  contains:
    id:
      description: Id of the instance.
      type: str
      sample: 5f0c7d3a-2b8e-4c1f-9a6d-0e4b3c2a1f90
    hostname:
      description: Hostname.
      type: str
      sample: trainer-1
    status:
      description: Status, for example V(running), V(offline), V(provisioning).
      type: str
      sample: running
    instance_type:
      description: Instance type code.
      type: str
      sample: 1H100.80S.30V
    image:
      description: OS image type.
      type: str
      sample: ubuntu-24.04-cuda-12.8-open-docker
    location:
      description: Location code.
      type: str
      sample: FIN-01
    ip:
      description: Public address; null when not reachable from the internet (or not yet).
      type: str
      sample: 192.0.2.10
    os_volume_id:
      description: Id of its OS volume.
      type: str
    volume_ids:
      description: Ids of every volume attached to it, the OS volume included.
      type: list
      elements: str
    ssh_key_ids:
      description: Ids of the SSH keys it was deployed with.
      type: list
      elements: str
    startup_script_id:
      description: Id of its startup script, or null.
      type: str
    is_spot:
      description: Whether it is a spot instance.
      type: bool
    contract:
      description: Contract type.
      type: str
      sample: PAY_AS_YOU_GO
    price_per_hour:
      description: Price per hour.
      type: float
    tags:
      description: Tags, as a dictionary of key (lowercase) to value (V("") for a freeform tag).
      type: dict
    tag_ids:
      description:
        - The id of each tag, by key.
        - In check mode, V(null) for a tag not added yet.
      type: dict
    jupyter_token:
      description:
        - Token of the instance's Jupyter server, a credential; C(********) unless
          O(return_jupyter_token=true).
      type: str
deleted_volume_ids:
  description: Ids of the volumes deleted with the instance (or, in check mode, that would be).
  returned: when O(state=absent) or O(state=hibernated)
  type: list
  elements: str
detached_volume_ids:
  description: Ids of the volumes detached from the instance and kept.
  returned: when O(state=absent) or O(state=hibernated)
  type: list
  elements: str
cost:
  description:
    - What the instance itself costs per hour after the run (in check mode, would cost), and
      what makes that price up. Its volumes are not included (RV(deploy_cost) adds those a
      deploy creates; M(cloudcompute.cloud.volume) and M(cloudcompute.cloud.cost_info) report
      them), so the same instance reports the same cost on every run.
    - For a deploy, predicted from the public catalogs (check mode) or the API's price of the new
      instance (a real run); the prediction equals what the API charges once the instance
      exists.
    - For an existing instance, the price the API reports for it. V(0) with an empty basis once
      it is deleted or hibernated.
    - With C(--diff), the diff's before and after carry the hourly price too.
  returned: always
  type: dict
  contains:
    price_per_hour:
      description: The total per hour.
      type: float
      sample: 2.19
    currency:
      description: The currency of the prices.
      type: str
      sample: usd
    basis:
      description: What makes the price up, each C(item) with its C(price_per_hour).
      type: list
      elements: dict
      sample:
        - {item: instance 1H100.80S.30V (on-demand), price_per_hour: 2.19}
deploy_cost:
  description:
    - What the deploy commits to per hour, in the shape of RV(cost) - the instance, then every
      volume created with it (O(os_volume), O(volumes)) at its catalog price - and what
      O(max_price_per_hour) and O(min_balance_hours) weigh. Volumes it only attaches are charged
      already and not included.
    - Without O(os_volume), the API chooses the size of the OS volume of a new instance and no
      catalog says which, so its item has the price V(null) and is left out of the total.
  returned: when the run deployed the instance (in check mode, would deploy it)
  type: dict
  sample:
    price_per_hour: 2.217397
    currency: usd
    basis:
      - {item: instance 1H100.80S.30V (on-demand), price_per_hour: 2.19}
      - {item: OS volume trainer-1-os NVMe 100 GB, price_per_hour: 0.027397}
runway:
  description:
    - With O(min_balance_hours), when a deploy was planned, the project's balance, its hourly
      charge with the deploy and the hours the balance lasts at that charge.
  returned: when O(min_balance_hours) was given and an instance was (or would be) deployed
  type: dict
  sample: {balance: 1000.0, currency: usd, price_per_hour: 2.4, runway_hours: 416.67}
placement:
  description:
    - Where the instance was deployed (or, in check mode, would be) and why; for an existing
      instance, where it is (RV(placement.tried) empty).
    - In check mode with O(on_no_capacity=wait) and no capacity anywhere, the location and type
      are null.
  returned: when O(placement) or O(on_no_capacity=wait) was given and the instance exists or was deployed
  type: dict
  contains:
    location_code:
      description: Location of the instance.
      type: str
      sample: FIN-03
    instance_type:
      description: Its instance type.
      type: str
      sample: 8H100.80S.176V
    spot:
      description: Whether it is a spot instance (false after an O(placement.on_demand_fallback)).
      type: bool
      sample: false
    price_per_hour:
      description: Hourly price, from the catalog (or the instance's own, when it exists).
      type: float
      sample: 18.32
    tried:
      description:
        - Each candidate looked at, in order, up to the chosen one (of the last round, when
          waiting).
        - C(outcome) is V(deployed), V(predicted) (check mode), V(no_capacity) (availability
          said none), V(no_capacity_on_deploy) (availability said yes, the deploy answered 503),
          V(over_price_cap) (the deploy there would cost more than O(max_price_per_hour); the
          entry then carries that C(price_per_hour)) or V(not_offered) (the catalog does not sell
          the type, so no capacity will appear for it; the API says which types it sells, not in
          which locations).
      type: list
      elements: dict
      sample:
        - {location_code: FIN-01, instance_type: 8H100.80S.176V, spot: false, outcome: no_capacity}
        - {location_code: FIN-03, instance_type: 8H100.80S.176V, spot: false, outcome: deployed}
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiError
from ansible_collections.cloudcompute.cloud.plugins.module_utils._compute import (
    Compute,
    compute_argument_spec,
    power_action,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost_report import cost, instance_part, reported_price
from ansible_collections.cloudcompute.cloud.plugins.module_utils._lookups import BROKEN, GOING_AWAY, SETTING_UP
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import (
    JUPYTER_TOKEN_ARGUMENT_SPEC,
    CloudComputeModule,
    ModuleFailure,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import (
    References,
    Step,
    confirm_after_lost_response,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import normalize_tags, tag_inputs

POWER_STATUS = {"running": "running", "stopped": "offline"}
# What an instance is said to become when it goes to a status, in messages.
REACHED = {"running": "started", "offline": "shut down"}
# The status an accepted power action leads to.
ACTION_STATUS = {"start": "running", "shutdown": "offline", "force_shutdown": "offline"}
# What the deploy request takes of a volume created with the instance (an OS volume has no type).
VOLUME_FIELDS = ("name", "size", "type", "on_spot_discontinue")
SPOT_POLICIES = ["keep_detached", "move_to_trash", "delete_permanently"]


class Instance(Compute):
    key = "instance"
    path = "/instances"
    gone_states = ("absent", "hibernated")
    type_option = "instance_type"
    placed_options = ("instance_type", "location_code", "spot", "contract")
    required_to_deploy = ("instance_type", "location_code")
    passed_options = ("coupon",)
    shown_fields = Compute.shown_fields + ("status", "is_spot")
    capacity_hint = (
        "cloudcompute.cloud.availability_info lists the instance types with capacity per location "
        "(spot or not): choose another location or instance type, or retry later."
    )

    def check_options(self):
        params = self.params
        volumes = [params["os_volume"] or {}] + (params["volumes"] or [])
        for volume in volumes:
            normalize_tags(volume.get("tags"))
            if volume.get("size") is not None and volume["size"] < 1:
                raise ModuleFailure(f"volume {volume.get('name')!r}: size must be at least 1 GB")
        if params["spot"] and params["contract"] not in (None, "SPOT"):
            raise ModuleFailure(
                f"a spot instance has the SPOT contract; contract={params['contract']} contradicts spot=true"
            )
        if params["spot"] is False and params["contract"] == "SPOT":
            raise ModuleFailure("contract=SPOT is a spot instance; it contradicts spot=false")
        spot = params["spot"] or params["contract"] == "SPOT"
        if not spot and any(volume.get("on_spot_discontinue") for volume in volumes):
            raise ModuleFailure("on_spot_discontinue only applies to spot instances (spot=true)")
        special = [choice for choice in ("all", "none") if choice in params["delete_volumes"]]
        if special and len(params["delete_volumes"]) > 1:
            raise ModuleFailure(f"delete_volumes={special[0]} cannot be combined with other entries")
        if params["force"] and params["state"] not in ("stopped", "hibernated"):
            raise ModuleFailure("force only applies to state=stopped and state=hibernated")

    def settled(self, found):
        if self.params["state"] == "absent" and not self.module.check_mode:
            return self.wait_set_up(found)  # the API refuses to delete an instance being set up
        return found

    # ----------------------------------------------------------------------- waiting

    def wait_for(self, resource_id, done, description, failed=True):
        """Poll until ``done``, reading the project's instance list, which the forks and runs
        waiting on this machine share (one list per poll for them all), as often as the
        instance's status needs."""
        # imported only by a task that waits: each task compiles what it imports
        from ansible_collections.cloudcompute.cloud.plugins.module_utils._instance_list import InstanceWaiter

        waiter = InstanceWaiter(self.client, self.budget.remaining)
        reached = self.budget.until(
            lambda: waiter.instances().get(resource_id),
            done,
            description,
            failed=self.wait_failure if failed else None,
            describe=lambda resource: resource and resource.get("status"),
            interval_after=lambda resource: waiter.next_interval([resource]),
        )
        if reached is not None and "jupyter_token" not in reached and self.params["return_jupyter_token"]:
            reached = self.fetch(resource_id) or reached  # the shared list leaves the token out
        return reached

    def wait_status(self, instance_id, status):
        def reached(instance):
            return instance is not None and instance.get("status") == status

        return self.wait_for(instance_id, reached, f"instance {instance_id} to be {status}")

    def wait_set_up(self, instance):
        """An instance still being set up accepts no action: wait until it is."""
        if instance.get("status") not in SETTING_UP:
            return instance
        return self.wait_for(
            instance["id"],
            lambda current: current is not None and current.get("status") not in SETTING_UP,
            f"instance {instance['id']} to finish its setup",
        )

    # ----------------------------------------------------------------------- actions

    def act(self, instance, action, **fields):
        """One instance action; False when the API says the instance already is in that state."""
        # imported only by a task that acts: each task compiles what it imports
        from ansible_collections.cloudcompute.cloud.plugins.module_utils._instance_actions import act_on_one

        try:
            return act_on_one(self.client, instance["id"], action, **fields)
        except ApiError as error:
            # repeated after a lost answer: a delete of an instance now gone answers 404, ...
            confirm_after_lost_response(error, lambda: self.action_took_effect(instance["id"], action))
            return True

    def action_took_effect(self, instance_id, action):
        """Did an action whose answer was lost happen? (The instance is read again.)"""
        current = self.fetch(instance_id)
        if action in ("delete", "hibernate"):
            return current is None or current.get("status") in GOING_AWAY
        return current is not None and current.get("status") == ACTION_STATUS.get(action)

    # ------------------------------------------------------------------------ deploy

    def also_missing(self):
        return [] if self.params["image"] or self.params["existing_os_volume"] else ["image (or existing_os_volume)"]

    def own_request(self):
        params = self.params
        body = {}
        if params["existing_os_volume"]:
            # booting from a volume, the deploy names the volume where the image goes
            body["image"] = self.volume_references.id(params["existing_os_volume"])
        if params["spot"]:
            body["is_spot"] = True
        if params["existing_volumes"]:
            body["existing_volumes"] = self.volume_references.ids(params["existing_volumes"])
        if params["os_volume"]:
            body["os_volume"] = volume_spec(params["os_volume"])
        if params["volumes"]:
            body["volumes"] = [volume_spec(volume) for volume in params["volumes"]]
        return body

    def predicted_deploy(self, body):
        from_volume = bool(self.params["existing_os_volume"])
        return dict(
            super().predicted_deploy(body),
            # booting from a volume, the image is the one the volume was made from
            image=None if from_volume else body["image"],
            contract="SPOT" if body.get("is_spot") else body.get("contract", "PAY_AS_YOU_GO"),
            is_spot=bool(body.get("is_spot") or body.get("contract") == "SPOT"),
            os_volume_id=body["image"] if from_volume else None,
            volume_ids=[],
        )

    def deploy_cost(self, body):
        return self.prices.instance_deploy(body, boots_from_volume=bool(self.params["existing_os_volume"]))

    def wait_up(self, instance_id):
        return self.wait_status(instance_id, "running")

    def discard(self, created, body):
        created = self.wait_set_up(created)  # the API refuses to delete one being set up
        kept = set(body.get("existing_volumes") or []) | {body["image"]}
        volume_ids = [volume_id for volume_id in self.attached_volume_ids(created) if volume_id not in kept]
        self.act(created, "delete", volume_ids=volume_ids, delete_permanently=True)

    # ------------------------------------------------------------------------- power

    def immutable_pairs(self, resource):
        return dict(super().immutable_pairs(resource), spot=(self.params["spot"], bool(resource.get("is_spot"))))

    def powering(self, target, changes=True):
        """The step bringing an existing instance to ``target`` status (running or offline), once it
        is set up. It changes something when the plan says so, or when it had to act after all."""

        def apply(instance):
            instance = self.wait_set_up(instance)
            action = power_action(f"instance {instance['id']}", instance.get("status"), target, self.params["force"])
            if action is None:
                return instance
            step.changes = self.act(instance, action) or step.changes
            return self.wait_status(instance["id"], target) if self.params["wait"] else self.fetch(instance["id"])

        name = "start" if target == "running" else "shut down"
        step = Step(name, apply, lambda instance: dict(instance, status=target), changes=changes)
        return step

    def after_deploy_steps(self):
        return [self.powering("offline")] if self.params["state"] == "stopped" else []

    def state_steps(self, current):
        target = POWER_STATUS.get(self.params["state"])
        status = current.get("status")
        if target and status in BROKEN:
            raise ModuleFailure(
                f"instance {current['id']} is {status} and cannot be {REACHED[target]}; "
                "delete it (state=absent) and deploy it again"
            )
        if status not in SETTING_UP:
            return [self.powering(target)] if target and status != target else []
        # still being set up: it ends up running
        if target:
            return [self.powering(target, changes=target != "running")]
        return [self.finishing_setup(self.wait_set_up, lambda instance: dict(instance, status="running"))]

    # ----------------------------------------------------------------------- removal

    def volumes_to_delete(self, instance):
        """Ids of the attached volumes ``delete_volumes`` names, checked before any change."""
        choice = self.params["delete_volumes"]
        attached = self.attached_volume_ids(instance)
        if choice == ["none"]:
            return []
        if choice == ["all"]:
            return attached
        attached_volumes = References(
            "volume",
            lambda: [volume for volume in self.client.get_list("/volumes") if volume["id"] in attached],
            scope=f" among the volumes attached to instance {instance.get('hostname')}",
        )

        def doomed(reference):
            if reference == "os":
                return instance.get("os_volume_id") if instance.get("os_volume_id") in attached else None
            volume_id = attached_volumes.id(reference)
            if volume_id not in attached:
                raise ModuleFailure(
                    f"volume {reference} is not attached to instance {instance.get('hostname')}: "
                    "delete_volumes only deletes attached volumes"
                )
            return volume_id

        return [volume_id for volume_id in dict.fromkeys(map(doomed, choice)) if volume_id is not None]

    def removal_steps(self, current):
        if self.params["state"] == "hibernated":
            return [self.hibernation(current)]
        self.deleted_volume_ids = doomed = self.volumes_to_delete(current)

        def apply(instance):
            self.act(instance, "delete", volume_ids=doomed, delete_permanently=self.params["delete_permanently"])
            self.forget_host_keys(instance)
            if self.params["wait"]:
                self.wait_gone(instance["id"])

        return [Step("delete", apply, lambda _instance: None)]

    def hibernation(self, instance):
        # one still being set up ends up running
        if instance.get("status") not in ("running", "offline") + SETTING_UP:
            raise ModuleFailure(f"instance {instance['id']} is {instance.get('status')} and cannot be hibernated")

        def apply(current):
            # the API hibernates only a shut-down instance
            stopped = self.wait_set_up(current)
            if stopped.get("status") != "offline":
                self.act(stopped, "force_shutdown" if self.params["force"] else "shutdown")
                stopped = self.wait_status(current["id"], "offline")
            self.act(stopped, "hibernate")
            self.forget_host_keys(current)
            if self.params["wait"]:
                self.wait_gone(current["id"])

        return Step("hibernate", apply, lambda _instance: None)

    # ------------------------------------------------------------------------ result

    def attached_volume_ids(self, resource):
        return list(resource.get("volume_ids") or [])

    def existing_cost(self, instance):
        """What it costs, as the API reports it (its volumes are priced apart)."""
        spot, contract = instance.get("is_spot"), instance.get("contract")
        return cost([instance_part(instance.get("instance_type"), spot, contract, reported_price(instance))])


def volume_spec(volume):
    """A volume of the deploy request: the ``VOLUME_FIELDS`` the task gives, and its tags."""
    spec = {field: volume[field] for field in VOLUME_FIELDS if volume.get(field) is not None}
    if volume.get("tags"):
        spec["tags"] = tag_inputs(normalize_tags(volume["tags"]))
    return spec


def main():
    # the options of a volume created with the instance; ``volumes`` also name their type
    volume_options = dict(
        name=dict(type="str", required=True),
        size=dict(type="int", required=True),
        on_spot_discontinue=dict(type="str", choices=SPOT_POLICIES),
        tags=dict(type="dict"),
    )
    argument_spec = compute_argument_spec(
        Instance,
        dict(
            existing_os_volume=dict(type="str"),
            contract=dict(type="str", choices=["PAY_AS_YOU_GO", "LONG_TERM", "SPOT"]),
            spot=dict(type="bool", aliases=["is_spot"]),
            coupon=dict(type="str"),
            os_volume=dict(type="dict", options=volume_options),
            volumes=dict(
                type="list", elements="dict", options=dict(volume_options, type=dict(type="str", required=True))
            ),
            state=dict(
                type="str", choices=["present", "running", "stopped", "absent", "hibernated"], default="present"
            ),
            force=dict(type="bool", default=False),
            delete_volumes=dict(type="list", elements="str", default=["os"]),
            **JUPYTER_TOKEN_ARGUMENT_SPEC,
        ),
        own_placement_options=dict(on_demand_fallback=dict(type="bool", default=False)),
    )
    module = CloudComputeModule(
        argument_spec=argument_spec,
        required_one_of=[("id", "hostname")],
        mutually_exclusive=[("image", "existing_os_volume"), ("os_volume", "existing_os_volume")],
    )
    Instance(module).run()


if __name__ == "__main__":
    main()
