"""Serverless deployments: container and job deployment records, their views, the checks of
their containers/compute/scaling, and the container state machine.

Container deployment statuses move on the emulator clock:
create -> ``initializing`` -> ``image_pulling`` -> ``healthy``; a change of containers, compute,
registry, spot or environment -> ``version_updating`` -> ``healthy``; restart and resume ->
``initializing`` -> ``healthy``; pause -> ``paused`` at once. Each (re)start bumps the record's
``generation``, so the pending steps of an earlier one are skipped.

Job deployments are ``running`` or ``paused`` (pause/resume act at once) and ``terminating`` while
being deleted.

Deleting either kind takes ``deployment.deleting``; ``DELETE ...?timeout=ms`` waits for it: when the
wait covers it the deployment is gone when the call returns (204), otherwise the call returns at
once (202) and the deployment goes when the step completes. A container deployment being
deleted is hidden from reads at once (its status set has no "deleting"); a job shows
``terminating``. Either keeps its name until it is gone.

The caller's operations (create, patch, delete, restart, pause, resume, purge the queue, scaling,
environment variables) record their audit events here; the routes parse, call and render.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

from cloudcompute_emulator import catalog, kinds, projects
from cloudcompute_emulator.audit import record_event
from cloudcompute_emulator.clock import isoformat, new_id
from cloudcompute_emulator.errors import ApiError, conflict, invalid, not_found
from cloudcompute_emulator.ports import Domain, Principal
from cloudcompute_emulator.resources import secrets
from cloudcompute_emulator.resources.ownership import find_owned
from cloudcompute_emulator.schemas.serverless import (
    ComputeInput,
    ContainerDeploymentCreate,
    ContainerDeploymentPatch,
    ContainerInput,
    ContainerScalingInput,
    EnvVarInput,
    EnvVarsChange,
    EnvVarsDelete,
    JobDeploymentCreate,
    JobDeploymentPatch,
    JobScalingInput,
    RegistrySettingsInput,
    TemplateDeploymentCreate,
    VolumeMountInput,
)
from cloudcompute_emulator.store import Record

CONTAINERS = kinds.CONTAINER_DEPLOYMENTS
JOBS = kinds.JOB_DEPLOYMENTS
LABEL = {CONTAINERS: "Container deployment", JOBS: "Job deployment"}

DEFAULT_CONTAINER_SCALING: dict[str, Any] = {
    "min_replica_count": 1,
    "max_replica_count": 1,
    "scale_down_policy": {"delay_seconds": 300},
    "scale_up_policy": {"delay_seconds": 0},
    "queue_message_ttl_seconds": 3600,
    "concurrent_requests_per_replica": 1,
    "scaling_triggers": {
        "queue_load": {"threshold": 1},
        "cpu_utilization": {"enabled": False, "threshold": 90},
        "gpu_utilization": {"enabled": False, "threshold": 90},
    },
}
DEFAULT_JOB_SCALING: dict[str, Any] = {"max_replica_count": 1, "queue_message_ttl_seconds": 3600, "deadline_seconds": 3600}
DEFAULT_MOUNT_PATH = {"scratch": "/data", "shared": "/data", "secret": None, "memory": "/dev/shm"}
DEFAULT_SHARED_MEMORY_MB = 64
PUBLIC_REGISTRY: dict[str, Any] = {"is_private": False, "credentials": None}

# status chains of the container state machine: [(status, step it lasts), ...] then "healthy"
CREATE_CHAIN = [("initializing", "container.initializing"), ("image_pulling", "container.image_pulling")]
UPDATE_CHAIN = [("version_updating", "container.version_updating")]
RESTART_CHAIN = [("initializing", "container.restarting")]
RUNNING_STATUSES = frozenset({"healthy", "degraded", "version_updating"})
STARTING_STATUSES = frozenset({"initializing", "image_pulling"})


# -- checks and normalisation of request parts ----------------------------------------------------------


def _volume_mount(state: Domain, project_id: str, mount: VolumeMountInput, where: str) -> dict[str, Any]:
    mount_path = mount.mount_path or DEFAULT_MOUNT_PATH[mount.type]
    if mount_path is None:
        raise invalid(f"{where}.mount_path: required for a {mount.type} mount")
    if mount.type == "secret":
        if not mount.secret_name:
            raise invalid(f"{where}.secret_name: required for a secret mount")
        secrets.require_exists(state, project_id, kinds.FILE_SECRETS, mount.secret_name, f"{where}.secret_name")
    if mount.volume_id is not None:
        if mount.type != "shared":
            raise invalid(f"{where}.volume_id: only a shared mount names a volume")
        volume = find_owned(state, kinds.VOLUMES, mount.volume_id, project_id)
        if volume is None or volume["status"] == "deleted":
            raise invalid(f"{where}.volume_id: volume {mount.volume_id} not found")
        if not catalog.VOLUME_TYPES_BY_NAME[volume["type"]].is_shared_fs:
            raise invalid(f"{where}.volume_id: volume {mount.volume_id} is not a shared file system")
    size = mount.size_in_mb if mount.size_in_mb is not None else (DEFAULT_SHARED_MEMORY_MB if mount.type == "memory" else None)
    return {"type": mount.type, "mount_path": mount_path, "secret_name": mount.secret_name, "volume_id": mount.volume_id,
            "size_in_mb": size}


def env_vars(variables: list[EnvVarInput], where: str) -> list[dict[str, str]]:
    names = [variable.name for variable in variables]
    duplicate = next((name for name in names if names.count(name) > 1), None)
    if duplicate is not None:
        raise invalid(f"{where}: variable {duplicate} is given more than once")
    return [{"type": v.type, "name": v.name, "value_or_reference_to_secret": v.value_or_reference_to_secret} for v in variables]


def containers(state: Domain, project_id: str, inputs: list[ContainerInput], previous: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Stored containers, with their defaults filled in; ``last_updated_at`` moves only when the
    container's image changes."""
    now = isoformat(state.clock.now())
    before = {container["name"]: container for container in previous or []}
    result = []
    for index, container in enumerate(inputs):
        where = f"containers[{index}]"
        name = container.name or f"container-{index + 1}"
        image = container.image if isinstance(container.image, str) else container.image.image
        healthcheck = container.healthcheck
        overrides = container.entrypoint_overrides
        mounts = [_volume_mount(state, project_id, mount, f"{where}.volume_mounts[{number}]") for number, mount in enumerate(container.volume_mounts or [])]
        paths = [mount["mount_path"] for mount in mounts]
        if len(set(paths)) != len(paths):
            raise invalid(f"{where}.volume_mounts: two mounts at the same path")
        env = env_vars(container.env or [], f"{where}.env")
        for variable in env:
            if variable["type"] == "secret":
                secrets.require_exists(state, project_id, kinds.SECRETS, variable["value_or_reference_to_secret"],
                                       f"{where}.env.{variable['name']}")
        old = before.get(name)
        result.append(
            {
                "name": name,
                "image": image,
                "image_updated_at": old["image_updated_at"] if old and old["image"] == image else now,
                "exposed_port": container.exposed_port,
                "healthcheck": {
                    "enabled": healthcheck.enabled if healthcheck else True,
                    "port": (healthcheck.port if healthcheck else None) or container.exposed_port,
                    "path": (healthcheck.path if healthcheck else None) or "/health",
                },
                "entrypoint_overrides": {
                    "enabled": overrides.enabled if overrides else False,
                    "entrypoint": list(overrides.entrypoint or []) if overrides else [],
                    "cmd": list(overrides.cmd or []) if overrides else [],
                },
                "env": env,
                "volume_mounts": mounts,
            }
        )
    names = [container["name"] for container in result]
    if len(set(names)) != len(names):
        raise invalid("containers: two containers have the same name")
    return result


