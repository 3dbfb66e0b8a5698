# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the serverless deployment modules (container_deployment, job_deployment) share.

Deployments are named, not numbered: the name is the identity and the path
(``/container-deployments/<name>``); the API's records carry no id. Their status is read
separately (``.../status``). A run plans every change first (create or update, then pause,
resume, restart or purge), so check mode predicts from the same plan the real run carries out.

Desired containers are compared with the live ones option by option: an option left out is
left as it is (and kept as it is by an update, which sends whole top-level fields because the
API's PATCH replaces the fields it is given). Lists (``env``, ``volume_mounts``, ``entrypoint``,
``cmd``) are compared as wholes; ``env`` regardless of order.
"""

import copy
import re

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import (
    NAME,
    ApiError,
    api_path,
    path_value,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import exit_info, field_value, hinted
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import (
    WAIT_ARGUMENT_SPEC,
    CloudComputeModule,
    ModuleFailure,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import (
    References,
    Resource,
    Step,
    fetch_or_none,
    ignoring,
)

NAME_PATTERN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
MAX_NAME_LENGTH = 63
ENV_NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_DELETE_TIMEOUT_MS = 300000
# A DELETE that waits server-side must answer before the HTTP request times out.
DELETE_TIMEOUT_MARGIN_SECONDS = 5
MOUNT_TYPES = ["scratch", "secret", "shared", "memory"]
# The container runtime contract: a container serves HTTP on this port, and answers its health check here.
DEFAULT_EXPOSED_PORT = 8000
DEFAULT_HEALTHCHECK_PATH = "/health"
DEFAULT_MOUNT_PATH = {"scratch": "/data", "shared": "/data", "memory": "/dev/shm"}


# ------------------------------------------------------------------------------ local checks


def check_values(values, checks, where=""):
    """Refuse the first value that fails its check. ``checks``: (dotted path of the value in
    ``values``, None for ``values`` itself; test; message with ``{where}`` and ``{value}``); an
    unset value is not checked."""
    for path, test, message in checks:
        value = field_value(values, path)
        if value is not None and not test(value):
            raise ModuleFailure(message.format(where=where, value=value))


def at_least(minimum):
    return lambda value: value >= minimum


def is_port(value):
    return 1 <= value <= 65535


def is_absolute(path):
    return path.startswith("/")


def is_dns_label(name):
    return bool(NAME_PATTERN.match(name)) and len(name) <= MAX_NAME_LENGTH


def names_its_secret(mount):
    return mount["type"] != "secret" or bool(mount.get("secret_name") and mount.get("mount_path"))


def volume_if_shared(mount):
    return not mount.get("volume") or mount["type"] == "shared"


def has_duplicates(values):
    return len(set(values)) != len(values)


def mount_path(mount):
    return mount.get("mount_path") or DEFAULT_MOUNT_PATH.get(mount["type"])


CONTAINER_CHECKS = (
    # an empty name is no name: the API names the container
    (
        "name",
        lambda name: not name or is_dns_label(name),
        "{where}.name: {value!r} is not a DNS label (lowercase letters, digits and '-', at most 63)",
    ),
    ("exposed_port", is_port, "{where}.exposed_port: {value} is not a port (1-65535)"),
    ("healthcheck.port", is_port, "{where}.healthcheck.port: {value} is not a port (1-65535)"),
    ("healthcheck.path", is_absolute, "{where}.healthcheck.path: {value!r} must start with /"),
)
MOUNT_CHECKS = (
    ("mount_path", is_absolute, "{where}.mount_path: {value!r} must be an absolute path"),
    (None, names_its_secret, "{where}: a secret mount needs secret_name and mount_path"),
    (None, volume_if_shared, "{where}.volume: only a shared mount names a volume"),
    ("size_in_mb", at_least(1), "{where}.size_in_mb: must be at least 1"),
)
# The options of every deployment checked before any request (a module adds its own).
DEPLOYMENT_CHECKS = (
    ("compute.size", at_least(1), "compute.size: must be at least 1"),
    (
        "delete_timeout",
        lambda timeout: 0 <= timeout <= MAX_DELETE_TIMEOUT_MS,
        f"delete_timeout: {{value}} is out of range (0 to {MAX_DELETE_TIMEOUT_MS} milliseconds)",
    ),
)

# ------------------------------------------------------------------------------ argument specs


def suboptions(**options):
    """A dict option of these suboptions."""
    return dict(type="dict", options=options)


def list_of(**options):
    """A list option whose items are dicts of these suboptions."""
    return dict(type="list", elements="dict", options=options)


CONTAINER_OPTIONS = dict(
    name=dict(type="str"),
    image=dict(type="str", required=True),
    exposed_port=dict(type="int"),
    healthcheck=suboptions(
        enabled=dict(type="bool"),
        port=dict(type="int"),
        path=dict(type="str"),
    ),
    entrypoint_overrides=suboptions(
        enabled=dict(type="bool"),
        entrypoint=dict(type="list", elements="str"),
        cmd=dict(type="list", elements="str"),
    ),
    env=list_of(
        name=dict(type="str", required=True),
        value=dict(type="str", required=True, no_log=False),
        type=dict(type="str", choices=["plain", "secret"], default="plain"),
    ),
    volume_mounts=list_of(
        type=dict(type="str", required=True, choices=MOUNT_TYPES),
        mount_path=dict(type="str"),
        secret_name=dict(type="str", no_log=False),
        volume=dict(type="str", aliases=["volume_id"]),
        size_in_mb=dict(type="int"),
    ),
)


def deployment_argument_spec(**options):
    """The options of a deployment module: those container and job deployments have in common,
    waiting, and the module's own ``options``."""
    return dict(
        name=dict(type="str", required=True),
        containers=list_of(**CONTAINER_OPTIONS),
        compute=suboptions(name=dict(type="str", required=True), size=dict(type="int", required=True)),
        container_registry_settings=dict(
            suboptions(is_private=dict(type="bool", required=True), credentials=dict(type="str", no_log=False)),
            aliases=["registry"],
            required_if=[("is_private", True, ("credentials",))],
        ),
        delete_timeout=dict(type="int"),
        purge_queue=dict(type="bool", default=False),
        **options,
        **WAIT_ARGUMENT_SPEC,
    )


