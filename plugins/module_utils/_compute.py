# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the ``instance`` and ``cluster`` modules share: a machine deployed once by hostname,
placed where capacity is, priced and guarded before the deploy, unchangeable afterwards but for
its tags and power, and removed with a choice about its volumes.

``Compute`` is their ``Resource``: it finds the one live resource carrying the hostname (one
being removed gives way to a new one), refuses what the API cannot change, and plans the deploy
(placement, cost guard, capacity hints, the wait until it is up), the tag changes and the
removal as ``Step``s. A module adds what is its own: its deploy request and prediction, its
power or node steps, how it is removed.
"""

import functools

from ansible_collections.cloudcompute.cloud.plugins.module_utils import _ssh
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiError
from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost_report import (
    CAP_ARGUMENT_SPEC,
    RUNWAY_ARGUMENT_SPEC,
    check_cap_option,
    check_runway_option,
    cost,
    own_cost,
    with_cost,
    with_reported_price,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._lookups import (
    BROKEN,
    GOING_AWAY,
    deployed_with,
    live_one,
    ssh_key_references,
    startup_script_references,
    volume_references,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import (
    TAGS_ARGUMENT_SPEC,
    WAIT_ARGUMENT_SPEC,
    ModuleFailure,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import Resource, Step, refuse_differences
from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import (
    current_tags,
    desired_tags,
    predicted_tags,
    tag_changes,
    tag_inputs,
)


def compute_argument_spec(resource_class, own_options, own_placement_options=None):
    """The options of the ``instance`` or ``cluster`` module: those both have, and ``own_options``
    (``own_placement_options``: suboptions of ``placement``)."""
    argument_spec = dict(
        id=dict(type="str"),
        hostname=dict(type="str", aliases=["name"]),
        image=dict(type="str"),
        location_code=dict(type="str", aliases=["location"]),
        description=dict(type="str"),
        ssh_keys=dict(type="list", elements="str", no_log=False),
        startup_script=dict(type="str"),
        existing_volumes=dict(type="list", elements="str"),
        delete_permanently=dict(type="bool", default=False),
    )
    argument_spec[resource_class.type_option] = dict(type="str")
    argument_spec.update(own_options)
    for options in (WAIT_ARGUMENT_SPEC, TAGS_ARGUMENT_SPEC, CAP_ARGUMENT_SPEC, RUNWAY_ARGUMENT_SPEC):
        argument_spec.update(options)
    # plugins/doc_fragments/placement.py documents these: keep in step
    placement_options = dict(
        locations=dict(type="list", elements="str"),
        strategy=dict(type="str", choices=["in_order", "cheapest"], default="in_order"),
        **(own_placement_options or {}),
    )
    placement_options[resource_class.type_option + "s"] = dict(type="list", elements="str")
    argument_spec.update(
        placement=dict(type="dict", options=placement_options),
        on_no_capacity=dict(type="str", choices=["fail", "wait"], default="fail"),
    )
    return argument_spec


def power_action(what, status, target, force, start="start", started="started"):
    """The action taking ``what`` from ``status`` to ``target`` (running or offline), None when it
    is there already; refused when it is neither there nor where the action starts from.
    ``start`` is the API's action that powers it on, ``started`` what it then is, in messages."""
    if status == target:
        return None
    source = "offline" if target == "running" else "running"
    if status != source:
        reached = started if target == "running" else "shut down"
        raise ModuleFailure(f"{what} is {status}; it can only be {reached} when {source}")
    return start if target == "running" else ("force_shutdown" if force else "shutdown")