def compute(spec: ComputeInput) -> dict[str, Any]:
    resource = catalog.SERVERLESS_COMPUTE_BY_KEY.get((spec.name, spec.size))
    if resource is None:
        raise invalid(f"compute: no serverless compute resource {spec.name} of size {spec.size} (see GET /v1/serverless-compute-resources)")
    return {"name": resource.name, "size": resource.size}


def check_can_deploy(state: Domain, project_id: str, compute_spec: dict[str, Any]) -> None:
    """After the 400s and 409s: 402 when the balance is not positive, 503 when the compute
    resource is not available (nothing is created)."""
    if projects.balance(state, project_id) <= 0:
        raise ApiError(402, "Not enough funds to deploy: the project balance is not positive")
    if not catalog.SERVERLESS_COMPUTE_BY_KEY[(compute_spec["name"], compute_spec["size"])].is_available:
        raise ApiError(503, f"No capacity for serverless compute {compute_spec['name']} x{compute_spec['size']} at the moment; "
                       "retry later or choose another")


def registry_settings(state: Domain, project_id: str, spec: RegistrySettingsInput | None) -> dict[str, Any]:
    if spec is None:
        return dict(PUBLIC_REGISTRY)
    if spec.is_private and spec.credentials is None:
        raise invalid("container_registry_settings.credentials: required for a private registry")
    if spec.is_private and spec.credentials is not None:
        secrets.require_exists(state, project_id, kinds.REGISTRY_CREDENTIALS, spec.credentials.name,
                               "container_registry_settings.credentials.name")
    return {"is_private": spec.is_private, "credentials": {"name": spec.credentials.name} if spec.is_private and spec.credentials else None}


