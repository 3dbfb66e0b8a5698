# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""What every resource module shares: find by id or name, desired vs current, check mode that
predicts the real run, ``--diff``, one ``wait_timeout`` budget, and the result shape.

A module declares a ``Resource`` subclass (API path, identity, fields and how a change to each
is applied) and calls ``run()``: the engine finds the resource, turns desired vs current into a
plan of ``Step``s, and either applies them or (check mode) lets each predict its result. A
richer module (power actions, attachments, nodes) adds its own steps in ``plan()``; check mode,
diff, the wait budget and the result shape stay here.
"""

import calendar
import datetime
import functools
import time
from contextlib import contextmanager

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import (
    ID,
    KEY,
    ApiError,
    api_path,
    looks_like_id,
    path_value,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._locks import hold_create_lock
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import predicted_tags, shown_tags

# How a change to a field is applied to an existing resource.
UPDATE = "update"  # sent with the resource's update request (PATCH)
REPLACE = "replace"  # the API cannot change it: a new resource replaces the old one
IMMUTABLE = "immutable"  # cannot change at all: a difference is a clear failure

FIRST_POLL_INTERVAL = 0.25
MAX_POLL_INTERVAL = 10.0
# Resources carrying the same name that were all created less than this long ago may be
# concurrent runs' creates being settled (a losing run deleting its own): a lookup waits for
# them to settle rather than failing as ambiguous, within the task's wait_timeout, and at
# least SETTLE_WAIT (a losing run deletes a key or a script right after its create; modules
# without wait_timeout give it that long).
SETTLE_WINDOW = 900.0
SETTLE_WAIT = 15.0
# The least a task waits for another task's create of the same name (a lookup and a create
# take a second or two), whatever little is left of its wait_timeout; a module without
# wait_timeout waits up to a rate-limit window, as its client does.
CREATE_LOCK_WAIT = 5.0
CREATE_LOCK_WAIT_WITHOUT_TIMEOUT = 60.0


class WaitBudget:
    """One ``wait_timeout`` shared by every wait of a task, so a task that waits for several
    things (shut down, then attach, then boot) never waits longer than the user allowed."""

    def __init__(self, client, timeout, sleep=time.sleep, clock=time.monotonic):
        self.client = client
        self.timeout = timeout
        self.sleep = sleep
        self.clock = clock
        self.deadline = clock() + timeout

    def remaining(self):
        return max(0.0, self.deadline - self.clock())

    def pause(self, interval, left):
        """Sleep before the next poll: ``interval``, or longer when the rate-limit headers ask for
        it, but never more than ``left``. Returns the next interval, growing up to ten seconds."""
        self.sleep(min(left, max(interval, self.client.pacing_delay())))
        return min(MAX_POLL_INTERVAL, interval * 1.5)

    def until(self, fetch, done, description, failed=None, describe=None, interval_after=None):
        """Poll ``fetch()`` until ``done(value)``; return that value.

        ``failed(value)`` returning a message stops the wait with that message (e.g. an
        instance that went to ``error``). The polls start a quarter second apart (``pause``),
        unless ``interval_after(value)`` says how long to sleep after reading ``value``.
        """
        interval = FIRST_POLL_INTERVAL
        while True:
            value = fetch()
            if done(value):
                return value
            problem = failed(value) if failed else None
            if problem:
                raise ModuleFailure(f"{description}: {problem}")
            remaining = self.remaining()
            if remaining <= 0:
                last = f" (last seen: {describe(value)})" if describe else ""
                raise ModuleFailure(
                    f"timed out after {self.timeout}s waiting for {description}{last}; raise wait_timeout or set wait: false"
                )
            if interval_after:
                self.sleep(min(remaining, interval_after(value)))
            else:
                interval = self.pause(interval, remaining)


class AmbiguousName(ModuleFailure):
    """Several resources carry the name a lookup was given; ``candidates`` are their records."""

    def __init__(self, msg, candidates):
        super().__init__(msg)
        self.candidates = candidates


def pick_one(candidates, what, identity):
    """The single match of a lookup by name; several are ambiguous and need the id."""
    if not candidates:
        return None
    if len(candidates) > 1:
        ids = ", ".join(sorted(str(item.get("id")) for item in candidates))
        message = f"{len(candidates)} {what}s are named {identity!r}: give the id of the one you mean (ids: {ids})"
        raise AmbiguousName(message, candidates)
    return candidates[0]


def age_in_seconds(record, now):
    """Seconds since the record's ``created_at`` (ISO 8601); None when it has none."""
    try:
        created = datetime.datetime.strptime(str(record["created_at"])[:19], "%Y-%m-%dT%H:%M:%S")
    except (KeyError, ValueError):
        return None
    return now - calendar.timegm(created.timetuple())


