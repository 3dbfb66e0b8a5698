"""Serverless container deployments, deployment templates and compute resources.

Every endpoint here takes an access token or the project's inference API key
(scopes.INFERENCE_KEY_PATHS). Deployments are addressed by name. Statuses move on the emulator
clock (resources/serverless.py).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from cloudcompute_emulator import catalog, kinds
from cloudcompute_emulator.context import ApiContext, ServerlessContext
from cloudcompute_emulator.errors import conflict, invalid, not_found
from cloudcompute_emulator.resources import secrets, serverless
from cloudcompute_emulator.resources.serverless import CONTAINERS
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.serverless import (
    DELETE_TIMEOUT_DEFAULT_MS,
    DELETE_TIMEOUT_MAX_MS,
    ComputeInput,
    ComputeResource,
    ContainerDeployment,
    ContainerDeploymentCreate,
    ContainerDeploymentPatch,
    ContainerDeploymentStatus,
    ContainerEnvVars,
    ContainerInput,
    ContainerScaling,
    ContainerScalingInput,
    ContainerTemplate,
    ContainerTemplateSummary,
    EnvVarsChange,
    EnvVarsDelete,
    ReplicaList,
    TemplateDeploymentCreate,
)
from cloudcompute_emulator.store import Record

router = APIRouter(tags=["Serverless containers"])

PREFIX = "/v1/container-deployments"
DeleteTimeout = Annotated[
    int, Query(ge=0, le=DELETE_TIMEOUT_MAX_MS, description="milliseconds to wait for the removal; 0 returns at once")
]
ACCEPTED_ACTION = {201: {"description": "accepted (empty body)"}, **_responses.errors(404)}
DELETE_RESPONSES = {
    202: {"description": "the wait ended before the removal; the deployment is already hidden and goes soon"},
    204: {"description": "deleted"},
    **_responses.errors(404),
}


def _audit(ctx: ApiContext, action: str, record: Record, **extra: Any) -> None:
    ctx.audit("container_deployment", action, record["name"], container_deployment=serverless.view(record), **extra)


def _find(ctx: ApiContext, name: str) -> Record:
    return serverless.find(ctx.state, ctx.project_id, CONTAINERS, name)


def _create(ctx: ApiContext, name: str, containers: list[dict[str, Any]], compute: dict[str, Any],
            scaling: dict[str, Any], registry: dict[str, Any], is_spot: bool) -> Record:
    serverless.require_free_name(ctx.state, ctx.project_id, CONTAINERS, name)
    serverless.check_can_deploy(ctx.state, ctx.project_id, compute)
    record = serverless.new_record(
        ctx.state, ctx.caller, str(ctx.request.base_url), CONTAINERS,
        name=name, containers=containers, compute=compute, scaling=scaling, registry=registry, is_spot=is_spot,
    )
    ctx.store.insert(CONTAINERS, record)
    serverless.begin(ctx.state, record, serverless.CREATE_CHAIN)
    _audit(ctx, "create", record)
    return record


# -- deployments ----------------------------------------------------------------------------------


@router.get(PREFIX, response_model=list[ContainerDeployment], summary="Container deployments")
async def list_container_deployments(ctx: ServerlessContext):
    return _responses.json([serverless.view(record) for record in serverless.live(ctx.state, ctx.project_id, CONTAINERS)])


@router.post(PREFIX, status_code=201, response_model=ContainerDeployment, responses=_responses.errors(402, 409, 503),
             summary="Create a container deployment")
async def create_container_deployment(ctx: ServerlessContext, body: ContainerDeploymentCreate):
    record = _create(
        ctx, body.name, serverless.containers(ctx.state, ctx.project_id, body.containers), serverless.compute(body.compute),
        serverless.container_scaling(body.scaling), serverless.registry_settings(ctx.state, ctx.project_id, body.container_registry_settings),
        bool(body.is_spot),
    )
    return _responses.json(serverless.view(record), status_code=201)


@router.get(PREFIX + "/{deployment_name}", response_model=ContainerDeployment, responses=_responses.errors(404),
            summary="One container deployment")
async def get_container_deployment(ctx: ServerlessContext, deployment_name: str):
    return _responses.json(serverless.view(_find(ctx, deployment_name)))


@router.patch(PREFIX + "/{deployment_name}", response_model=ContainerDeployment, responses=_responses.errors(404, 503),
              summary="Replace the given top-level fields (a new version rolls out)")
async def patch_container_deployment(ctx: ServerlessContext, deployment_name: str, body: ContainerDeploymentPatch):
    record = _find(ctx, deployment_name)
    if body.name is not None and body.name != record["name"]:
        raise invalid(f"name: immutable (the deployment is {record['name']})")
    changes: dict[str, Any] = {}
    if body.containers is not None:
        changes["containers"] = serverless.containers(ctx.state, ctx.project_id, body.containers, record["containers"])
    if body.compute is not None:
        changes["compute"] = serverless.compute(body.compute)
    if body.container_registry_settings is not None:
        changes["container_registry_settings"] = serverless.registry_settings(ctx.state, ctx.project_id, body.container_registry_settings)
    if body.is_spot is not None:
        changes["is_spot"] = body.is_spot
    scaling = serverless.container_scaling(body.scaling) if body.scaling is not None else record["scaling"]
    new_version = {key: value for key, value in changes.items() if value != record[key]}
    if "compute" in new_version:
        serverless.check_can_deploy(ctx.state, ctx.project_id, new_version["compute"])
    if new_version or scaling != record["scaling"]:
        record.update(new_version)
        record["scaling"] = scaling
        ctx.store.save(CONTAINERS, record)
        if new_version:
            serverless.rolled_out(ctx.state, record)
        _audit(ctx, "update", record)
    return _responses.json(serverless.view(record))


@router.delete(PREFIX + "/{deployment_name}", status_code=204, response_class=_responses.Response, responses=DELETE_RESPONSES,
               summary="Delete a container deployment (waits up to timeout ms for the removal)")
async def delete_container_deployment(ctx: ServerlessContext, deployment_name: str, timeout: DeleteTimeout = DELETE_TIMEOUT_DEFAULT_MS):
    record = _find(ctx, deployment_name)
    _audit(ctx, "delete", record)
    return _responses.empty(204 if serverless.delete(ctx.state, record, timeout) else 202)


@router.get(PREFIX + "/{deployment_name}/status", response_model=ContainerDeploymentStatus, responses=_responses.errors(404),
            summary="Deployment status")
async def container_deployment_status(ctx: ServerlessContext, deployment_name: str):
    return _responses.json({"status": _find(ctx, deployment_name)["status"]})


@router.post(PREFIX + "/{deployment_name}/restart", status_code=201, response_class=_responses.Response, responses=ACCEPTED_ACTION,
             summary="Restart every replica (400 while paused)")
async def restart_container_deployment(ctx: ServerlessContext, deployment_name: str):
    record = _find(ctx, deployment_name)
    if record["status"] == "paused":
        raise invalid(f"Container deployment {deployment_name} is paused: resume it instead")
    serverless.begin(ctx.state, record, serverless.RESTART_CHAIN)
    _audit(ctx, "start", record, operation="restart")
    return _responses.empty(201)


@router.post(PREFIX + "/{deployment_name}/pause", status_code=201, response_class=_responses.Response, responses=ACCEPTED_ACTION,
             summary="Pause: no replicas until resumed")
async def pause_container_deployment(ctx: ServerlessContext, deployment_name: str):
    record = _find(ctx, deployment_name)
    if serverless.pause(ctx.state, record):
        _audit(ctx, "shutdown", record, operation="pause")
    return _responses.empty(201)


@router.post(PREFIX + "/{deployment_name}/resume", status_code=201, response_class=_responses.Response, responses=ACCEPTED_ACTION,
             summary="Resume a paused deployment")
async def resume_container_deployment(ctx: ServerlessContext, deployment_name: str):
    record = _find(ctx, deployment_name)
    if serverless.resume(ctx.state, record):
        _audit(ctx, "start", record, operation="resume")
    return _responses.empty(201)


@router.post(PREFIX + "/{deployment_name}/purge-queue", status_code=201, response_class=_responses.Response,
             responses=ACCEPTED_ACTION, summary="Drop the queued requests")
async def purge_container_queue(ctx: ServerlessContext, deployment_name: str):
    record = _find(ctx, deployment_name)
    record["queue_purged_at"] = ctx.now()
    ctx.store.save(CONTAINERS, record)
    _audit(ctx, "other", record, operation="purge_queue")
    return _responses.empty(201)


@router.get(PREFIX + "/{deployment_name}/scaling", response_model=ContainerScaling, responses=_responses.errors(404),
            summary="Scaling options")
async def get_container_scaling(ctx: ServerlessContext, deployment_name: str):
    return _responses.json(_find(ctx, deployment_name)["scaling"])


@router.patch(PREFIX + "/{deployment_name}/scaling", response_model=ContainerScaling, responses=_responses.errors(404),
              summary="Change scaling options (the given members)")
async def patch_container_scaling(ctx: ServerlessContext, deployment_name: str, body: ContainerScalingInput):
    record = _find(ctx, deployment_name)
    scaling = serverless.container_scaling(body, record["scaling"])
    if scaling != record["scaling"]:
        record["scaling"] = scaling
        ctx.store.save(CONTAINERS, record)
        _audit(ctx, "update", record, operation="scaling")
    return _responses.json(scaling)


@router.get(PREFIX + "/{deployment_name}/replicas", response_model=ReplicaList, responses=_responses.errors(404),
            summary="Replicas")
async def list_replicas(ctx: ServerlessContext, deployment_name: str):
    return _responses.json({"list": serverless.replicas(_find(ctx, deployment_name))})


# -- environment variables ---------------------------------------------------------------------------


def _container(record: Record, container_name: str) -> dict[str, Any]:
    for container in record["containers"]:
        if container["name"] == container_name:
            return container
    raise invalid(f"container_name: deployment {record['name']} has no container {container_name}")


def _env_changed(ctx: ApiContext, record: Record, operation: str) -> None:
    ctx.store.save(CONTAINERS, record)
    serverless.rolled_out(ctx.state, record)
    _audit(ctx, "update", record, operation=operation)


@router.get(PREFIX + "/{deployment_name}/environment-variables", response_model=list[ContainerEnvVars],
            responses=_responses.errors(404), summary="Environment variables per container")
async def list_env_vars(ctx: ServerlessContext, deployment_name: str):
    return _responses.json(serverless.env_view(_find(ctx, deployment_name)))


@router.post(PREFIX + "/{deployment_name}/environment-variables", response_model=list[ContainerEnvVars],
             responses=_responses.errors(404, 409), summary="Add environment variables to a container (409 for an existing name)")
async def add_env_vars(ctx: ServerlessContext, deployment_name: str, body: EnvVarsChange):
    record = _find(ctx, deployment_name)
    container = _container(record, body.container_name)
    added = serverless.env_vars(body.env, "env")
    existing = {variable["name"] for variable in container["env"]}
    clash = next((variable["name"] for variable in added if variable["name"] in existing), None)
    if clash is not None:
        raise conflict(f"Container {body.container_name} already has a variable {clash}")
    if added:
        container["env"].extend(added)
        _env_changed(ctx, record, "add_environment_variables")
    return _responses.json(serverless.env_view(record))


@router.patch(PREFIX + "/{deployment_name}/environment-variables", response_model=ContainerEnvVars,
              responses=_responses.errors(404), summary="Change existing environment variables of a container")
async def update_env_vars(ctx: ServerlessContext, deployment_name: str, body: EnvVarsChange):
    record = _find(ctx, deployment_name)
    container = _container(record, body.container_name)
    updates = {variable["name"]: variable for variable in serverless.env_vars(body.env, "env")}
    current = {variable["name"] for variable in container["env"]}
    missing = next((name for name in updates if name not in current), None)
    if missing is not None:
        raise invalid(f"env: container {body.container_name} has no variable {missing} (add it with POST)")
    new_env = [updates.get(variable["name"], variable) for variable in container["env"]]
    if new_env != container["env"]:
        container["env"] = new_env
        _env_changed(ctx, record, "update_environment_variables")
    return _responses.json({"container_name": container["name"], "env": container["env"]})


@router.delete(PREFIX + "/{deployment_name}/environment-variables", response_model=list[ContainerEnvVars],
               responses=_responses.errors(404), summary="Remove environment variables from a container")
async def delete_env_vars(ctx: ServerlessContext, deployment_name: str, body: EnvVarsDelete):
    record = _find(ctx, deployment_name)
    container = _container(record, body.container_name)
    current = {variable["name"] for variable in container["env"]}
    missing = next((name for name in body.env if name not in current), None)
    if missing is not None:
        raise invalid(f"env: container {body.container_name} has no variable {missing}")
    if body.env:
        container["env"] = [variable for variable in container["env"] if variable["name"] not in body.env]
        _env_changed(ctx, record, "delete_environment_variables")
    return _responses.json(serverless.env_view(record))


# -- compute resources and templates --------------------------------------------------------------------


@router.get("/v1/serverless-compute-resources", response_model=list[ComputeResource], summary="Serverless compute resources")
async def list_compute_resources(_ctx: ServerlessContext):
    return _responses.json(
        [{"name": item.name, "size": item.size, "is_available": item.is_available} for item in catalog.SERVERLESS_COMPUTE]
    )


def _compute(pair: tuple[str, int]) -> dict[str, Any]:
    return {"name": pair[0], "size": pair[1]}


def _template_summary(template: catalog.DeploymentTemplate) -> dict[str, Any]:
    return {
        "id": template.id,
        "code": template.code,
        "name": template.name,
        "description": template.description,
        "category": template.category,
        "image": template.image,
        "exposed_port": template.exposed_port,
        "healthcheck_path": template.healthcheck_path,
        "default_variant": template.default_variant.code,
        "recommended_compute": _compute(template.default_variant.recommended_compute),
    }


def _feature_env(feature: catalog.TemplateFeature) -> list[dict[str, str]]:
    return [{"type": "plain", "name": name, "value_or_reference_to_secret": value} for name, value in feature.env]


def _template_detail(template: catalog.DeploymentTemplate) -> dict[str, Any]:
    return {
        **_template_summary(template),
        "variants": [
            {"id": variant.code, "name": variant.name, "description": variant.description,
             "image": f"{template.image}:{variant.image_tag}", "model": variant.model,
             "recommended_compute": _compute(variant.recommended_compute)}
            for variant in template.variants
        ],
        "features": [
            {"id": feature.code, "name": feature.name, "description": feature.description,
             "enabled_by_default": feature.enabled_by_default, "env": _feature_env(feature)}
            for feature in template.features
        ],
    }


def _find_template(template_id: str) -> catalog.DeploymentTemplate:
    template = catalog.DEPLOYMENT_TEMPLATES_BY_KEY.get(template_id)
    if template is None:
        raise not_found(f"Container deployment template {template_id}")
    return template


@router.get("/v1/container-deployment-templates", response_model=list[ContainerTemplateSummary],
            summary="Deployment templates, with their recommended compute")
async def list_templates(_ctx: ServerlessContext):
    return _responses.json([_template_summary(template) for template in catalog.DEPLOYMENT_TEMPLATES])


@router.get("/v1/container-deployment-templates/{template_id}", response_model=ContainerTemplate, responses=_responses.errors(404),
            summary="One deployment template with its variants and features (id or code)")
async def get_template(_ctx: ServerlessContext, template_id: str):
    return _responses.json(_template_detail(_find_template(template_id)))


@router.post("/v1/container-deployment-templates/{template_id}/deployments", status_code=201, response_model=ContainerDeployment,
             responses=_responses.errors(402, 404, 409, 503), summary="Create a container deployment from a template")
async def deploy_template(ctx: ServerlessContext, template_id: str, body: TemplateDeploymentCreate):
    template = _find_template(template_id)
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
        env.extend(_feature_env(features[code]))
    if body.hugging_face_token_secret:
        secrets.require_exists(ctx.state, ctx.project_id, kinds.SECRETS, body.hugging_face_token_secret, "hugging_face_token_secret")
        env.append({"type": "secret", "name": "HF_TOKEN", "value_or_reference_to_secret": body.hugging_face_token_secret})
    mounts: list[dict[str, Any]] = [{"type": "shared", "mount_path": "/data"}]
    if body.shared_memory_size_in_mb:
        mounts.append({"type": "memory", "mount_path": "/dev/shm", "size_in_mb": body.shared_memory_size_in_mb})
    container = {
        "name": template.code, "image": f"{template.image}:{variant.image_tag}", "exposed_port": template.exposed_port,
        "healthcheck": {"enabled": True, "port": template.exposed_port, "path": template.healthcheck_path},
        "env": env, "volume_mounts": mounts,
    }
    containers = serverless.containers(ctx.state, ctx.project_id, [ContainerInput.model_validate(container)])
    compute = serverless.compute(body.compute) if body.compute else serverless.compute(
        ComputeInput(name=variant.recommended_compute[0], size=variant.recommended_compute[1]))
    record = _create(
        ctx, body.name, containers, compute, serverless.container_scaling(body.scaling), dict(serverless.PUBLIC_REGISTRY),
        bool(body.is_spot),
    )
    record["template"] = {"id": template.id, "variant": variant.code, "features": list(dict.fromkeys(chosen))}
    ctx.store.save(CONTAINERS, record)
    return _responses.json(serverless.view(record), status_code=201)