def _merge(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(base)
    for key, value in patch.items():
        merged[key] = _merge(merged[key], value) if isinstance(value, dict) and isinstance(merged.get(key), dict) else value
    return merged


def container_scaling(spec: ContainerScalingInput | None, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """The given members over ``base`` (default: the default scaling); min <= max."""
    scaling = _merge(base or DEFAULT_CONTAINER_SCALING, spec.model_dump(exclude_none=True) if spec else {})
    if scaling["min_replica_count"] > scaling["max_replica_count"]:
        raise invalid("scaling: min_replica_count must not exceed max_replica_count")
    return scaling


def job_scaling(spec: JobScalingInput | None, base: dict[str, Any] | None = None) -> dict[str, Any]:
    return _merge(base or DEFAULT_JOB_SCALING, spec.model_dump(exclude_none=True) if spec else {})


# -- records, lookups, views ---------------------------------------------------------------------------


def new_record(
    state: Domain,
    caller: Principal,
    base_url: str,
    kind: str,
    *,
    name: str,
    containers: list[dict[str, Any]],
    compute: dict[str, Any],
    scaling: dict[str, Any],
    registry: dict[str, Any],
    is_spot: bool = False,
) -> Record:
    now = isoformat(state.clock.now())
    return {
        "id": new_id(),
        "kind": kind,
        "project_id": caller.project_id,
        "name": name,
        "containers": containers,
        "compute": compute,
        "scaling": scaling,
        "container_registry_settings": registry,
        "is_spot": is_spot,
        # the emulator serves the deployed endpoint itself (routes/inference.py)
        "endpoint_base_url": f"{base_url.rstrip('/')}/inference/{name}",
        "created_at": now,
        "created_by_user_id": caller.user_id,
        "status": "running" if kind == JOBS else "initializing",
        "generation": 0,
        "started_at": now,
        "deleting": False,
        "remove_at": None,
        "queue_purged_at": None,
    }


def find(state: Domain, project_id: str, kind: str, name: str) -> Record:
    """A live deployment by name (a container deployment being deleted is no longer found)."""
    for record in state.store.records(kind, project_id):
        if record["name"] == name and not (kind == CONTAINERS and record["deleting"]):
            return record
    raise not_found(f"{LABEL[kind]} {name}")


def live(state: Domain, project_id: str, kind: str) -> list[Record]:
    return [record for record in state.store.records(kind, project_id) if not (kind == CONTAINERS and record["deleting"])]


def require_free_name(state: Domain, project_id: str, kind: str, name: str) -> None:
    for record in state.store.records(kind, project_id):
        if record["name"] == name:
            state = " (it is being deleted)" if record["deleting"] else ""
            raise conflict(f"A {LABEL[kind].lower()} named '{name}' already exists{state}")


def require_not_deleting(record: Record, kind: str) -> None:
    if record["deleting"]:
        raise invalid(f"{LABEL[kind]} {record['name']} is being deleted")


def _containers_view(stored: list[dict[str, Any]]) -> list[dict[str, Any]]:
    views = []
    for container in stored:
        view = {key: copy.deepcopy(value) for key, value in container.items() if key != "image_updated_at"}
        view["image"] = {"image": container["image"], "last_updated_at": container["image_updated_at"]}
        views.append(view)
    return views


def view(record: Record) -> dict[str, Any]:
    result = {
        "name": record["name"],
        "container_registry_settings": copy.deepcopy(record["container_registry_settings"]),
        "containers": _containers_view(record["containers"]),
        "compute": dict(record["compute"]),
        "scaling": copy.deepcopy(record["scaling"]),
        "endpoint_base_url": record["endpoint_base_url"],
        "created_at": record["created_at"],
    }
    if record["kind"] == CONTAINERS:
        result["is_spot"] = record["is_spot"]
    return result


def env_view(record: Record) -> list[dict[str, Any]]:
    return [{"container_name": container["name"], "env": copy.deepcopy(container["env"])} for container in record["containers"]]


def replicas(record: Record) -> list[dict[str, str]]:
    """Replicas of a container deployment: ``min_replica_count`` of them (at least one while it
    starts), ``running`` once healthy; none while paused."""
    status = record["status"]
    if status in RUNNING_STATUSES:
        count, replica_status = record["scaling"]["min_replica_count"], "running"
    elif status in STARTING_STATUSES:
        count, replica_status = max(1, record["scaling"]["min_replica_count"]), "starting"
    else:
        return []
    namespace = uuid.UUID(record["id"])
    return [
        {"id": str(uuid.uuid5(namespace, f"{record['generation']}:{index}")), "status": replica_status, "started_at": record["started_at"]}
        for index in range(count)
    ]


# -- container state machine -----------------------------------------------------------------------------


def begin(state: Domain, deployment: Record, chain: list[tuple[str, str]], at: float | None = None) -> None:
    """Start a status chain (create, update, restart); earlier pending steps no longer apply."""
    deployment["generation"] += 1
    deployment["started_at"] = isoformat(state.clock.now() if at is None else at)
    _step(state, deployment, chain, at)


def _step(state: Domain, deployment: Record, chain: list[tuple[str, str]] | list[list[str]], at: float | None) -> None:
    (status, step), rest = chain[0], chain[1:]
    deployment["status"] = status
    state.store.save(CONTAINERS, deployment)
    state.scheduler.schedule_step(
        state, CONTAINERS, deployment, step, start=at, hook="container.next_status",
        expect={"status": status, "generation": deployment["generation"]}, params={"chain": [list(item) for item in rest]},
    )


def _next_status(state: Domain, deployment: Record, at: float, params: dict) -> None:
    if params["chain"]:
        _step(state, deployment, params["chain"], at)
        return
    deployment["status"] = "healthy"
    deployment["started_at"] = isoformat(at)
    state.store.save(CONTAINERS, deployment)


def _pause(state: Domain, record: Record) -> bool:
    if record["status"] == "paused":
        return False
    record["generation"] += 1
    record["status"] = "paused"
    state.store.save(record["kind"], record)
    return True


def _resume(state: Domain, record: Record) -> bool:
    if record["status"] != "paused":
        return False
    if record["kind"] == CONTAINERS:
        begin(state, record, RESTART_CHAIN)
    else:
        record["generation"] += 1
        record["status"] = "running"
        state.store.save(JOBS, record)
    return True


def _rolled_out(state: Domain, record: Record) -> None:
    """A new version of a container deployment's configuration: roll it out unless paused."""
    if record["status"] != "paused":
        begin(state, record, UPDATE_CHAIN)


# -- deletion ------------------------------------------------------------------------------------------


def _delete(state: Domain, record: Record, timeout_ms: int) -> bool:
    """Start deleting; True when the deployment is already gone (the wait covered the removal)."""
    now = state.clock.now()
    removal = state.settings.step_seconds("deployment.deleting")
    if not record["deleting"]:
        record["deleting"] = True
        record["generation"] += 1
        record["remove_at"] = now + removal
        if record["kind"] == JOBS:
            record["status"] = "terminating"
        state.store.save(record["kind"], record)
        state.scheduler.schedule(record["kind"], record, record["remove_at"], hook="deployment.remove", expect={"deleting": True})
    if now + timeout_ms / 1000 >= record["remove_at"]:
        _remove(state, record, now)
        return True
    return False


def _remove(state: Domain, record: Record, at: float, _params: dict | None = None) -> None:
    state.store.retire(record["kind"], record["id"], isoformat(at))


# -- the caller's operations (the deployment endpoints) ---------------------------------------------

OBJECT_TYPE = {CONTAINERS: "container_deployment", JOBS: "job_deployment"}


def _audit(state: Domain, caller: Principal, action: str, record: Record, **extra: Any) -> None:
    object_type = OBJECT_TYPE[record["kind"]]
    record_event(state, caller, object_type, action, record["name"], **{object_type: view(record)}, **extra)


def _find_for_change(state: Domain, caller: Principal, kind: str, name: str) -> Record:
    record = find(state, caller.project_id, kind, name)
    require_not_deleting(record, kind)
    return record


def _create(state: Domain, caller: Principal, base_url: str, kind: str, **fields: Any) -> Record:
    require_free_name(state, caller.project_id, kind, fields["name"])
    check_can_deploy(state, caller.project_id, fields["compute"])
    record = new_record(state, caller, base_url, kind, **fields)
    state.store.insert(kind, record)
    if kind == CONTAINERS:
        begin(state, record, CREATE_CHAIN)
    _audit(state, caller, "create", record)
    return record


def create_container_deployment(state: Domain, caller: Principal, base_url: str, body: ContainerDeploymentCreate) -> Record:
    return _create(
        state, caller, base_url, CONTAINERS, name=body.name, containers=containers(state, caller.project_id, body.containers),
        compute=compute(body.compute), scaling=container_scaling(body.scaling),
        registry=registry_settings(state, caller.project_id, body.container_registry_settings), is_spot=bool(body.is_spot),
    )


def deploy_template(
    state: Domain, caller: Principal, base_url: str, template: catalog.DeploymentTemplate, body: TemplateDeploymentCreate
) -> Record:
    """A container deployment of a template's variant, with its features' environment."""
    variants = {variant.code: variant for variant in template.variants}
    variant = variants.get(body.variant or template.default_variant.code)
    if variant is None:
        raise invalid(f"variant: template {template.code} has no variant '{body.variant}' (one of {', '.join(variants)})")
    features = {feature.code: feature for feature in template.features}
    chosen = body.features if body.features is not None else [code for code, feature in features.items() if feature.enabled_by_default]
    unknown = next((code for code in chosen if code not in features), None)
    if unknown is not None:
        raise invalid(f"features: template {template.code} has no feature '{unknown}'")
    env = [{"type": "plain", "name": template.model_env, "value_or_reference_to_secret": variant.model}]
    for code in dict.fromkeys(chosen):
        env.extend(feature_env(features[code]))
    if body.hugging_face_token_secret:
        secrets.require_exists(state, caller.project_id, kinds.SECRETS, body.hugging_face_token_secret, "hugging_face_token_secret")
        env.append({"type": "secret", "name": "HF_TOKEN", "value_or_reference_to_secret": body.hugging_face_token_secret})
    mounts: list[dict[str, Any]] = [{"type": "shared", "mount_path": "/data"}]
    if body.shared_memory_size_in_mb:
        mounts.append({"type": "memory", "mount_path": "/dev/shm", "size_in_mb": body.shared_memory_size_in_mb})
    container = {
        "name": template.code, "image": f"{template.image}:{variant.image_tag}", "exposed_port": template.exposed_port,
        "healthcheck": {"enabled": True, "port": template.exposed_port, "path": template.healthcheck_path},
        "env": env, "volume_mounts": mounts,
    }
    name, size = variant.recommended_compute
    record = _create(
        state, caller, base_url, CONTAINERS, name=body.name,
        containers=containers(state, caller.project_id, [ContainerInput.model_validate(container)]),
        compute=compute(body.compute or ComputeInput(name=name, size=size)), scaling=container_scaling(body.scaling),
        registry=dict(PUBLIC_REGISTRY), is_spot=bool(body.is_spot),
    )
    record["template"] = {"id": template.id, "variant": variant.code, "features": list(dict.fromkeys(chosen))}
    state.store.save(CONTAINERS, record)
    return record


def feature_env(feature: catalog.TemplateFeature) -> list[dict[str, str]]:
    return [{"type": "plain", "name": name, "value_or_reference_to_secret": value} for name, value in feature.env]


def create_job_deployment(state: Domain, caller: Principal, base_url: str, body: JobDeploymentCreate) -> Record:
    fields = {
        "containers": containers(state, caller.project_id, body.containers), "compute": compute(body.compute),
        "scaling": job_scaling(body.scaling), "registry": registry_settings(state, caller.project_id, body.container_registry_settings),
    }
    return _create(state, caller, base_url, JOBS, name=body.name, **fields)


def patch(
    state: Domain, caller: Principal, kind: str, name: str, body: ContainerDeploymentPatch | JobDeploymentPatch
) -> Record:
    """Replace the given top-level fields; a container deployment rolls out a new version when its
    containers, compute, registry or spot setting changed (not for scaling alone)."""
    record = _find_for_change(state, caller, kind, name)
    if body.name is not None and body.name != record["name"]:
        what = "deployment" if kind == CONTAINERS else "job"
        raise invalid(f"name: immutable (the {what} is {record['name']})")
    changes: dict[str, Any] = {}
    if body.containers is not None:
        changes["containers"] = containers(state, caller.project_id, body.containers, record["containers"])
    if body.compute is not None:
        changes["compute"] = compute(body.compute)
    if body.container_registry_settings is not None:
        changes["container_registry_settings"] = registry_settings(state, caller.project_id, body.container_registry_settings)
    if kind == CONTAINERS and body.is_spot is not None:
        changes["is_spot"] = body.is_spot
    if body.scaling is not None:
        changes["scaling"] = container_scaling(body.scaling) if kind == CONTAINERS else job_scaling(body.scaling)
    changes = {key: value for key, value in changes.items() if value != record[key]}
    if "compute" in changes:
        check_can_deploy(state, caller.project_id, changes["compute"])
    if changes:
        record.update(changes)
        state.store.save(kind, record)
        if kind == CONTAINERS and set(changes) - {"scaling"}:
            _rolled_out(state, record)
        _audit(state, caller, "update", record)
    return record


def delete(state: Domain, caller: Principal, kind: str, name: str, timeout_ms: int) -> bool:
    """Start deleting (waiting up to ``timeout_ms``); True when the deployment is already gone."""
    record = find(state, caller.project_id, kind, name)
    if not record["deleting"]:
        _audit(state, caller, "delete", record)
    return _delete(state, record, timeout_ms)


def restart(state: Domain, caller: Principal, name: str) -> None:
    record = find(state, caller.project_id, CONTAINERS, name)
    if record["status"] == "paused":
        raise invalid(f"Container deployment {name} is paused: resume it instead")
    begin(state, record, RESTART_CHAIN)
    _audit(state, caller, "start", record, operation="restart")


def pause(state: Domain, caller: Principal, kind: str, name: str) -> None:
    record = _find_for_change(state, caller, kind, name)
    if _pause(state, record):
        _audit(state, caller, "shutdown", record, operation="pause")


def resume(state: Domain, caller: Principal, kind: str, name: str) -> None:
    record = _find_for_change(state, caller, kind, name)
    if _resume(state, record):
        _audit(state, caller, "start", record, operation="resume")


def purge_queue(state: Domain, caller: Principal, kind: str, name: str) -> None:
    record = _find_for_change(state, caller, kind, name)
    record["queue_purged_at"] = state.clock.now()
    state.store.save(kind, record)
    _audit(state, caller, "other", record, operation="purge_queue")


def patch_container_scaling(state: Domain, caller: Principal, name: str, body: ContainerScalingInput) -> dict[str, Any]:
    record = find(state, caller.project_id, CONTAINERS, name)
    scaling = container_scaling(body, record["scaling"])
    if scaling != record["scaling"]:
        record["scaling"] = scaling
        state.store.save(CONTAINERS, record)
        _audit(state, caller, "update", record, operation="scaling")
    return scaling


# -- environment variables of a container deployment's containers -------------------------------------


def _container(record: Record, container_name: str) -> dict[str, Any]:
    for container in record["containers"]:
        if container["name"] == container_name:
            return container
    raise invalid(f"container_name: deployment {record['name']} has no container {container_name}")


def _env_changed(state: Domain, caller: Principal, record: Record, operation: str) -> None:
    state.store.save(CONTAINERS, record)
    _rolled_out(state, record)
    _audit(state, caller, "update", record, operation=operation)


def add_env_vars(state: Domain, caller: Principal, name: str, body: EnvVarsChange) -> Record:
    """409 when the container already has one of the names."""
    record = find(state, caller.project_id, CONTAINERS, name)
    container = _container(record, body.container_name)
    added = env_vars(body.env, "env")
    existing = {variable["name"] for variable in container["env"]}
    clash = next((variable["name"] for variable in added if variable["name"] in existing), None)
    if clash is not None:
        raise conflict(f"Container {body.container_name} already has a variable {clash}")
    if added:
        container["env"].extend(added)
        _env_changed(state, caller, record, "add_environment_variables")
    return record


def update_env_vars(state: Domain, caller: Principal, name: str, body: EnvVarsChange) -> dict[str, Any]:
    """The changed container; 400 for a name it does not have."""
    record = find(state, caller.project_id, CONTAINERS, name)
    container = _container(record, body.container_name)
    updates = {variable["name"]: variable for variable in env_vars(body.env, "env")}
    current = {variable["name"] for variable in container["env"]}
    missing = next((variable_name for variable_name in updates if variable_name not in current), None)
    if missing is not None:
        raise invalid(f"env: container {body.container_name} has no variable {missing} (add it with POST)")
    new_env = [updates.get(variable["name"], variable) for variable in container["env"]]
    if new_env != container["env"]:
        container["env"] = new_env
        _env_changed(state, caller, record, "update_environment_variables")
    return container


def delete_env_vars(state: Domain, caller: Principal, name: str, body: EnvVarsDelete) -> Record:
    record = find(state, caller.project_id, CONTAINERS, name)
    container = _container(record, body.container_name)
    current = {variable["name"] for variable in container["env"]}
    missing = next((variable_name for variable_name in body.env if variable_name not in current), None)
    if missing is not None:
        raise invalid(f"env: container {body.container_name} has no variable {missing}")
    if body.env:
        container["env"] = [variable for variable in container["env"] if variable["name"] not in body.env]
        _env_changed(state, caller, record, "delete_environment_variables")
    return record


TRANSITION_HOOKS = {
    "container.next_status": _next_status,
    "deployment.remove": _remove,
}