def creation_order(record):
    """Sort key of the winner rule among resources that carry the same name: the oldest
    ``created_at`` first, then the smallest id. Every run computes the same order from the same
    records, so concurrent runs agree on which one is kept without talking to each other.
    Records without a creation time (SSH keys) keep the API's list order, which is the order
    they were made in, so a resource made after another run's read always sorts after it."""
    created_at = record.get("created_at")
    if created_at is None:
        return (True, "", "")
    return (False, str(created_at), str(record.get("id")))


def is_not_found(error):
    return isinstance(error, ApiError) and error.status == 404


@contextmanager
def ignoring(*statuses):
    """Swallow an ``ApiError`` with one of these HTTP statuses: a 404 from a delete of something
    already gone, a 409 from an add already made, are the state that was wanted."""
    try:
        yield
    except ApiError as error:
        if error.status not in statuses:
            raise


def fetch_or_none(client, path):
    """GET one resource; None when the API answers 404."""
    with ignoring(404):
        return client.get_one(path)
    return None


def confirm_after_lost_response(error, took_effect):
    """Decide about an ``ApiError`` from a repeatable change (an action, a resize, a delete).

    When the first attempt's answer was lost and the repetition was refused, the refusal may
    come from the first attempt having worked (a resize to the size the volume now has, a
    delete of an instance already gone). ``took_effect()`` reads the resource and says whether
    the change is there; if it is, the error is swallowed, otherwise it is raised."""
    if getattr(error, "after_lost_response", False) and took_effect():
        return
    raise error


def refuse_differences(what, pairs, advice, option_prefix=""):
    """Fail naming every option whose desired value differs from the resource's although the API
    cannot change it, before any change is made. ``pairs`` maps an option to ``(desired,
    current)``; a desired value of None (option not given) never differs. The result carries
    both values of each under ``immutable``; the message names the options after
    ``option_prefix`` (the option they are suboptions of, such as ``template.``)."""
    differing = dict(
        (option, {"desired": desired, "current": current})
        for option, (desired, current) in pairs.items()
        if desired is not None and desired != current
    )
    if differing:
        options = ", ".join(option_prefix + option for option in sorted(differing))
        raise ModuleFailure(f"cannot change {options} of existing {what}: {advice}", immutable=differing)


class References:
    """Ids of one kind of resource for references given by id or by name, as every module
    accepts names wherever the API wants an id.

    ``known`` records (e.g. the instances a volume is attached to) are searched first, so that
    the common no-change run costs no call; ``list_all()`` is called at most once, and only for
    a reference that ``known`` cannot answer. A name must match exactly one record
    (``name_field``); several are ambiguous and need the id. ``scope`` says where the records
    were looked for when ``list_all`` returns only some (e.g. " in FIN-01").
    """

    def __init__(self, what, list_all, name_field="name", known=(), scope=""):
        self.what = what
        self.list_all = list_all
        self.name_field = name_field
        self.known = [record for record in known if record]
        self.scope = scope

    @functools.cached_property
    def listed(self):
        return self.list_all() or []

    def _match(self, records, reference):
        by_id = next((record for record in records if record.get("id") == reference), None)
        named = [record for record in records if record.get(self.name_field) == reference]
        return by_id or pick_one(named, self.what, reference)

    def record(self, reference):
        """The record named by ``reference`` (id or name); ModuleFailure when there is none."""
        found = self._match(self.known, reference) or self._match(self.listed, reference)
        if found is None:
            raise ModuleFailure(f"{self.what} {reference!r} not found{self.scope}")
        return found

    def id(self, reference):
        """The id for ``reference``. An id is taken as it is, without a call: the API checks it."""
        if looks_like_id(reference):
            return reference
        return self.record(reference)["id"]

    def ids(self, references):
        """Ids for a list of references, in order and without duplicates."""
        return list(dict.fromkeys(self.id(reference) for reference in references or []))


class Step:
    """One change of a plan. ``apply(resource)`` makes it, within the task's wait budget, and
    returns the resource as it is afterwards (None once it is gone); ``predict(resource)``
    returns what ``apply`` would leave without any request, for check mode and ``--diff``.
    ``name`` says what the step does (``create``, ``resize``, ``attach``...). A step that only
    waits or reads (``changes=False``) is no change of its own: a plan of such steps alone
    reports ``changed: false``, unless its ``apply`` finds it had to act after all and sets
    ``changes``."""

    def __init__(self, name, apply, predict, changes=True):
        self.name = name
        self.apply = apply
        self.predict = predict
        self.changes = changes

    def __repr__(self):
        return f"Step({self.name!r})"