class Compute(Resource):
    """An instance or a cluster. Subclasses set ``key``, ``path`` and ``type_option`` and write
    what is their own: the rest of the deploy request and its prediction, their own steps.

    Besides the hooks below, a subclass writes:
    ``check_options()``: refuse this kind's contradictory options, before any API call;
    ``settled(found)``: ``found`` once the API accepts the changes the plan is about to make (it
    may wait here for a setup to finish);
    ``own_request()``: the deploy request's fields of this kind of resource;
    ``after_deploy_steps()``: the steps after the deploy (power, nodes);
    ``state_steps(current)``: the steps bringing the state of an existing ``current`` to the
    options (power, nodes);
    ``deploy_cost(body)``: what deploying ``body`` costs per hour, from the public catalogs;
    ``wait_up(resource_id)``: the resource once it is up (running, and a cluster's nodes there);
    ``discard(created, body)``: delete ``created``, deployed from ``body`` by this task and lost to
    another run's, with the volumes created with it, permanently (nobody else knows of them);
    ``removal_steps(current)``: the steps removing ``current`` as ``state`` asks, its volumes as the
    options say;
    ``attached_volume_ids(resource)``: the ids of the volumes attached to ``resource``;
    ``existing_cost(resource)``: what ``resource`` costs, as the API reports it.
    """

    name_field = "hostname"
    name_option = "hostname"
    going_away = GOING_AWAY
    type_option = None  # the option naming what is deployed: instance_type, cluster_type
    removal = "delete"  # what state=absent does to it, in messages ("delete", "discontinue")
    being_removed = "being removed"
    required_to_deploy = ()  # the options a deploy cannot do without (a placement may supply some)
    passed_options = ()  # options sent with the deploy as they are, besides description and contract
    # the fields ``--diff`` shows as the API returns them, besides the type, SSH keys and tags
    shown_fields = ("id", "hostname", "image", "location", "description", "contract", "startup_script_id")
    # Options the API cannot change after the deploy besides the type: (option, field of the resource).
    immutable = (
        ("image", "image"),
        ("location_code", "location"),
        ("description", "description"),
        ("contract", "contract"),
    )
    # Of the immutable options, those compared only when the API reports the field (it picks
    # a default), and those a placement chooses among its candidates.
    compared_when_reported = ()
    placed_options = ()
    capacity_hint = ""  # what to do when the API has no capacity for a deploy
    type_label = ""  # what the no-capacity message says before the type ("cluster type ")

    def __init__(self, module):
        super().__init__(module)
        self.desired_tags = None
        self.ssh_key_references = ssh_key_references(self.client)
        self.script_references = startup_script_references(self.client)
        self.volume_references = volume_references(self.client, self.params["location_code"])
        self.placement = None  # where a new one goes, when the task gives candidates or waits for capacity
        if self.params["placement"] or self.params["on_no_capacity"] == "wait":
            # imported only by a task that places: each task compiles what it imports
            from ansible_collections.cloudcompute.cloud.plugins.module_utils._placement import Placement

            self.placement = Placement(self)
        # what the result reports besides the resource, set by the plan and its steps
        self.runway = None
        self.placed = None
        self.planned_cost = None
        self.deleted_volume_ids = []

    @functools.cached_property
    def prices(self):
        """The catalog prices of what is deployed."""
        # only a deploy prices from the catalogs: each task compiles what it imports
        from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost import PriceBook

        return PriceBook(self.client)

    def find_by_name(self, name, exclude_id=None):
        # one being removed keeps its hostname for a moment; a new one may already carry it
        return live_one([item for item in self.carrying(name) if item.get("id") != exclude_id], self.noun, name)

    def validate(self):
        self.desired_tags = desired_tags(self.params)
        self.check_options()
        if self.placement:
            self.placement.validate()
        check_cap_option(self.params["max_price_per_hour"])
        check_runway_option(self.params["min_balance_hours"])

    # ------------------------------------------------------------------------- lookup

    def find(self):
        """The resource the plan starts from: None when it is being removed and a removal is
        asked (nothing left to do) or its hostname is to be deployed again."""
        found = super().find()
        removing = self.params["state"] in self.gone_states
        if found is None:
            return None
        if found.get("status") not in GOING_AWAY:
            if not removing:
                self.refuse_immutable_changes(found)  # before waiting for a setup, which can take minutes
            return self.settled(found)
        if removing and self.removal_left(found):
            return found
        if self.params["id"] and not removing:
            raise ModuleFailure(f"{self.noun} {found['id']} is {self.being_removed} (status {found['status']})")
        # its hostname can be deployed again once it is gone
        if not self.module.check_mode and (self.params["wait"] or not removing):
            self.wait_gone(found["id"])
        return None

    def removal_left(self, found):
        """Is there still something to remove from ``found``, already being removed?"""
        return False

    # ----------------------------------------------------------------------- waiting

    def wait_failure(self, resource):
        """Why a wait for ``resource`` (as read now) cannot succeed, or None."""
        if resource is None:
            return f"the {self.noun} disappeared"
        if resource.get("status") in BROKEN:
            return f"the {self.noun} is {resource['status']}"
        if resource.get("status") in GOING_AWAY:
            return f"the {self.noun} is being removed (status {resource['status']})"
        return None

    def wait_for(self, resource_id, done, description, failed=True):
        """Poll the resource until ``done``; ``failed=False``: whatever status it passes through."""
        return self.budget.until(
            lambda: self.fetch(resource_id),
            done,
            description,
            failed=self.wait_failure if failed else None,
            describe=lambda resource: resource and resource.get("status"),
        )

    def wait_gone(self, resource_id):
        self.wait_for(
            resource_id, lambda current: current is None, f"{self.noun} {resource_id} to be removed", failed=False
        )

    # ------------------------------------------------------------------------ view

    def view(self, resource):
        if not resource:
            return {}
        shown = {field: resource.get(field) for field in (self.type_option,) + self.shown_fields}
        return dict(shown, ssh_key_ids=sorted(resource.get("ssh_key_ids") or []), tags=current_tags(resource))

    # ------------------------------------------------------------------------ deploy

    def deploy_request(self):
        """The body of the deploy request, with every name resolved to an id."""
        params = self.params
        missing = [
            option
            for option in self.required_to_deploy
            if not params[option] and not (self.placement and self.placement.supplies(option))
        ] + self.also_missing()
        if missing:
            raise ModuleFailure(
                f"{self.noun} {params['hostname']!r} does not exist; to deploy it, give {', '.join(missing)}"
            )
        # these four always (a placement or the instance's OS volume may change them), the rest when given
        body = {option: params[option] for option in ("hostname", self.type_option, "location_code", "image")}
        passed = ("description", "contract") + self.passed_options
        body.update((option, params[option]) for option in passed if params[option] is not None)
        if params["ssh_keys"]:
            body["ssh_key_ids"] = self.ssh_key_references.ids(params["ssh_keys"])
        if params["startup_script"]:
            body["startup_script_id"] = self.script_references.id(params["startup_script"])
        body.update(self.own_request())
        if self.desired_tags:
            body["tags"] = tag_inputs(self.desired_tags)
        return body

    def also_missing(self):
        """What else the deploy lacks (options given one or the other)."""
        return []

    def predicted_deploy(self, body):
        """What deploying ``body`` leaves, as far as the request says."""
        return {
            "id": None,
            "hostname": body["hostname"],
            "status": "running",
            self.type_option: body[self.type_option],
            "image": body["image"],
            "location": body["location_code"],
            "description": body.get("description", ""),
            "contract": body.get("contract", "PAY_AS_YOU_GO"),
            "ssh_key_ids": body.get("ssh_key_ids", []),
            "startup_script_id": body.get("startup_script_id"),
            "tags": predicted_tags({}, self.desired_tags or {}, []),
        }

    def guard(self, body):
        """The cost of deploying ``body``, refused when over the cap or the runway."""
        from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost import guard_deploy  # deploy only

        cost_value = self.deploy_cost(body)
        self.runway = guard_deploy(self.client, self.params, cost_value, f"{self.key} {body['hostname']}")
        return cost_value

    def create_deployed(self, body):
        """POST the deploy ``body``; the new id."""
        cost_value = self.planned_cost = self.guard(body)
        try:
            # a 503 here means no capacity: an answer to report, not an outage to retry
            return self.create_unique(self.path, body, retry_unavailable=False)
        except ApiError as error:
            if error.status == 503:
                where = f"{self.type_label}{body[self.type_option]} in {body['location_code']}"
                raise error.with_hint(f"No capacity for {where}: {self.capacity_hint}")
            if error.status == 402:
                from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost import insufficient_funds_hint

                raise error.with_hint(insufficient_funds_hint(self.client, cost_value))
            raise

    def place(self, body):
        """Deploy ``body`` (in check mode: only choose where); return the new id (None in check
        mode) and the body as it was (or would be) deployed."""
        if not self.placement:
            return (None if self.module.check_mode else self.create_deployed(body)), body
        resource_id, self.placed = self.placement.place(body)
        candidate = (self.placed["location_code"], self.placed[self.type_option], self.placed["spot"])
        return resource_id, self.placement.body_for(body, *candidate)

    def deployment(self, then_up):
        """The deploy step: the request is built (names resolved, options checked) before any
        change; the step places it, guards its cost and waits as the options ask (``then_up``:
        until it is up, for the steps after it)."""
        body = self.deploy_request()

        def predict(_nothing):
            _resource_id, placed_body = self.place(body)
            # waiting for capacity, where (and so the price) is not known yet
            self.planned_cost = self.guard(placed_body) if placed_body[self.type_option] else cost([])
            return self.predicted_deploy(placed_body)

        def apply(_nothing):
            resource_id = self.place(body)[0]
            # the steps after the deploy (power, nodes) need it up
            return self.wait_up(resource_id) if self.params["wait"] or then_up else self.fetch(resource_id)

        return Step("deploy", apply, predict)

    def discard_created(self, created_id, body):
        """Delete what this task deployed under a hostname another run's resource holds (unless
        it is already gone or going)."""
        created = self.fetch(created_id)
        if created is not None and created.get("status") not in GOING_AWAY:
            self.discard(created, body)

    # ------------------------------------------------------------------- convergence

    def immutable_pairs(self, resource):
        """``{option: (desired, current)}`` of the options the API cannot change."""
        params = self.params
        pairs = {
            option: (params[option], resource.get(field))
            for option, field in ((self.type_option, self.type_option),) + self.immutable
            if option not in self.compared_when_reported or resource.get(field) is not None
        }
        if params["id"]:
            pairs["hostname"] = (params["hostname"], resource.get("hostname"))
        return pairs

    def refuse_immutable_changes(self, resource):
        """Fail naming the options that differ from the live resource although the API cannot
        change them; with a placement, it may be in any of the candidates."""
        pairs = self.immutable_pairs(resource)
        what = f"{self.noun} {resource.get('hostname')} ({resource['id']})"
        if self.placement:
            for option in self.placed_options:
                pairs.pop(option, None)
            if not self.placement.accepts(resource):
                deployed = f"{resource.get(self.type_option)}{' (spot)' if resource.get('is_spot') else ''}"
                raise ModuleFailure(
                    f"{what} is {deployed} in {resource.get('location')}, none of the placement's candidates; the API "
                    f"cannot move it. Widen placement, or {self.removal} it (state=absent) and deploy it again."
                )
        references = (self.ssh_key_references, self.script_references)
        pairs.update(deployed_with(resource, self.params["ssh_keys"], self.params["startup_script"], *references))
        refuse_differences(
            what,
            pairs,
            "the API cannot modify them after the deploy. "
            f"Leave them out, or {self.removal} the {self.noun} (state=absent) and deploy it again.",
        )

    def tagging(self, resource):
        """The steps bringing the tags of ``resource`` to the options (none when they agree); the
        steps after them (power, nodes) start from the resource read back."""
        to_add, to_remove = tag_changes(resource, desired_tags(self.params, resource), self.params["purge_tags"])
        return [self.tag_step(to_add, to_remove), self.read_back()] if to_add or to_remove else []

    def plan(self, current):
        if self.params["state"] in self.gone_states:
            return [] if current is None else self.removal_steps(current)
        if current is None:
            after_deploy = self.after_deploy_steps()
            return [self.deployment(then_up=bool(after_deploy))] + after_deploy
        if self.placement:
            self.placed = self.placement.of_existing(current)
        return self.tagging(current) + self.state_steps(current)

    def finishing_setup(self, settle, predict, changes=False):
        """The step of one still being set up, which comes up by itself: ``settle(resource)`` waits
        for it, when the task waits."""
        return Step(
            "finish setup",
            lambda resource: settle(resource) if self.params["wait"] else resource,
            predict,
            changes=changes,
        )

    def forget_host_keys(self, removed):
        """Forget the host keys pinned for ``removed`` (and its workers) in the collection's
        known_hosts: its address may go to another instance. A file that cannot be rewritten
        is worth a warning, not a failed delete."""
        workers = removed.get("worker_nodes") if isinstance(removed.get("worker_nodes"), list) else []
        ids = {removed.get("id")} | {worker.get("id") for worker in workers if isinstance(worker, dict)}
        try:
            path = _ssh.known_hosts_path(None, self.params["token_cache"])
            _ssh.forget_host_keys(path, ids.__contains__)
        except (_ssh.SshValueError, OSError) as error:
            self.module.warn(f"the host keys of {self.noun} {removed.get('id')} were not forgotten: {error}")

    # ------------------------------------------------------------------------ result

    def result(self, changed, before, after):
        # ``cost`` is the resource's own price on every run, predicted or reported, so it does not
        # change between the run that deploys it and the next; ``deploy_cost`` adds the volumes
        # the deploy creates (what max_price_per_hour and min_balance_hours weigh).
        deploy_cost = None
        if self.planned_cost is None:
            after_cost = self.existing_cost(after) if after else cost([])
        else:
            deploy_cost = self.planned_cost if self.module.check_mode else with_reported_price(self.planned_cost, after)
            after_cost = own_cost(deploy_cost)
        before_cost = self.existing_cost(before) if before else None
        shown_before, shown_after = self.module.hide_jupyter_tokens([before, after])
        result = with_cost(super().result(changed, shown_before, shown_after), after_cost, before_cost)
        # when the task deployed it (or would), placed it, checked the runway
        reported = {"deploy_cost": deploy_cost, "placement": self.placed, "runway": self.runway}
        result.update((key, value) for key, value in reported.items() if value is not None)
        if self.params["state"] in self.gone_states:
            result["deleted_volume_ids"] = self.deleted_volume_ids
            result["detached_volume_ids"] = [
                volume_id
                for volume_id in self.attached_volume_ids(before or {})
                if volume_id not in self.deleted_volume_ids
            ]
        return result