# --------------------------------------------------------------------- comparing and merging


def prune(value):
    """``value`` without the unset (None) members of its dicts, at every depth."""
    if isinstance(value, dict):
        return dict((key, prune(item)) for key, item in value.items() if item is not None)
    if isinstance(value, list):
        return [prune(item) for item in value]
    return value


def covers(current, desired):
    """Whether ``current`` already is what ``desired`` asks for: every member of ``desired``
    that is set equals the current one; lists must match item by item."""
    if desired is None:
        return True
    if isinstance(desired, dict):
        current = current if isinstance(current, dict) else {}
        return all(covers(current.get(key), value) for key, value in desired.items())
    if isinstance(desired, list):
        same_length = isinstance(current, list) and len(current) == len(desired)
        return same_length and all(covers(have, want) for have, want in zip(current, desired))
    return desired == current


def overlay(base, top):
    """``base`` with the set members of ``top`` over it; dicts merge, lists and scalars replace."""
    if not isinstance(top, dict) or not isinstance(base, dict):
        return copy.deepcopy(base) if top is None else prune(top)
    merged = copy.deepcopy(base)
    for key, value in top.items():
        if value is not None:
            merged[key] = overlay(merged.get(key), value)
    return merged


def whole_numbers(value):
    """``value`` with integral floats as integers, at every depth: the API answers ``90`` or
    ``90.0`` for the same threshold, which must not look like a change in ``--diff``."""
    if isinstance(value, dict):
        return dict((key, whole_numbers(item)) for key, item in value.items())
    if isinstance(value, list):
        return [whole_numbers(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def image_name(image):
    """The API answers ``containers[].image`` as ``{image, last_updated_at}``; we send a string."""
    return image.get("image") if isinstance(image, dict) else image


def container_input(container):
    """A container as the API returns it, in the form the API takes (image as a string)."""
    result = copy.deepcopy(container)
    result["image"] = image_name(container.get("image"))
    result["volume_mounts"] = [prune(mount) for mount in container.get("volume_mounts") or []]
    return result


def comparable(container):
    """A container (desired or current) in the form both are compared in: ``env`` in name order."""
    if container.get("env") is None:
        return container
    return dict(container, env=sorted(container["env"], key=lambda variable: variable.get("name") or ""))


# ----------------------------------------------------------------------------- the containers
# The ``containers`` option: checked, turned into the API's form, compared with the live
# containers, merged into an update, and predicted for check mode.


def check_containers(containers):
    if has_duplicates([container["name"] for container in containers if container.get("name")]):
        raise ModuleFailure("containers: two containers have the same name")
    for index, container in enumerate(containers):
        where = f"containers[{index}]"
        check_values(container, CONTAINER_CHECKS, where)
        env_names = [variable["name"] for variable in container.get("env") or []]
        for name in env_names:
            if not ENV_NAME_PATTERN.match(name):
                raise ModuleFailure(
                    f"{where}.env: {name!r} is not a variable name (letters, digits and _, not starting with a digit)"
                )
        duplicate = next((name for name in env_names if env_names.count(name) > 1), None)
        if duplicate:
            raise ModuleFailure(f"{where}.env: variable {duplicate} is given more than once")
        mounts = container.get("volume_mounts") or []
        for number, mount in enumerate(mounts):
            check_values(mount, MOUNT_CHECKS, f"{where}.volume_mounts[{number}]")
        if has_duplicates([mount_path(mount) for mount in mounts]):
            raise ModuleFailure(f"{where}.volume_mounts: two mounts at the same path")


def desired_container(container, volumes):
    """A ``containers`` item in the API's form, unset members None (left as they are); a volume
    is named or given by its id (``volumes``: the ``References`` that turn names into ids)."""
    # the container's options are the API's fields, but for the form of variables and mounts
    desired = dict(container)
    overrides = container.get("entrypoint_overrides") or {}
    given = overrides.get("entrypoint") is not None or overrides.get("cmd") is not None
    if overrides.get("enabled") is None and given:
        desired["entrypoint_overrides"] = dict(overrides, enabled=True)  # giving one means using it
    if container.get("env") is not None:
        desired["env"] = [
            {"type": variable["type"], "name": variable["name"], "value_or_reference_to_secret": variable["value"]}
            for variable in container["env"]
        ]
    if container.get("volume_mounts") is not None:
        desired["volume_mounts"] = [
            {
                "type": mount["type"],
                "mount_path": mount_path(mount),
                "secret_name": mount.get("secret_name"),
                # an id is taken as it is (the API checks it)
                "volume_id": volumes.id(mount["volume"]) if mount.get("volume") else mount.get("volume"),
                "size_in_mb": mount.get("size_in_mb"),
            }
            for mount in container["volume_mounts"]
        ]
    return desired


def containers_differ(desired, current):
    """Whether the live containers differ from the desired ones (matched by position)."""
    return not covers(
        [comparable(container_input(container)) for container in current or []], [comparable(want) for want in desired]
    )


def merged_containers(desired, current):
    """The ``containers`` of an update: each desired container over the live one at its
    position, so that what was left out stays as it is."""
    current = [container_input(container) for container in current or []]
    return [overlay(current[index] if index < len(current) else {}, want) for index, want in enumerate(desired)]


def predicted_containers(sent, current=None):
    """The containers the API will answer for the ``sent`` ones, as far as the module knows its
    defaults; an image keeps its ``last_updated_at`` when it did not change."""
    before = dict((container.get("name"), container) for container in current or [])
    views = []
    for index, container in enumerate(sent):
        defaults = {
            "name": f"container-{index + 1}",
            "exposed_port": DEFAULT_EXPOSED_PORT,
            "entrypoint_overrides": {"enabled": False, "entrypoint": [], "cmd": []},
            "env": [],
            "volume_mounts": [],
        }
        view = overlay(defaults, container)
        view["healthcheck"] = overlay(
            {"enabled": True, "port": view["exposed_port"], "path": DEFAULT_HEALTHCHECK_PATH},
            container.get("healthcheck"),
        )
        old_image = (before.get(view["name"]) or {}).get("image")
        kept = old_image if isinstance(old_image, dict) and old_image.get("image") == container["image"] else {}
        view["image"] = {"image": container["image"], "last_updated_at": kept.get("last_updated_at")}
        views.append(view)
    return views


def registry_body(settings):
    """``container_registry_settings`` as the API takes and returns it."""
    if settings is None:
        return None
    private = settings["is_private"]
    return {"is_private": private, "credentials": {"name": settings["credentials"]} if private else None}


def check_name(name):
    if not is_dns_label(name or ""):
        raise ModuleFailure(
            f"name: {name!r} is not a DNS label (lowercase letters, digits and '-', starting and ending "
            "with a letter or digit, at most 63)"
        )


# ---------------------------------------------------------------------------- the deployment


def no_capacity_hints(body):
    """A 503 to a request with ``compute`` means no capacity for it: an answer, not an outage
    (hints by status, for ``hinted``)."""
    compute = body.get("compute")
    label = f"{compute.get('name')} x{compute.get('size')}" if compute else "(the template's recommended one)"
    return {503: f"No capacity for the serverless compute {label}: choose another GPU model or size, or retry later"}


def status_of(body):
    """The status in the answer of a deployment's ``.../status`` (an object, or the bare status)."""
    return body.get("status") if isinstance(body, dict) else body


class Deployment(Resource):
    """A serverless deployment module on the engine. The name is the identity and the path; a
    deployment is read with its status, and planned as its create or update, then the actions
    its state asks for (pause, resume, restart, purge the queue), then settling: its status read
    afresh and, with ``wait``, waited for until it runs (or is paused).

    Subclasses set the class attributes below and extend ``state_actions``, ``validate``,
    ``creation``, ``desired_fields`` and ``field_changes`` where their API has more (restart,
    the queue, templates, spot)."""

    id_field = "name"
    id_kind = NAME
    running_status = None
    # statuses a deployment leaves by itself on its way to running
    starting_statuses = ()
    # the status right after a resume or restart, and right after an update that rolls out a
    # new version
    restart_status = None
    rollout_status = None
    # the status of a new deployment
    created_status = None
    # how else a deployment can be created, for the message when options are missing
    create_alternative = ""
    # the status a deployment shows while it is being deleted (none: it is hidden at once)
    going_away = ()
    # top-level fields whose change rolls out a new version (the deployment restarts; none: an
    # update does not change the status)
    new_version_fields = ()
    # (option path, test, message) of the options refused before any request
    checks = DEPLOYMENT_CHECKS

    def __init__(self, module):
        super().__init__(module)
        self.name = self.params["name"]
        self.volumes = References("volume", lambda: self.client.get_list("/volumes"))

    # ------------------------------------------------------------------ validation

    def validate(self):
        if self.params["purge_queue"] and self.params["state"] == "absent":
            raise ModuleFailure("purge_queue does not apply to state=absent (deleting drops the queue)")
        check_name(self.name)
        check_containers(self.params["containers"] or [])
        check_values(self.params, self.checks)
        timeout = self.params.get("delete_timeout")
        limit = (self.params["request_timeout"] - DELETE_TIMEOUT_MARGIN_SECONDS) * 1000
        if timeout is not None and timeout > limit:
            needed = timeout / 1000.0 + DELETE_TIMEOUT_MARGIN_SECONDS
            raise ModuleFailure(
                "delete_timeout: {} ms would outlast the HTTP request (request_timeout {}s); raise "
                "request_timeout to more than {} s".format(timeout, self.params["request_timeout"], needed)
            )

    # ------------------------------------------------------------------------ reads

    def read_status(self):
        """The deployment's status; None when it is gone."""
        with ignoring(404):
            return status_of(self.client.get(self.item_path(self.name, "status")))
        return None

    def find(self):
        """The deployment with its status; None when there is none. One being deleted still holds
        its name: a run that wants the deployment waits until it is gone (with ``wait``, and not
        in check mode, which cannot wait) and then creates it afresh."""
        wanted = self.params["state"] not in self.gone_states
        if wanted:
            # the API refuses a second deployment of a name: the lock spares a concurrent
            # task on this machine that refusal (released once the create is confirmed)
            self.hold_create_lock(self.name)
        current = self.fetch(self.name)
        if current is None:
            return None
        current = dict(current, status=self.read_status())
        if current["status"] not in self.going_away:
            self.release_create_lock()  # nothing to create: the other tasks need not wait for this one
        if wanted and current["status"] in self.going_away:
            if not self.params["wait"] or self.module.check_mode:
                raise ModuleFailure(
                    f"{self.noun} {self.name} is being deleted (status {current['status']}); run again once it is "
                    "gone, or set wait: true"
                )
            self.wait_status(None)
            return None
        return current

    def wait_status(self, wanted):
        """Wait until the deployment's status is ``wanted`` (None: until it is gone)."""
        return self.budget.until(
            self.read_status,
            lambda status: status == wanted,
            f"{self.noun} {self.name} to be {wanted or 'deleted'}",
            failed=lambda status: "it disappeared" if wanted and status is None else None,
            describe=lambda status: status,
        )

    # ------------------------------------------------------------------------ the plan

    def plan(self, current):
        if self.params["state"] in self.gone_states:
            if current is not None and current.get("status") in self.going_away:
                # already being deleted by someone else: only wait for it
                return [Step("wait until deleted", self.wait_deleted, lambda _deployment: None, changes=False)]
            return super().plan(current)
        steps = [self.creation()] if current is None else self.field_changes(current)
        paused = current is not None and current.get("status") == "paused"
        steps.extend(self.action(name) for name in self.state_actions(paused, current is None))
        if steps:
            return steps + [Step("settle", self.settle, self.predicted_settled, changes=False)]
        if self.params["wait"] and current.get("status") in self.starting_statuses:
            return [Step("wait until running", self.settle, lambda deployment: deployment, changes=False)]
        return []

    def state_actions(self, paused, created):
        """Actions (``purge-queue``, ``pause``, ``resume``; a module adds ``restart``) the state
        asks of the deployment (``paused``: it is paused now; ``created``: this run creates it).
        Every state but ``paused`` brings a paused deployment back up. The purge comes first, so
        nothing queued starts on a resume; a deployment this run creates has no queue yet."""
        purge = ["purge-queue"] if self.params["purge_queue"] and not created else []
        if self.params["state"] == "paused":
            return purge + ([] if paused else ["pause"])
        return purge + (["resume"] if paused else [])

    def result(self, changed, before, after):
        purged = self.params["purge_queue"] and before is not None  # validate refuses it with state=absent
        return dict(super().result(changed, before, after), queue_purged=bool(purged))

    def desired_fields(self, current):
        """The top-level fields but ``containers`` as the options set them (None: left as they
        are) over ``current``'s (None when creating). The API's PATCH replaces a field whole, so
        ``scaling``, of which the options may set only a part, keeps its other members."""
        scaling = self.params["scaling"]
        return {
            "compute": self.params["compute"],
            "scaling": overlay((current or {}).get("scaling") or {}, scaling) if scaling else None,
            "container_registry_settings": registry_body(self.params["container_registry_settings"]),
        }

    def desired_containers(self):
        return [desired_container(container, self.volumes) for container in self.params["containers"] or []]

    # ----------------------------------------------------------------------- create

    def creation(self):
        """The create step (refused when options it needs are missing)."""
        missing = " and ".join(option for option in ("containers", "compute") if not self.params[option])
        if missing:
            raise ModuleFailure(
                f"{self.noun} {self.name} does not exist; to create it, give {missing}{self.create_alternative}"
            )
        body = prune(dict(self.desired_fields(None), name=self.name, containers=self.desired_containers()))
        return self.create_step(self.path, body, self.predicted_create)

    def create_step(self, path, body, predict):
        """The step that creates the deployment: ``body`` sent to ``path``; ``predict(body)``: what it makes."""
        return Step("create", lambda _nothing: self.create_deployment(path, body), lambda _nothing: predict(body))

    def predicted_create(self, body):
        predicted = dict(body, status=self.created_status, endpoint_base_url=None, created_at=None)
        predicted["containers"] = predicted_containers(body["containers"])
        predicted.setdefault("scaling", {})  # the API's defaults are not known here
        predicted.setdefault("container_registry_settings", {"is_private": False, "credentials": None})
        return predicted

    def create_deployment(self, path, body):
        """Create; a name still held by a deployment being deleted is waited for when waiting.
        The create lock is released once the create is confirmed, before any wait for the
        deployment to be healthy."""
        try:
            return self.budget.until(
                lambda: self.try_create(path, body),
                lambda created: created is not None,
                f"the name {self.name} to be free (a {self.noun} of that name is being deleted)",
            )
        finally:
            self.release_create_lock()

    def try_create(self, path, body):
        """One create: the new deployment, or the one another run created meanwhile; None when the
        name is still held by a deployment being deleted and waiting is allowed."""
        try:
            # a 503 here means no capacity for the compute: an answer, not an outage to retry
            with hinted(no_capacity_hints(body)):
                return self.client.create(
                    path,
                    body,
                    find_existing=lambda: self.fetch(self.name),
                    returns_resource=True,
                    retry_unavailable=False,
                )
        except ApiError as error:
            if error.status != 409:
                raise
            created_meanwhile = self.fetch(self.name)
            if created_meanwhile is not None:
                # another run (on another machine) created it since our lookup: adopt it
                self.module.warn(f"another run created {self.noun} {self.name} at the same time: this task adopted it")
                return created_meanwhile
            if not self.params["wait"]:
                raise error.with_hint(
                    f"A {self.noun} of this name may still be being deleted: retry in a moment, "
                    "or set wait: true to wait for it"
                )
            return None  # the name is held by a deployment being deleted: try again

    # ----------------------------------------------------------------------- update

    def field_changes(self, current):
        """The update step: one PATCH of the fields that differ, each whole; none when all agree."""
        body = {
            field: wanted
            for field, wanted in self.desired_fields(current).items()
            if wanted is not None and not covers(current.get(field), wanted)
        }
        if self.params["containers"]:
            desired = self.desired_containers()
            if containers_differ(desired, current.get("containers")):
                body["containers"] = merged_containers(desired, current.get("containers"))
        if not body:
            return []
        return [
            Step(
                "update",
                lambda _deployment: self.update_deployment(body),
                lambda deployment: self.predicted_update(deployment, body),
            )
        ]

    def predicted_update(self, current, body):
        predicted = copy.deepcopy(dict(current, **body))
        if "containers" in body:
            predicted["containers"] = predicted_containers(body["containers"], current.get("containers"))
        if current.get("status") != "paused" and any(field in body for field in self.new_version_fields):
            predicted["status"] = self.rollout_status
        return predicted

    def update_deployment(self, body):
        with hinted(no_capacity_hints(body) if "compute" in body else None):
            answer = self.client.request("PATCH", self.item_path(self.name), json_body=body, retry_unavailable=False)
        return dict(answer.body or self.fetch(self.name))

    # --------------------------------------------------------------- actions, settling

    def action(self, name):
        def send(deployment):
            # pause and resume change nothing when repeated; a repeated restart or purge only
            # restarts or purges again: each may be resent after a lost response
            self.client.post(self.item_path(self.name, name), idempotent=True)
            return deployment

        after = {"pause": "paused", "resume": self.restart_status, "restart": self.restart_status}
        return Step(name, send, lambda deployment: dict(deployment, status=after.get(name, deployment.get("status"))))

    def settle(self, deployment):
        """The status read afresh and, with ``wait``, waited for until it is the one the state asks for."""
        if not self.params["wait"]:
            return dict(deployment, status=self.read_status())
        target = "paused" if self.params["state"] == "paused" else self.running_status
        return dict(deployment, status=self.wait_status(target))

    def predicted_settled(self, deployment):
        if self.params["wait"] and deployment.get("status") != "paused":
            return dict(deployment, status=self.running_status)
        return deployment

    # ----------------------------------------------------------------------- delete

    def delete_query(self):
        """How long DELETE waits server-side: the option, else as long as waiting allows."""
        timeout = self.params.get("delete_timeout")
        if timeout is None and self.params["wait"]:
            limit = self.params["request_timeout"] - DELETE_TIMEOUT_MARGIN_SECONDS
            timeout = int(max(0, min(self.budget.remaining(), limit)) * 1000)
        return {"timeout": min(MAX_DELETE_TIMEOUT_MS, timeout or 0)}

    def delete(self, current):
        super().delete(current)
        self.wait_deleted(current)

    def wait_deleted(self, _current):
        if self.params["wait"] and self.going_away:
            self.wait_status(None)

    # ---------------------------------------------------------------------- results

    def view(self, resource):
        """What ``--diff`` shows: the top-level fields the options set, containers with their image
        as a string (integral floats as integers throughout)."""
        if not resource:
            return {}
        shown = {field: resource[field] for field in self.desired_fields(None) if field in resource}
        shown.update(
            name=resource.get("name"),
            status=resource.get("status"),
            containers=[comparable(container_input(container)) for container in resource.get("containers") or []],
        )
        return whole_numbers(shown)


# ------------------------------------------------------------------------------- info modules


def exit_deployment_info(key, path, parts):
    """The whole of container_deployment_info and job_deployment_info: the list (or the one
    named), each with its status, and its replicas when asked (``parts``: what ``include`` may
    ask for); exit with it under ``key``. A deployment that disappears while it is read is left out."""
    module = CloudComputeModule(
        argument_spec=dict(
            name=dict(type="str"),
            include=dict(type="list", elements="str", choices=parts, default=["status"]),
            status=dict(type="list", elements="str"),
        ),
    )
    params = module.params
    include = set(params["include"] or []) | ({"status"} if params["status"] else set())

    def with_parts(deployment):
        """The deployment with what ``include`` asks for; None when it is gone meanwhile, or not
        in a status asked for (its replicas are then not read)."""
        item_path = api_path(path, path_value(deployment.get("name"), "name the API returned", NAME))
        deployment = dict(deployment)
        with ignoring(404):
            if "status" in include:
                deployment["status"] = status_of(module.client.get(item_path + "/status"))
                if params["status"] and deployment["status"] not in params["status"]:
                    return None
            if "replicas" in include:
                replicas = module.client.get(item_path + "/replicas")
                deployment["replicas"] = replicas.get("list", []) if isinstance(replicas, dict) else (replicas or [])
            return deployment
        return None  # gone meanwhile

    def read_results():
        if params["name"]:
            found = fetch_or_none(module.client, api_path(path, path_value(params["name"], "name", NAME)))
            deployments = [found] if found else []
        else:
            deployments = module.client.get_list(path)
        return {key: [shown for shown in map(with_parts, deployments) if shown is not None]}

    exit_info(module, read_results)
