#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: instance_state
short_description: Start, shut down, hibernate or delete many Cloud Compute instances at once
version_added: 0.1.0
description:
  - Brings every instance of a list to one state (V(running), V(stopped), V(hibernated) or
    V(absent)) with one bulk request of the API per step, however many instances need it,
    instead of one request per instance.
  - Instances are named by hostname or id. Only instances that need it are acted on, so a
    second run reports no change.
  - The API answers a bulk request with a result per instance. Instances the API was too busy
    for are sent again (up to three times); an instance it refused fails the task naming that
    instance and the API's reason, after the others were brought to O(state).
  - To deploy instances, or to converge one instance's tags and options, use
    M(cloudcompute.cloud.instance); this module only changes the power state of existing
    instances and deletes them.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.wait
  - cloudcompute.cloud.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  instances:
    description:
      - Hostnames or ids of the instances. A hostname that several live instances share is
        ambiguous and needs the id.
      - For O(state=running) and O(state=stopped) every instance must exist (the task fails
        naming those that do not, before any change). For O(state=absent) and
        O(state=hibernated) one that does not exist is already where it should be; it is
        listed in RV(missing).
    type: list
    elements: str
    required: true
  state:
    description:
      - V(running) starts the instances that are shut down; V(stopped) shuts down the running
        ones (with O(force=true) by force). A shut-down instance is still charged.
      - V(hibernated) shuts the running ones down, then hibernates them all; each instance is
        deleted and no longer charged, and its volumes are kept, detached (deploy it again with
        M(cloudcompute.cloud.instance) and O(cloudcompute.cloud.instance#module:existing_os_volume)).
      - V(absent) deletes the instances, with the volumes chosen by O(delete_volumes).
      - Instances still being set up are waited for before they are shut down, hibernated or
        deleted (the API accepts no action until then), except with O(state=absent) and
        O(force=true); for V(running) they need nothing.
    type: str
    choices: [running, stopped, hibernated, absent]
    required: true
  force:
    description:
      - With O(state=stopped) or O(state=hibernated), shut down by force (like pulling the
        plug) instead of asking the OS to shut down.
      - With O(state=absent), delete with the API's C(delete_stuck) action, which also takes an
        instance stuck in its setup (V(validating), V(provisioning)), so the instances are
        deleted at once, without waiting for their setup to end.
    type: bool
    default: false
  delete_volumes:
    description:
      - With O(state=absent), which attached volumes are deleted with the instances; the others
        are detached and kept. A data volume that is not listed is never deleted.
      - V(os) (the default) deletes each instance's OS volume only, V(all) every attached
        volume, V(none) none. Otherwise a list of names or ids of volumes attached to any of
        the instances, which may include V(os).
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
  - O(wait) waits until every instance is V(running) (O(state=running)), V(offline)
    (O(state=stopped)) or gone (O(state=absent), O(state=hibernated)), all within the one
    O(wait_timeout). Hibernating always waits for the shutdown it needs first.
  - The wait goes on until every instance is either there or will never get there, then fails
    naming each instance that ended in C(error), C(no_capacity), C(installation_failed) or
    C(notfound) (or was removed meanwhile), so one task waits for a whole fleet and reports
    every instance that failed.
  - The waits read the project's instance list, shared with every process of this machine
    that waits for instances with the same O(api_url) and O(client_id) (a snapshot beside the
    token cache, used while it is younger than the wait's poll interval; none with
    O(token_cache=false)). The interval follows the statuses - seconds while a status is due,
    a tenth of an instance's age while it is being set up, at most 15 seconds - and is never
    shorter than the rate-limit pacing asks.
  - "API calls: one instance list, then one bulk request per step that some instance needs
    (start; shutdown; shutdown then hibernate; delete), and while waiting one instance list per
    poll for all the instances together. O(delete_volumes) naming volumes by name adds one
    volume list."
  - "Instance actions of C(PUT /v1/instances) this module does not send, deliberately: C(boot)
    (the same as C(start), which O(state=running) sends), C(discontinue) (the same as C(delete),
    which O(state=absent) sends), C(configure_spot) (the API documents no setting for it and it
    changes nothing an instance reports), C(deploy) and C(transfer) (the API answers that they
    are not available for instances). M(cloudcompute.cloud.instance) deploys instances with
    C(POST /v1/instances)."
seealso:
  - module: cloudcompute.cloud.instance
  - module: cloudcompute.cloud.instance_info
"""

EXAMPLES = r"""
- name: Shut the whole training fleet down for the night, in one request
  cloudcompute.cloud.instance_state:
    instances: [trainer-1, trainer-2, trainer-3, trainer-4]
    state: stopped

- name: Start every instance tagged team=research
  block:
    - name: Find them
      cloudcompute.cloud.instance_info:
        tags:
          team: research
      register: research

    - name: Start them
      cloudcompute.cloud.instance_state:
        instances: "{{ research.instances | map(attribute='id') }}"
        state: running

- name: Hibernate them (no longer charged; volumes kept)
  cloudcompute.cloud.instance_state:
    instances: [trainer-1, trainer-2]
    state: hibernated

- name: Delete a sweep's instances with all their volumes, for good
  cloudcompute.cloud.instance_state:
    instances: "{{ groups['sweep'] }}"
    state: absent
    delete_volumes: all
    delete_permanently: true
  register: sweep_gone

- name: Which volumes went
  ansible.builtin.debug:
    var: sweep_gone.deleted_volume_ids
"""

RETURN = r"""
instances:
  description:
    - The instances as the API returns them after the run (after waiting, when waiting), in the
      order of O(instances), their tags as a dictionary of key to value and the ids of those
      tags as C(tag_ids) (key to id), as M(cloudcompute.cloud.instance) returns them. Instances that are gone are left out, so after O(state=absent) or
      O(state=hibernated) with O(wait=true) the list is empty.
    - In check mode, the instances as the run would leave them.
  returned: always
  type: list
  elements: dict
  sample:
    - id: 5f0c7d3a-2b8e-4c1f-9a6d-0e4b3c2a1f90
      hostname: trainer-1
      status: offline
actions:
  description:
    - The bulk requests the run sent (in check mode, would send), in order, each with the
      action and the ids and hostnames of its instances. Empty when nothing needed a change.
  returned: always
  type: list
  elements: dict
  contains:
    action:
      description: The API action, for example V(shutdown), V(start), V(hibernate) or V(delete).
      type: str
      sample: shutdown
    instance_ids:
      description: Ids of the instances it was sent for.
      type: list
      elements: str
    hostnames:
      description: Their hostnames.
      type: list
      elements: str
missing:
  description: References in O(instances) that name no instance (for O(state=absent) and O(state=hibernated)).
  returned: always
  type: list
  elements: str
deleted_volume_ids:
  description: Ids of the volumes deleted with the instances (or, in check mode, that would be).
  returned: when O(state=absent) or O(state=hibernated)
  type: list
  elements: str
detached_volume_ids:
  description: Ids of the volumes detached from the deleted or hibernated instances and kept.
  returned: when O(state=absent) or O(state=hibernated)
  type: list
  elements: str
failures:
  description:
    - The instances the API refused, each with its id, hostname, action, the API's
      C(status_code) and C(error). The task fails when there is any.
  returned: on failure
  type: list
  elements: dict
  sample:
    - id: 5f0c7d3a-2b8e-4c1f-9a6d-0e4b3c2a1f90
      hostname: trainer-3
      action: shutdown
      status_code: 400
      error: Instance 5f0c7d3a-2b8e-4c1f-9a6d-0e4b3c2a1f90 has a pending power action (to running)
"""

from collections import Counter

from ansible_collections.cloudcompute.cloud.plugins.module_utils._instance_actions import act_on_many
from ansible_collections.cloudcompute.cloud.plugins.module_utils._lookups import (
    BROKEN,
    GOING_AWAY,
    SETTING_UP,
    instance_named,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import (
    WAIT_ARGUMENT_SPEC,
    CloudComputeModule,
    ModuleFailure,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import References, WaitBudget
from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import shown_tags

# state -> the status every instance ends in (None: gone)
TARGET_STATUS = {"running": "running", "stopped": "offline", "hibernated": None, "absent": None}
# state -> the action that takes an instance there (force makes "shutdown" a force_shutdown)
ACTIONS = {"running": "start", "stopped": "shutdown", "hibernated": "hibernate", "absent": "delete"}
# the actions that delete an instance: force makes "delete" a delete_stuck
DELETIONS = ("delete", "delete_stuck", "hibernate")
MAX_ATTEMPTS = 3


def settled(status):
    """The status an instance ends up in by itself: one being set up ends up running."""
    return "running" if status in SETTING_UP else status


def is_gone(instance):
    return instance is None or instance.get("status") in GOING_AWAY


def has_status(status):
    """A test of whether an instance (None when gone) has ``status``; is gone when it is None."""
    return lambda instance: instance is None if status is None else (instance or {}).get("status") == status


def accomplished(action, instance):
    """Whether ``instance`` (None when gone) already is where ``action`` takes it."""
    if action in DELETIONS:
        return is_gone(instance)
    return has_status("running" if action == "start" else "offline")(instance)


def describe(instance):
    return "instance {} ({})".format(instance.get("hostname"), instance.get("id"))


def ids(instances):
    return [instance["id"] for instance in instances]


class InstanceState:
    def __init__(self, module):
        self.module = module
        self.params = module.params
        self.client = module.client
        self.state = self.params["state"]
        # the status every instance ends in; None when the state takes them away (hibernated, absent)
        self.target = TARGET_STATUS[self.state]
        self.shutdown = "force_shutdown" if self.params["force"] else "shutdown"
        self.action = self.shutdown if self.state == "stopped" else ACTIONS[self.state]
        if self.state == "absent" and self.params["force"]:
            self.action = "delete_stuck"
        self.budget = WaitBudget(self.client, self.params["wait_timeout"])
        self.actions, self.failures = [], []  # what the result reports: the requests sent, the items refused
        self.acted = set()  # ids of the instances an action was carried out for
        self.listed = {}  # the latest instance list read, by id

    # --------------------------------------------------------------------------- reading

    def list_instances(self):
        """Every instance of the project by id: one request, whatever their number."""
        self.listed = {instance["id"]: instance for instance in self.client.get_list("/instances")}
        return self.listed

    def resolve(self, listed):
        """The instances named by ``instances`` (in order, without duplicates), and the
        references that name none."""
        found, missing = {}, []
        for reference in self.params["instances"]:
            instance = listed.get(reference) or instance_named(list(listed.values()), reference)
            if instance is not None:
                found.setdefault(instance["id"], instance)
            elif reference not in missing:
                missing.append(reference)
        return list(found.values()), missing

    # ------------------------------------------------------------------------ validation

    def validate(self):
        params = self.params
        if params["force"] and self.state == "running":
            raise ModuleFailure("force only applies to state=stopped, state=hibernated and state=absent")
        special = [choice for choice in ("all", "none") if choice in params["delete_volumes"]]
        if special and len(params["delete_volumes"]) > 1:
            raise ModuleFailure(f"delete_volumes={special[0]} cannot be combined with other entries")

    def refuse_impossible(self, found, missing):
        """Fail naming every instance that cannot reach ``state``, before any change."""
        problems = []
        if missing and self.target:
            names = ", ".join(repr(reference) for reference in missing)
            problems.append(f"no instance named {names} (cloudcompute.cloud.instance deploys instances)")
        verb = {"running": "started", "stopped": "shut down", "hibernated": "hibernated"}.get(self.state)
        for instance in found:
            status = instance.get("status")
            if self.target and status in GOING_AWAY:
                problems.append(f"{describe(instance)} is being removed (status {status})")
            elif verb and status in BROKEN:
                problems.append(
                    f"{describe(instance)} is {status} and cannot be {verb}; delete it (state=absent) and deploy it again"
                )
        if problems:
            raise ModuleFailure("cannot bring every instance to state={}: {}".format(self.state, "; ".join(problems)))

    def takes_action(self, instance):
        """Whether the state's action can be sent for ``instance`` as it is now: starting and
        hibernating take an instance that is offline, shutting down one that is running."""
        if self.state == "absent":
            return instance.get("status") not in GOING_AWAY
        return instance.get("status") == ("running" if self.state == "stopped" else "offline")

    def needs_change(self, instance):
        return settled(instance.get("status")) != self.target if self.target else not is_gone(instance)

    # -------------------------------------------------------------------------- volumes

    def volumes_to_delete(self, instances):
        """Instance id -> ids of its attached volumes that ``delete_volumes`` names, checked
        before any change."""
        choice = self.params["delete_volumes"] if self.state == "absent" else ["none"]
        attached = {instance["id"]: instance.get("volume_ids") or [] for instance in instances}
        if choice == ["all"]:
            return attached
        every_attached = {volume_id for volume_ids in attached.values() for volume_id in volume_ids}
        attached_volumes = References(
            "volume",
            lambda: [volume for volume in self.client.get_list("/volumes") if volume["id"] in every_attached],
            scope=" among the volumes attached to the instances",
        )
        doomed = {instance_id: set() for instance_id in attached}
        for reference in [] if choice == ["none"] else choice:
            if reference == "os":
                owned = [(instance["id"], instance.get("os_volume_id")) for instance in instances]
            else:
                volume_id = attached_volumes.id(reference)
                owned = [(owner, volume_id) for owner, volume_ids in attached.items() if volume_id in volume_ids]
                if not owned:
                    raise ModuleFailure(
                        f"volume {reference} is not attached to any of the instances: delete_volumes only deletes "
                        "attached volumes"
                    )
            for owner, volume_id in owned:
                if volume_id in attached[owner]:  # an OS volume is deleted only when it is attached
                    doomed[owner].add(volume_id)
        return {instance_id: sorted(volume_ids) for instance_id, volume_ids in doomed.items()}

    # -------------------------------------------------------------------------- waiting

    def wait_until(self, instances, reached, description, removal_fails=False):
        """Poll the instance list until ``reached(instance or None)`` holds for each of
        ``instances`` (records read before); the latest list. One list per poll for all of them,
        shared with the other processes of this machine that wait (``InstanceWaiter``), as
        often as their statuses need. Once every instance is either there or will never get
        there (``BROKEN``; removed meanwhile when ``removal_fails``), fails naming each of the
        latter."""

        def unreached(listed):
            return [instance for instance in instances if not reached(listed.get(instance["id"]))]

        def failed(listed):
            problems = []
            for instance in unreached(listed):
                current = listed.get(instance["id"])
                if current is not None and current.get("status") in BROKEN:
                    problems.append("{} is {}".format(describe(current), current["status"]))
                elif removal_fails and is_gone(current):
                    problems.append(f"{describe(instance)} is being removed")
                else:
                    return None  # still on its way: the others' outcome is told when all are known
            if not problems:
                return None
            return f"{len(problems)} of {len(instances)} will never get there: {'; '.join(problems)}"

        def last_seen(listed):
            return ", ".join(
                "{} {}".format(instance.get("hostname"), (listed.get(instance["id"]) or {}).get("status", "gone"))
                for instance in unreached(listed)
            )

        # The latest list answers without a request when every instance already is there (an
        # action is only sent to an instance that is not, so it never answers for one).
        if not unreached(self.listed):
            return self.listed
        # imported only by a task that waits: each task compiles what it imports
        from ansible_collections.cloudcompute.cloud.plugins.module_utils._instance_list import InstanceWaiter

        waiter = InstanceWaiter(self.client, self.budget.remaining)

        def read():
            self.listed = waiter.instances()
            return self.listed

        def interval_after(listed):
            return waiter.next_interval([listed.get(instance["id"], instance) for instance in unreached(listed)])

        return self.budget.until(
            read,
            lambda listed: not unreached(listed),
            description,
            failed=failed,
            describe=last_seen,
            interval_after=interval_after,
        )

    def wait_set_up(self, instances):
        """Wait for the instances still being set up (the API accepts no action for them yet);
        the instances as they are then (none is read again when none is being set up)."""
        setting_up = [instance for instance in instances if instance.get("status") in SETTING_UP]
        listed = self.wait_until(
            setting_up,
            lambda instance: instance is None or instance.get("status") not in SETTING_UP,
            f"{len(setting_up)} instances to finish their setup",
        )
        return [listed[instance["id"]] for instance in instances if instance["id"] in listed]

    # -------------------------------------------------------------------------- actions

    def act(self, action, instances, doomed=None):
        """Send ``action`` for every instance in one bulk request; send again those the API was
        too busy for; record the ones it refused. The instances it carried out."""
        pending = list(instances)
        done = []
        for attempt in range(1, MAX_ATTEMPTS + 1):
            self.record_action(action, pending)
            fields = self.request_fields(action, pending, doomed)
            failures = {
                failure.instance_id: failure for failure in act_on_many(self.client, ids(pending), action, **fields)
            }
            carried_out = [instance for instance in pending if instance["id"] not in failures]
            done.extend(carried_out)
            self.acted.update(ids(carried_out))
            if not failures:
                break
            listed = self.list_instances()
            retry = []
            for instance in [instance for instance in pending if instance["id"] in failures]:
                failure, current = failures[instance["id"]], listed.get(instance["id"])
                if accomplished(action, current) or (failure.not_found and action in DELETIONS):
                    done.append(instance)  # done meanwhile (by another run, or a retried request)
                elif failure.retryable and current is not None and attempt < MAX_ATTEMPTS:
                    retry.append(current)
                else:
                    self.failures.append(failure.as_dict(instance.get("hostname")))
            if not retry:
                break
            self.budget.sleep(min(self.budget.remaining(), attempt))
            pending = retry
        return done

    def request_fields(self, action, instances, doomed):
        """What the bulk request carries besides the action and the ids: a delete names the
        attached volumes to delete with the instances."""
        if action not in ("delete", "delete_stuck"):
            return {}
        volume_ids = {volume_id for instance in instances for volume_id in doomed[instance["id"]]}
        return {"volume_ids": sorted(volume_ids), "delete_permanently": self.params["delete_permanently"]}

    def record_action(self, action, instances):
        if instances:
            hostnames = [instance.get("hostname") for instance in instances]
            self.actions.append({"action": action, "instance_ids": ids(instances), "hostnames": hostnames})

    # ---------------------------------------------------------------------- convergence

    def converge(self):
        self.validate()
        found, missing = self.resolve(self.list_instances())
        self.refuse_impossible(found, missing)
        to_change = [instance for instance in found if self.needs_change(instance)]
        doomed = self.volumes_to_delete(to_change)
        if self.module.check_mode:
            return self.predict(found, missing, to_change, doomed)
        # for state=running this reads nothing: an instance being set up ends up running by itself;
        # delete_stuck takes an instance in any stage of its setup
        ready = to_change if self.action == "delete_stuck" else self.wait_set_up(to_change)
        if self.state == "hibernated":
            ready = self.shut_down(ready)
        self.act(self.action, [instance for instance in ready if self.takes_action(instance)], doomed)
        return self.finish(found, missing, to_change, doomed)

    def shut_down(self, instances):
        """Before a hibernation: shut the running ones down and wait until they are; the instances
        offline then."""
        stopped = self.act(self.shutdown, [instance for instance in instances if instance.get("status") == "running"])
        offline = [instance for instance in instances if instance.get("status") == "offline"]
        if stopped:
            description = f"{len(stopped)} instances to shut down before they hibernate"
            listed = self.wait_until(stopped, has_status("offline"), description, removal_fails=True)
            offline.extend(listed[instance["id"]] for instance in stopped)
        return offline

    def finish(self, found, missing, to_change, doomed):
        failed_ids = {failure["id"] for failure in self.failures}
        if self.params["wait"]:
            waited = [instance for instance in found if instance["id"] not in failed_ids]
            description = f"{len(waited)} instances to be {self.target or 'removed'}"
            # an instance removed meanwhile never gets to a status
            listed = self.wait_until(waited, has_status(self.target), description, removal_fails=bool(self.target))
        else:
            listed = self.list_instances() if self.acted else self.listed
        after = [listed[instance["id"]] for instance in found if instance["id"] in listed]
        carried_out = [instance for instance in to_change if instance["id"] in self.acted]
        result = self.result(bool(self.acted), found, missing, after, carried_out, doomed)
        if self.failures:
            reasons = "; ".join(
                "{hostname} ({id}): {action} failed (HTTP {status_code}): {error}".format(**failure)
                for failure in self.failures
            )
            message = (
                f"{len(failed_ids)} of {len(found)} instances could not be brought to state={self.state}: {reasons}"
            )
            raise ModuleFailure(message, failures=self.failures, **result)
        return result

    def predict(self, found, missing, to_change, doomed):
        """Check mode: the instances as the run would leave them, and the requests it would send."""
        # every instance left ends in the target status: those not changed already settle in it
        after = [dict(instance, status=self.target) for instance in found] if self.target else []
        if self.state == "hibernated":
            running = [instance for instance in to_change if settled(instance.get("status")) == "running"]
            self.record_action(self.shutdown, running)
        self.record_action(self.action, to_change)
        return self.result(bool(to_change), found, missing, after, to_change, doomed)

    def result(self, changed, found, missing, after, to_change, doomed):
        result = {
            "changed": changed,
            "instances": [shown_tags(instance) for instance in after],
            "actions": self.actions,
            "missing": missing,
        }
        if self.state in ("absent", "hibernated"):
            deleted = {volume_id for instance in to_change for volume_id in doomed[instance["id"]]}
            attached = {volume_id for instance in to_change for volume_id in instance.get("volume_ids") or []}
            result.update(deleted_volume_ids=sorted(deleted), detached_volume_ids=sorted(attached - deleted))
        if self.module._diff:
            result["diff"] = {"before": self.statuses(found), "after": self.statuses(after)}
        return result

    def statuses(self, instances):
        """hostname -> status, for ``--diff`` (the id instead where two share a hostname)."""
        carrying = Counter(instance.get("hostname") for instance in instances)
        shown = {}
        for instance in instances:
            hostname = instance.get("hostname")
            shown[hostname if carrying[hostname] == 1 else instance["id"]] = instance.get("status")
        return shown

    def run(self):
        self.module.exit_json(**self.module.run(self.converge))


def main():
    argument_spec = dict(
        instances=dict(type="list", elements="str", required=True),
        state=dict(type="str", choices=["running", "stopped", "hibernated", "absent"], required=True),
        force=dict(type="bool", default=False),
        delete_volumes=dict(type="list", elements="str", default=["os"]),
        delete_permanently=dict(type="bool", default=False),
        **WAIT_ARGUMENT_SPEC,
    )
    InstanceState(CloudComputeModule(argument_spec=argument_spec)).run()


if __name__ == "__main__":
    main()