def predict_all(steps, resource):
    """What applying ``steps`` in order would leave of ``resource``, without any request."""
    for step in steps:
        resource = step.predict(resource)
    return resource


class Field:
    """One module option and the API field it maps to.

    ``normalize`` turns both the desired and the current value into comparable form;
    ``on_change`` says what a difference means (UPDATE, REPLACE or IMMUTABLE).
    """

    def __init__(self, option, api=None, normalize=None, on_change=UPDATE):
        self.option = option
        self.api = api or option
        self.normalize = normalize or (lambda value: value)
        self.on_change = on_change


class Resource:
    """Declarative base for a resource module. Subclasses set the class attributes and
    override a hook only where their API differs from the common pattern."""

    key = None  # result key and singular name, e.g. "ssh_key"
    path = None  # collection path, e.g. "/ssh-keys"
    id_field = "id"  # the field (and option) that names one resource in its path: "name" for named ones
    id_kind = ID  # what its values must be (a kind of ``path_value``)
    name_field = "name"  # the API field that names a resource
    name_option = "name"  # the module option that carries it
    fields = ()  # Field declarations (the name field included when it is one)
    update_method = None  # "PATCH" when the API updates in place
    gone_states = ("absent",)  # states a missing resource already satisfies
    going_away = ()  # statuses of a resource being removed: it no longer holds its name
    required_to_create = ()  # options without which a task that may create one is refused

    def __init__(self, module):
        self.noun = self.key.replace("_", " ")
        self.module = module
        self.params = module.params
        self.client = module.client
        self.budget = WaitBudget(self.client, self.params.get("wait_timeout") or 0)
        self._create_lock = None

    # --------------------------------------------------------------------------- lookups

    def fetch(self, resource_id):
        """The resource with this id, or None when the API says 404."""
        return fetch_or_none(self.client, self.item_path(resource_id))

    def item_path(self, resource_id, *suffix):
        """The path of one resource (and what is under it): the id checked and encoded."""
        return api_path(self.path, path_value(resource_id, self.id_field, self.id_kind), *suffix)

    def list_named(self, name):
        """Resources that may carry this name (filtered exactly by ``find_by_name``)."""
        return self.client.get_list(self.path)

    def carrying(self, name):
        """Every resource carrying ``name``, read afresh (one call)."""
        return [item for item in self.list_named(name) if item.get(self.name_field) == name]

    def find_by_name(self, name, exclude_id=None):
        return pick_one([item for item in self.carrying(name) if item.get("id") != exclude_id], self.noun, name)

    def find(self):
        """The existing resource named by the module's identity (``id``, else the name).

        An ``id`` that does not exist is a failure for ``state=present`` (we never create
        something under an id we did not choose) and simply absent for ``gone_states``."""
        resource_id = self.params.get("id")
        if resource_id:
            found = self.fetch(resource_id)
            if found is None and self.params.get("state") not in self.gone_states:
                raise ModuleFailure(
                    f"{self.noun} {resource_id} does not exist; omit id to create one by {self.name_option}"
                )
            return found
        name = self.params.get(self.name_option)
        if not name:
            raise ModuleFailure(f"one of id or {self.name_option} is required")
        if self.params.get("state") not in self.gone_states:
            self.hold_create_lock(name)
        found = self.find_settled(name)
        if found is not None and found.get("status") not in self.going_away:
            self.release_create_lock()  # nothing to create: the other tasks need not wait for this one
        return found

    # ------------------------------------------------------------------ concurrent creates

    def hold_create_lock(self, name):
        """Before looking ``name`` up for a possible create: wait until no other task on this
        machine is between the same lookup and its create, and hold the lock until our own
        create is confirmed (``create_unique``), never through the wait that follows. The wait
        for the lock is bounded by the task's budget. Check mode creates nothing and takes no
        lock."""
        if not self.module.check_mode and self._create_lock is None:
            self._create_lock = hold_create_lock(self.client, self.key, name, self.create_lock_wait())

    def create_lock_wait(self):
        """Seconds this task may wait for another task's create of the same name."""
        if "wait_timeout" not in self.params:
            return CREATE_LOCK_WAIT_WITHOUT_TIMEOUT
        return max(self.budget.remaining(), CREATE_LOCK_WAIT)

    def release_create_lock(self):
        if self._create_lock is not None:
            self._create_lock.release()

    def find_settled(self, name):
        """``find_by_name``, waiting while several resources carry the name only because
        concurrent runs created them moments ago and the losers are deleting theirs. Older
        duplicates, which no run is settling, are ambiguous at once; duplicates whose age the
        API does not tell (SSH keys) are given the settling wait first."""
        interval = FIRST_POLL_INTERVAL
        deadline = self.budget.clock() + max(self.budget.remaining(), SETTLE_WAIT)
        while True:
            try:
                return self.find_by_name(name)
            except AmbiguousName as ambiguity:
                now = time.time()
                ages = [age_in_seconds(record, now) for record in ambiguity.candidates]
                left = deadline - self.budget.clock()
                # a record without its creation time (an SSH key) may be young as well
                if any(age is not None and age > SETTLE_WINDOW for age in ages) or left <= 0:
                    raise
                interval = self.budget.pause(interval, left)

    def create_unique(self, path, body, exclude_id=None, **create_options):
        """``client.create()`` the resource ``body`` names, making sure the name ends up carried
        once; return the id of the resource to converge (``exclude_id``: one being replaced).

        On one machine the create lock keeps concurrent tasks apart; tasks on several machines
        (two execution nodes, a laptop and CI) can still both find nothing and both create. So
        the name is read once more after the create: when more than one live resource carries
        it, the winner rule (``creation_order``) picks the same one in every run, and a run that
        lost deletes what it created (``discard_created``) and adopts the winner, with a
        warning naming both ids. A lost create response is resolved by the same read."""
        name = body.get(self.name_field)
        recovered = []

        def carrying_name():
            """Every live resource carrying the name but the one replaced, read afresh, the winner first."""
            live = [item for item in self.carrying(name) if item.get("status") not in self.going_away]
            return sorted((item for item in live if item.get("id") != exclude_id), key=creation_order)

        def oldest_after_lost_response():
            same = carrying_name()
            recovered[:] = same[:1]
            return same[0] if same else None

        try:
            created_id = self.client.create(path, body, find_existing=oldest_after_lost_response, **create_options)
            same = carrying_name()
            if len(same) < 2:
                return created_id
            winner, losers = same[0]["id"], [item["id"] for item in same[1:]]
            if created_id in losers:
                discarded = [created_id]
            elif recovered:
                # Which one this task made is unknown. The lookup before the create found none,
                # so every other one was made by a concurrent run, which deletes it as a loser too.
                discarded = losers
            else:
                return created_id
            for loser in discarded:
                self.discard_created(loser, body)
            self.module.warn(
                f"another run created {self.noun} {name!r} at the same time: this task deleted {', '.join(discarded)}, "
                f"which it had just created, and adopted {winner}, the oldest, which every run keeps"
            )
            return winner
        finally:
            self.release_create_lock()

    def discard_created(self, created_id, body):
        """Delete what this task created under a name another run's resource already holds."""
        self.delete({"id": created_id})

    # ---------------------------------------------------------------------- desired state

    def given(self):
        """[(Field, desired value)] for every field whose option the user set."""
        return [
            (field, self.params[field.option]) for field in self.fields if self.params.get(field.option) is not None
        ]

    def desired(self):
        """API field -> desired value, for every option the user set."""
        return {field.api: wanted for field, wanted in self.given()}

    def changes(self, current):
        """Fields whose desired value differs from the current one: [(Field, desired)]."""
        return [
            (field, wanted)
            for field, wanted in self.given()
            if field.normalize(wanted) != field.normalize(current.get(field.api))
        ]

    def validate(self):
        """Reject input that can be rejected locally, before any API call: here, a task that
        may have to create the resource (``state=present`` without ``id``) but lacks an option
        of ``required_to_create``. A module with more to check extends it."""
        if self.params.get("state") in self.gone_states or self.params.get("id"):
            return
        missing = [option for option in self.required_to_create if self.params.get(option) is None]
        if missing:
            state = self.params.get("state")
            raise ModuleFailure(f"state={state} needs {' and '.join(missing)} to create a new {self.noun}")

    def view(self, resource):
        """The part of a resource shown in ``--diff``: its id and the declared fields."""
        if not resource:
            return {}
        return dict({field.api: resource.get(field.api) for field in self.fields}, id=resource.get("id"))

    # --------------------------------------------------------------------------- actions

    def create(self, template=None, exclude_id=None):
        """Create the resource from the desired fields (over ``template``'s, when replacing).

        ``exclude_id`` is the resource being replaced, which keeps its name meanwhile."""
        body = dict((field.api, template.get(field.api)) for field in self.fields) if template else {}
        body.update(self.desired())
        return self.fetch(self.create_unique(self.path, body, exclude_id=exclude_id))

    def update(self, current, changes):
        body = dict((field.api, value) for field, value in changes)
        self.client.request(self.update_method, self.item_path(current["id"]), json_body=body)
        return self.fetch(current["id"])

    def delete(self, current):
        with ignoring(404):  # gone meanwhile: that is what we wanted
            self.client.delete(self.item_path(current[self.id_field]), params=self.delete_query())

    def delete_query(self):
        """Query parameters of the delete request: none, unless the API's delete takes some (how
        long it waits server-side, say)."""
        return None

    def replace(self, current):
        """Create the new resource first, then delete the old one, so that nothing that
        refers to the resource by name is ever left without one."""
        created = self.create(template=current, exclude_id=current["id"])
        self.delete(current)
        return created

    # ------------------------------------------------------------------------ the plan

    def predicted(self, current=None):
        """What a real run would leave behind, for check mode."""
        resource = dict(current or {})
        if current is None or any(field.on_change == REPLACE for field, _value in self.changes(current)):
            resource["id"] = None
        resource.update(self.desired())
        return resource

    def plan(self, current):
        """The steps from ``current`` (None: there is no such resource) to what the options ask.
        An empty plan changes nothing. Modules with more to do (power, attachments, nodes) add
        their own steps here."""
        if self.params.get("state") in self.gone_states:
            return [] if current is None else [self.deletion()]
        if current is None:
            return [Step("create", lambda _nothing: self.create(), self.predicted)]
        return self.field_changes(current)

    def field_changes(self, current):
        """The step that brings the declared fields of ``current`` to their desired values: an
        update where the API changes them in place, else a replacement; none when they agree."""
        changes = self.changes(current)
        if not changes:
            return []
        immutable = [field.option for field, _value in changes if field.on_change == IMMUTABLE]
        if immutable:
            raise ModuleFailure(
                f"cannot change {', '.join(immutable)} of existing {self.noun} {current.get('id')} (immutable); "
                "delete and recreate it instead"
            )
        if any(field.on_change == REPLACE for field, _value in changes) or not self.update_method:
            return [Step("replace", self.replace, self.predicted)]
        return [Step("update", lambda resource: self.update(resource, changes), self.predicted)]

    def deletion(self):
        return Step("delete", self.delete, lambda _resource: None)

    def tag_step(self, to_add, to_remove):
        """The step that adds and removes tags (``_tags.tag_changes``) under the resource's
        ``tags`` path. It leaves the resource as predicted: ``read_back()`` reads it afterwards.

        It removes first, so a changed value never collides with the old tag. Both are safe to
        repeat: when a lost response hid a remove or an add that worked, the repetition answers
        404 (already removed) or 409 (already added), which is the state wanted."""

        def predict(resource):
            return dict(resource, tags=predicted_tags(resource, to_add, to_remove))

        def apply(resource):
            tags_path = self.item_path(resource["id"], "tags")
            for tag in to_remove:
                with ignoring(404):
                    self.client.delete(
                        api_path(tags_path, path_value(tag.get("id") or tag["key"], "tag id or key", KEY))
                    )
            for key, value in sorted(to_add.items()):
                with ignoring(409):
                    self.client.post(tags_path, {"key": key, "value": value}, idempotent=True)
            return predict(resource)

        return Step("tag", apply, predict)

    def read_back(self):
        """The last step of a plan whose steps leave the resource as predicted rather than read:
        one GET of the resource as it is now."""
        return Step("read", lambda resource: self.fetch(resource["id"]), lambda resource: resource, changes=False)

    # ------------------------------------------------------------------ carrying it out

    def carry_out(self, current, steps):
        """Apply the steps in order (each gets the resource the previous one left), or in check
        mode let each predict its result; either way the result compares before and after."""
        after = current
        for step in steps:
            after = step.predict(after) if self.module.check_mode else step.apply(after)
        return self.result(any(step.changes for step in steps), current, after)

    def result(self, changed, before, after):
        result = dict(self.returned(after), changed=changed)
        if self.module._diff:
            result["diff"] = self.diff(before, after)
        return result

    def returned(self, after):
        """What the result carries of the resource: itself under ``key`` ({} once it is gone),
        its tags as ``{key: value}`` and their ids as ``tag_ids``."""
        return {self.key: shown_tags(after) if after else {}}

    def diff(self, before, after):
        return {"before": self.view(before), "after": self.view(after)}

    def converge(self):
        self.validate()
        current = self.find()
        return self.carry_out(current, self.plan(current))

    def run(self):
        """Validate, plan, apply (or predict) and exit the module."""
        self.module.exit_json(**self.module.run(self.converge))
