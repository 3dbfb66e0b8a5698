#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: volume
short_description: Manage block volumes and shared file systems of a Cloud Compute project
version_added: 0.1.0
description:
  - Create, clone, grow, rename, attach, detach, tag, delete and restore volumes.
  - A volume is identified by O(id), else by O(name) (within O(location_code) when it is given;
    a name used in several locations then needs O(location_code) or the id).
  - The API can change a volume's size (it only grows), name, attachments and tags. Its
    O(type) and O(location_code) cannot change, so a difference fails before any change is made.
  - Attaching and detaching need every instance involved to be shut down. The module checks
    this before it changes anything and fails naming the instances that are not.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.wait
  - cloudcompute.cloud.tags
  - cloudcompute.cloud.cost
  - cloudcompute.cloud.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  id:
    description:
      - Id of the volume. Takes precedence over O(name) for finding it; with an id, a
        different O(name) renames the volume.
    type: str
  name:
    description:
      - Name of the volume. Required to create one (also by cloning).
    type: str
  location_code:
    description:
      - Datacenter location of the volume, for example V(FIN-01). Required to create a volume
        (unless cloning, where it defaults to the source's location and a different one makes
        a cross-location copy).
      - Narrows the lookup by O(name) to this location; without it, the name is looked up in
        every location.
    type: str
    aliases: [location]
  size:
    description:
      - Size in GB. Required to create a volume. A larger size grows an existing volume; a
        smaller one fails, because volumes cannot shrink.
    type: int
  type:
    description:
      - Volume type. Required to create a volume (unless cloning, where it defaults to the
        source's type). V(NVMe_Shared) and V(HDD_Shared) are shared file systems that can be
        attached to several instances at once; the other types to one instance only.
    type: str
    choices: [NVMe, HDD, NVMe_Shared, HDD_Shared, NVMe_Local_Storage, NVMe_Shared_Cluster, NVMe_OS_Cluster]
  instances:
    description:
      - Hostnames or ids of the instances the volume is attached to, exactly. Instances not
        listed are detached; an empty list detaches the volume from all of them.
      - Every instance that is attached or detached must be shut down (status V(offline)).
      - Omit to leave the attachments alone.
    type: list
    elements: str
  clone_from:
    description:
      - Name or id of a volume to copy when the volume named O(name) does not exist yet. The
        copy has the source's size and type unless O(size) (larger only) or O(type) say
        otherwise. When the volume exists, this option is not used.
    type: str
  permanent:
    description:
      - With O(state=absent), delete the volume for good instead of moving it to the trash.
        A volume already in the trash is then deleted permanently.
    type: bool
    default: false
  state:
    description:
      - V(present) creates the volume (or converges size, name, attachments and tags).
      - V(absent) moves the volume to the trash, where it stays restorable for 96 hours, or
        deletes it for good with O(permanent=true). An attached data volume is detached first
        (its instances must be shut down). A missing or deleted volume is left alone.
      - V(restored) takes the volume out of the trash (by O(id), or by O(name) when no active
        volume has that name) and then converges like V(present).
    type: str
    choices: [present, absent, restored]
    default: present
notes:
  - O(wait) waits until the volume is settled (V(detached) or V(attached)) after a create,
    clone, restore, attach or detach. Steps that need a settled volume (a resize right after a
    create, an attach after a detach) always wait for it, within O(wait_timeout).
  - "API calls: a run that changes nothing costs one read (by id) or one list (by name);
    instances named in O(instances) that are already attached cost nothing more."
  - "Cost: a create, clone or resize (or its check mode prediction) is priced from the public
    catalog of volume types, read without a token and only then: the size times the type's
    price per GB-month over 730 hours, as the API charges it. Otherwise the volume reports the
    API's own figure (its C(base_hourly_cost))."
seealso:
  - module: cloudcompute.cloud.volume_info
  - module: cloudcompute.cloud.instance
"""

EXAMPLES = r"""
- name: A 500 GB NVMe data volume in FIN-01
  cloudcompute.cloud.volume:
    name: datasets
    location_code: FIN-01
    type: NVMe
    size: 500
    tags:
      team: research
      env: ""

- name: Grow it to 1 TB
  cloudcompute.cloud.volume:
    name: datasets
    location_code: FIN-01
    size: 1000

- name: Attach it to a stopped instance (by hostname), detaching it from any other
  cloudcompute.cloud.volume:
    name: datasets
    location_code: FIN-01
    instances: [trainer-1]

- name: A shared file system mounted by two instances
  cloudcompute.cloud.volume:
    name: shared-home
    location_code: FIN-01
    type: NVMe_Shared
    size: 2000
    instances: [trainer-1, trainer-2]

- name: Copy the datasets to Iceland
  cloudcompute.cloud.volume:
    name: datasets-ice
    clone_from: datasets
    location_code: ICE-01

- name: Rename a volume by id
  cloudcompute.cloud.volume:
    id: 3f5b2a8e-7c1d-4e59-9a0b-6d2c8e1f4a70
    name: datasets-2026

- name: Move it to the trash
  cloudcompute.cloud.volume:
    name: datasets
    location_code: FIN-01
    state: absent

- name: Changed my mind
  cloudcompute.cloud.volume:
    name: datasets
    location_code: FIN-01
    state: restored

- name: Delete a scratch volume for good
  cloudcompute.cloud.volume:
    name: scratch
    location_code: FIN-01
    state: absent
    permanent: true
"""

RETURN = r"""
volume:
  description:
    - The volume as the API returns it (after waiting, when waiting); empty after O(state=absent).
    - In check mode, the volume as the run would leave it (id null for a volume not created yet).
  returned: always
  type: dict
  contains:
    id:
      description: Id of the volume.
      type: str
      sample: 3f5b2a8e-7c1d-4e59-9a0b-6d2c8e1f4a70
    name:
      description: Name of the volume.
      type: str
      sample: datasets
    status:
      description: Status, for example V(detached), V(attached), V(attaching), V(cloning).
      type: str
      sample: attached
    size:
      description: Size in GB.
      type: int
      sample: 500
    type:
      description: Volume type.
      type: str
      sample: NVMe
    location:
      description: Location code.
      type: str
      sample: FIN-01
    is_os_volume:
      description: Whether it is an instance's OS volume.
      type: bool
      sample: false
    instance_id:
      description: Id of the first instance it is attached to, or null.
      type: str
    instances:
      description: The instances it is attached to (id, hostname, status, instance type, ...).
      type: list
      elements: dict
    target:
      description: Device name while attached (V(vda) for an OS volume), else null.
      type: str
      sample: vdb
    tags:
      description: Tags, as a dictionary of key (lowercase) to value (V("") for a freeform tag).
      type: dict
      sample: {team: research}
    tag_ids:
      description:
        - The id of each tag, by key.
        - In check mode, V(null) for a tag not added yet.
      type: dict
      sample: {team: 8d3c0b8e-51a4-4f0e-93a5-0f3b0e0a3f1c}
    mount_command:
      description: Command that mounts the volume on an instance.
      type: str
    base_hourly_cost:
      description: Cost per hour.
      type: float
    created_at:
      description: When it was created (RFC 3339).
      type: str
cost:
  description:
    - What the volume costs per hour after the run (in check mode, would cost), and what makes
      that price up.
    - For a create, a clone or a resize in check mode, predicted from the catalog; otherwise the
      API's own figure (C(base_hourly_cost)). The prediction equals what the API charges once
      the change is made.
    - V(0) with an empty basis once it is deleted; a volume in the trash is still charged until
      it is purged (M(cloudcompute.cloud.cost_info) counts it).
    - With C(--diff), the diff's before and after carry the hourly price too.
  returned: always
  type: dict
  contains:
    price_per_hour:
      description: The total per hour.
      type: float
      sample: 0.136986
    currency:
      description: The currency of the prices.
      type: str
      sample: usd
    basis:
      description: What makes the price up, each C(item) with its C(price_per_hour).
      type: list
      elements: dict
      sample:
        - {item: volume datasets NVMe 500 GB, price_per_hour: 0.136986}
"""

from functools import cached_property

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiError
from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost import PriceBook, refuse_over_cap
from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost_report import (
    CAP_ARGUMENT_SPEC,
    check_cap_option,
    cost,
    existing_volume_cost,
    with_cost,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import hinted
from ansible_collections.cloudcompute.cloud.plugins.module_utils._lookups import instance_references, volume_named
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import (
    TAGS_ARGUMENT_SPEC,
    WAIT_ARGUMENT_SPEC,
    CloudComputeModule,
    ModuleFailure,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import (
    References,
    Resource,
    Step,
    confirm_after_lost_response,
    ignoring,
    predict_all,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import (
    current_tags,
    desired_tags,
    tag_changes,
    tag_inputs,
)

VOLUME_TYPES = (
    "NVMe",
    "HDD",
    "NVMe_Shared",
    "HDD_Shared",
    "NVMe_Local_Storage",
    "NVMe_Shared_Cluster",
    "NVMe_OS_Cluster",
)
# Volume types that several instances can mount at once (shared file systems).
SHARED_TYPES = ("NVMe_Shared", "HDD_Shared", "NVMe_Shared_Cluster")
# The statuses a volume rests in; any other is an operation under way.
SETTLED = ("detached", "attached")
FAILED = ("canceled", "deleted")
STOP_HINT = "stop them first (cloudcompute.cloud.instance with state=stopped)"
# What a 403 to a create that attaches, or to an attach or a detach, most likely means.
CREATE_ATTACH_HINT = "Attaching needs the instances shut down; " + STOP_HINT + "."
ATTACH_HINT = "Attaching and detaching need the instances shut down; " + STOP_HINT + "."
# What an attached-instance record of a volume carries, for the volume check mode predicts.
ATTACHED_INSTANCE_FIELDS = ("id", "hostname", "status", "ip", "instance_type", "os_volume_id")
# What --diff shows of a volume, besides the ids of its instances and its tags.
VIEW_FIELDS = ("id", "name", "size", "type", "location", "status")
# What the create request takes from the options of the same names.
CREATE_OPTIONS = ("name", "size", "type", "location_code")


def attached_ids(volume):
    return sorted(instance["id"] for instance in volume.get("instances") or [])


def with_instances(volume, instances):
    """The volume as the API shows it attached to exactly ``instances`` (records)."""
    return dict(
        volume,
        instances=instances,
        instance_id=instances[0]["id"] if instances else None,
        status="attached" if instances else "detached",
    )


# action -> whether a volume shows it done, given the action's fields: what a wait waits for, and
# what a volume read again after a lost answer is checked for
TOOK_EFFECT = {
    "rename": lambda volume, fields: volume.get("name") == fields["name"],
    "resize": lambda volume, fields: (volume.get("size") or 0) >= fields["size"],
    "attach": lambda volume, fields: set(fields["instance_ids"]) <= set(attached_ids(volume)),
    "detach": lambda volume, fields: not set(fields["instance_ids"]) & set(attached_ids(volume)),
    "restore": lambda volume, fields: volume.get("status") != "deleted",
}


def resized(volume, size):
    volume = dict(volume, size=size)
    volume.pop("base_hourly_cost", None)  # what the API will charge is the planned cost
    return volume


def new_volume(name, size, volume_type, location, **more):
    """A volume as a create or a clone leaves it, before what follows (grow, attach, tag)."""
    created = {"id": None, "name": name, "size": size, "type": volume_type, "location": location, "status": "detached"}
    return dict(created, instances=[], tags=[], **more)


def in_trash(volume):
    return volume.get("status") == "deleted" and not volume.get("is_permanently_deleted")


def describe(volume):
    return "volume {} ({})".format(volume.get("name"), volume.get("id") or "not created yet")


def check_attachable(volume_type, instance_count):
    if instance_count > 1 and volume_type and volume_type not in SHARED_TYPES:
        raise ModuleFailure(
            f"a volume of type {volume_type} can be attached to one instance only; shared types "
            f"({', '.join(SHARED_TYPES[:2])}) can be attached to several"
        )


def require_shut_down(instances, doing):
    running = [
        "{} ({}, status {})".format(record.get("hostname"), record["id"], record.get("status"))
        for record in instances
        if record.get("status") != "offline"
    ]
    if running:
        raise ModuleFailure(
            "to {}, its instances must be shut down; not shut down: {}; {}".format(doing, ", ".join(running), STOP_HINT)
        )


class Volume(Resource):
    key = "volume"
    path = "/volumes"
    planned_cost = None  # what a create or a resize costs, once priced from the catalog

    # --------------------------------------------------------------------------- lookups

    @cached_property
    def active_volumes(self):
        """Every active volume, read once per task (lookups by name and of the clone source)."""
        return self.client.get_list(self.path)

    def clone_source(self):
        return References("volume", lambda: self.active_volumes).record(self.params["clone_from"])

    def find(self):
        """The volume the options name; None for ``state=absent`` when it is already as gone as
        asked: deleted for good, or in the trash unless ``permanent``. The trash is read only
        when the state needs it: a restore, or a permanent delete."""
        params, state = self.params, self.params["state"]
        if params["id"]:
            volume = self.fetch(params["id"])
            if volume is None and state != "absent":
                raise ModuleFailure("volume {} does not exist".format(params["id"]))
        else:
            name, location = params["name"], params["location_code"]
            if state == "present":
                self.hold_create_lock(name)
            volume = volume_named(self.active_volumes, name, location)
            if volume is not None:
                self.release_create_lock()
            elif state == "restored" or (state == "absent" and params["permanent"]):
                volume = volume_named(self.client.get_list(self.path + "/trash"), name, location)
        if state == "absent" and volume:
            if volume.get("is_permanently_deleted") or (in_trash(volume) and not params["permanent"]):
                return None
        return volume

    def list_named(self, name):
        # the name is unique within the location a create puts the new volume in (read afresh)
        location = self.params["location_code"] or self.clone_source()["location"]
        return [volume for volume in self.client.get_list(self.path) if volume.get("location") == location]

    def discard_created(self, created_id, body):
        self.client.delete(self.item_path(created_id), json_body={"is_permanent": True})

    def validate(self):
        if self.params["size"] is not None and self.params["size"] < 1:
            raise ModuleFailure("size must be at least 1 GB")
        desired_tags(self.params)  # refuses bad tags and expiries before any request
        check_attachable(self.params["type"], len(set(self.params["instances"] or [])))
        check_cap_option(self.params["max_price_per_hour"])

    # -------------------------------------------------------------------------- planning

    def plan(self, current):
        """The steps from ``current`` (None: not found) to what the options ask, every one of them
        checked and priced before the first change is made."""
        state = self.params["state"]
        if state == "absent":
            return self.removal(current) if current else []
        if current is None:
            if state == "restored":
                raise ModuleFailure(
                    "volume {!r} is neither in the trash nor active: nothing to restore".format(self.params["name"])
                )
            return self.cloning() if self.params["clone_from"] else self.creation()
        if state == "restored" and current.get("is_permanently_deleted"):
            raise ModuleFailure(f"{describe(current)} was deleted permanently and cannot be restored")
        if state == "restored" and in_trash(current):
            return self.restoration(current)
        if in_trash(current):
            raise ModuleFailure(f"{describe(current)} is deleted; state=restored takes it out of the trash")
        if current.get("status") == "deleted":
            raise ModuleFailure(f"{describe(current)} is deleted permanently")
        return self.converging(current)

    def attachment_plan(self, volume):
        """(instances to attach, attached records to detach), checked before any change: every
        instance involved must exist, be in the volume's location and be shut down."""
        if self.params["instances"] is None:
            return [], []
        current = volume.get("instances") or []
        # hostnames or ids of instances already attached resolve without a call
        references = instance_references(self.client, known=current)
        # id -> record, in the order given
        desired = {record["id"]: record for record in map(references.record, self.params["instances"])}
        check_attachable(volume.get("type"), len(desired))
        to_attach = [record for record in desired.values() if record["id"] not in attached_ids(volume)]
        to_detach = [record for record in current if record["id"] not in desired]
        elsewhere = [
            "{} ({})".format(record.get("hostname"), record["location"])
            for record in to_attach
            if record.get("location") not in (None, volume.get("location"))
        ]
        if elsewhere:
            where = f"{describe(volume)} is in {volume.get('location')}"
            raise ModuleFailure(f"{where} and cannot be attached to instances elsewhere: {', '.join(elsewhere)}")
        require_shut_down(to_attach + to_detach, "attach or detach a volume")
        return to_attach, to_detach

    def converging(self, volume):
        """The steps that bring ``volume`` (as it is, or as a create, clone or restore will leave
        it) to the options: rename, resize, detach, attach and tag it at rest (the API changes
        volumes only at rest), then read it back; none when nothing differs. Every change is
        refused or priced before the first is made."""
        params = self.params
        steps = self.field_changes(volume)
        to_attach, to_detach = self.attachment_plan(volume)
        if to_detach:
            steps.append(self.detaching(to_detach, must_wait=bool(to_attach) or params["wait"]))
        if to_attach:
            steps.append(self.attaching(to_attach))
        to_add, to_remove = tag_changes(volume, desired_tags(params, volume), params["purge_tags"])
        if to_add or to_remove:
            steps.append(self.tag_step(to_add, to_remove))
        if any(step.name == "resize" for step in steps) or not volume.get("id"):
            self.guard(volume, predict_all(steps, volume))
        return [self.settling("changing it"), *steps, self.read_back()] if steps else []

    def field_changes(self, current):
        """The rename and the resize of ``current``; what the API cannot change (its type, its
        location, a smaller size) refused."""
        params, name, size = self.params, self.params["name"], self.params["size"]
        differing = {
            option: {"current": current.get(field), "desired": params[option]}
            for option, field in (("type", "type"), ("location_code", "location"))
            if params[option] is not None and params[option] != current.get(field)
        }
        if differing:
            raise ModuleFailure(
                "cannot change {} of existing {}: the API cannot; make a new volume instead "
                "(clone_from copies the data)".format(" and ".join(sorted(differing)), describe(current)),
                immutable=differing,
            )
        steps = []
        if params["id"] and name is not None and name != current.get("name"):
            steps.append(self.action_step("rename", lambda volume: dict(volume, name=name), name=name))
        if size is not None and size < current.get("size"):
            raise ModuleFailure(
                f"cannot shrink {describe(current)} from {current.get('size')} GB to {size} GB: volumes only grow"
            )
        if size is not None and size != current.get("size"):
            steps.append(self.action_step("resize", lambda volume: resized(volume, size), size=size))
        return steps

    def guard(self, volume, after):
        """Price what a create or a resize makes from the catalog, and refuse it over
        ``max_price_per_hour`` before any change. Other changes read no catalog."""
        part = PriceBook(self.client).new_volume(f"volume {after.get('name')}", after.get("type"), after.get("size"))
        self.planned_cost = cost([part])
        refuse_over_cap(self.planned_cost, self.params["max_price_per_hour"], describe(volume))

    # --------------------------------------------------------------------------- steps

    def creation(self):
        params = self.params
        missing = [option for option in ("size", "type", "location_code") if params[option] is None]
        if missing:
            raise ModuleFailure(
                "volume {!r} does not exist; to create it, give {}".format(params["name"], ", ".join(missing))
            )
        new = new_volume(params["name"], params["size"], params["type"], params["location_code"])
        # a new volume gets the attachments and tags it is planned to have with the create request
        created = predict_all(self.converging(new), new)
        to_attach = [record["id"] for record in created["instances"]]

        def create(_nothing):
            body = {option: params[option] for option in CREATE_OPTIONS}
            if to_attach:
                body["instance_ids"] = to_attach
            if created["tags"]:
                body["tags"] = tag_inputs(current_tags(created))
            with hinted({403: CREATE_ATTACH_HINT} if to_attach else None):
                volume_id = self.create_unique(self.path, body)
            return self.settled_or_fetched(volume_id, f"volume {volume_id} to be created")

        return [Step("create", create, lambda _nothing: created)]

    def cloning(self):
        params = self.params
        source = self.clone_source()
        if params["size"] is not None and params["size"] < source["size"]:
            raise ModuleFailure(
                f"cannot clone {describe(source)} ({source['size']} GB) to a smaller size ({params['size']} GB): volumes only grow"
            )
        location = params["location_code"] or source["location"]
        volume_type = params["type"] or source["type"]
        copied = new_volume(
            params["name"], source["size"], volume_type, location, is_os_volume=source.get("is_os_volume")
        )
        # what follows the copy (grow, attach, tag) is planned on the copy-to-be, so that a bad
        # request fails before anything is copied
        following = self.converging(copied)

        def clone(_nothing):
            body = {"action": "clone", "id": source["id"], "name": params["name"]}
            if location != source["location"]:
                body["location_code"] = location
            if volume_type != source["type"]:
                body["type"] = volume_type
            volume_id = self.create_unique(self.path, body, method="PUT")
            description = "volume {} to be cloned from {}".format(volume_id, source["id"])
            return self.settled_or_fetched(volume_id, description, must_wait=bool(following))

        return [Step("clone", clone, lambda _nothing: copied), *following]

    def restoration(self, volume):
        restored = {key: value for key, value in volume.items() if key not in ("deleted_at", "is_permanently_deleted")}
        restored["status"] = "detached"
        following = self.converging(restored)

        def restore(volume):
            self.action(volume["id"], "restore")
            description = f"{describe(volume)} to be restored"
            return self.settled_or_fetched(volume["id"], description, must_wait=bool(following))

        return [Step("restore", restore, lambda _volume: restored), *following]

    def removal(self, volume):
        """Detach (the instances shut down), then move to the trash or delete for good."""
        attached = volume.get("instances") or []
        if attached and volume.get("is_os_volume"):
            hostnames = ", ".join(record.get("hostname") or record["id"] for record in attached)
            raise ModuleFailure(
                f"{describe(volume)} is the OS volume of instance {hostnames}: delete or hibernate the instance instead"
            )
        require_shut_down(attached, "delete an attached volume")
        steps = [self.settling("deleting it", at_rest=SETTLED + ("deleted",))]
        if attached:
            steps.append(self.detaching(attached, must_wait=True))
        return steps + [self.deletion()]

    def settling(self, doing, at_rest=SETTLED):
        def settle(volume):
            if volume.get("status") in at_rest:
                return volume
            return self.wait_settled(volume["id"], f"{describe(volume)} to settle before {doing}")

        return Step("settle", settle, lambda volume: volume)

    def action_step(self, action, predict, must_wait=False, **fields):
        """A rename, resize, attach or detach: ``predict(volume)`` is the volume afterwards; when
        ``must_wait``, the volume read once it shows the action done and is at rest."""

        def apply(volume):
            self.action(volume["id"], action, **fields)
            if not must_wait:
                return predict(volume)
            return self.wait_settled(
                volume["id"],
                f"{describe(volume)} to be {action}ed",
                done=lambda current: TOOK_EFFECT[action](current, fields),
            )

        return Step(action, apply, predict)

    def detaching(self, records, must_wait):
        detach_ids = [record["id"] for record in records]

        def predict(volume):
            kept = [record for record in volume.get("instances") or [] if record["id"] not in detach_ids]
            return with_instances(volume, kept)

        return self.action_step("detach", predict, must_wait, instance_ids=detach_ids)

    def attaching(self, records):
        def predict(volume):
            attached = [{field: record.get(field) for field in ATTACHED_INSTANCE_FIELDS} for record in records]
            return with_instances(volume, (volume.get("instances") or []) + attached)

        attach_ids = [record["id"] for record in records]
        return self.action_step("attach", predict, self.params["wait"], instance_ids=attach_ids)

    # ------------------------------------------------------------------------ waiting

    def wait_settled(self, volume_id, description, done=None):
        def settled(volume):
            return volume is not None and volume.get("status") in SETTLED and (done is None or done(volume))

        def failed(volume):
            if volume is None:
                return "the volume disappeared"
            return "the volume is {}".format(volume["status"]) if volume.get("status") in FAILED else None

        return self.budget.until(
            lambda: self.fetch(volume_id),
            settled,
            description,
            failed=failed,
            describe=lambda volume: volume and volume.get("status"),
        )

    def settled_or_fetched(self, volume_id, description, must_wait=False):
        """The volume after an operation: settled when waiting (or when later steps need it
        at rest), else as it is right now."""
        if must_wait or self.params["wait"]:
            return self.wait_settled(volume_id, description)
        return self.fetch(volume_id)

    # ------------------------------------------------------------------------- actions

    def action(self, volume_id, action, **fields):
        def took_effect():
            volume = self.fetch(volume_id)
            return volume is not None and TOOK_EFFECT[action](volume, fields)

        with hinted({403: ATTACH_HINT} if action in ("attach", "detach") else None):
            try:
                self.client.put(self.path, dict(fields, action=action, id=volume_id))
            except ApiError as error:
                # repeated after a lost answer: a resize to the size it now has answers 400, ...
                confirm_after_lost_response(error, took_effect)

    def delete(self, current):
        with ignoring(404):  # gone meanwhile: that is what we wanted
            self.client.delete(self.item_path(current["id"]), json_body={"is_permanent": self.params["permanent"]})
        if self.params["wait"]:
            self.budget.until(
                lambda: self.fetch(current["id"]),
                lambda volume: volume is None or volume.get("status") == "deleted",
                f"{describe(current)} to be deleted",
            )

    # ------------------------------------------------------------------------- result

    def result(self, changed, before, after):
        if not after:
            after_cost = cost([])
        elif after.get("base_hourly_cost") is not None:
            after_cost = existing_volume_cost(after)
        else:
            after_cost = self.planned_cost
        return with_cost(
            super().result(changed, before, after), after_cost, existing_volume_cost(before) if before else None
        )

    def view(self, resource):
        if not resource:
            return {}
        return dict(
            {field: resource.get(field) for field in VIEW_FIELDS},
            instance_ids=attached_ids(resource),
            tags=current_tags(resource),
        )


def main():
    argument_spec = dict(
        id=dict(type="str"),
        name=dict(type="str"),
        location_code=dict(type="str", aliases=["location"]),
        size=dict(type="int"),
        type=dict(type="str", choices=list(VOLUME_TYPES)),
        instances=dict(type="list", elements="str"),
        clone_from=dict(type="str"),
        permanent=dict(type="bool", default=False),
        state=dict(type="str", choices=["present", "absent", "restored"], default="present"),
        **WAIT_ARGUMENT_SPEC,
        **TAGS_ARGUMENT_SPEC,
        **CAP_ARGUMENT_SPEC,
    )
    module = CloudComputeModule(
        argument_spec=argument_spec, required_one_of=[("id", "name")], mutually_exclusive=[("id", "clone_from")]
    )
    Volume(module).run()


if __name__ == "__main__":
    main()
