"""Serverless container deployments, deployment templates and compute resources.

Every endpoint here takes an access token or the project's inference API key
(scopes.INFERENCE_KEY_PATHS). Deployments are addressed by name. Statuses move on the emulator
clock (resources/serverless.py).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from cloudcompute_emulator import catalog
from cloudcompute_emulator.context import ApiContext, ServerlessContext
from cloudcompute_emulator.errors import not_found
from cloudcompute_emulator.resources import serverless
from cloudcompute_emulator.resources.serverless import CONTAINERS
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.serverless import (
    DELETE_TIMEOUT_DEFAULT_MS,
    DELETE_TIMEOUT_MAX_MS,
    ComputeResource,
    ContainerDeployment,
    ContainerDeploymentCreate,
    ContainerDeploymentPatch,
    ContainerDeploymentStatus,
    ContainerEnvVars,
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


def _find(ctx: ApiContext, name: str) -> Record:
    return serverless.find(ctx.state, ctx.project_id, CONTAINERS, name)


# -- deployments ----------------------------------------------------------------------------------


@router.get(PREFIX, response_model=list[ContainerDeployment], summary="Container deployments")
async def list_container_deployments(ctx: ServerlessContext):
    return _responses.json([serverless.view(record) for record in serverless.live(ctx.state, ctx.project_id, CONTAINERS)])


@router.post(PREFIX, status_code=201, response_model=ContainerDeployment, responses=_responses.errors(402, 409, 503),
             summary="Create a container deployment")
async def create_container_deployment(ctx: ServerlessContext, body: ContainerDeploymentCreate):
    record = serverless.create_container_deployment(ctx.state, ctx.caller, str(ctx.request.base_url), body)
    return _responses.json(serverless.view(record), status_code=201)


@router.get(PREFIX + "/{deployment_name}", response_model=ContainerDeployment, responses=_responses.errors(404),
            summary="One container deployment")
async def get_container_deployment(ctx: ServerlessContext, deployment_name: str):
    return _responses.json(serverless.view(_find(ctx, deployment_name)))


@router.patch(PREFIX + "/{deployment_name}", response_model=ContainerDeployment, responses=_responses.errors(404, 503),
              summary="Replace the given top-level fields (a new version rolls out)")
async def patch_container_deployment(ctx: ServerlessContext, deployment_name: str, body: ContainerDeploymentPatch):
    return _responses.json(serverless.view(serverless.patch(ctx.state, ctx.caller, CONTAINERS, deployment_name, body)))


@router.delete(PREFIX + "/{deployment_name}", status_code=204, response_class=_responses.Response, responses=DELETE_RESPONSES,
               summary="Delete a container deployment (waits up to timeout ms for the removal)")
async def delete_container_deployment(ctx: ServerlessContext, deployment_name: str, timeout: DeleteTimeout = DELETE_TIMEOUT_DEFAULT_MS):
    gone = serverless.delete(ctx.state, ctx.caller, CONTAINERS, deployment_name, timeout)
    return _responses.empty(204 if gone else 202)


@router.get(PREFIX + "/{deployment_name}/status", response_model=ContainerDeploymentStatus, responses=_responses.errors(404),
            summary="Deployment status")
async def container_deployment_status(ctx: ServerlessContext, deployment_name: str):
    return _responses.json({"status": _find(ctx, deployment_name)["status"]})


@router.post(PREFIX + "/{deployment_name}/restart", status_code=201, response_class=_responses.Response, responses=ACCEPTED_ACTION,
             summary="Restart every replica (400 while paused)")
async def restart_container_deployment(ctx: ServerlessContext, deployment_name: str):
    serverless.restart(ctx.state, ctx.caller, deployment_name)
    return _responses.empty(201)


@router.post(PREFIX + "/{deployment_name}/pause", status_code=201, response_class=_responses.Response, responses=ACCEPTED_ACTION,
             summary="Pause: no replicas until resumed")
async def pause_container_deployment(ctx: ServerlessContext, deployment_name: str):
    serverless.pause(ctx.state, ctx.caller, CONTAINERS, deployment_name)
    return _responses.empty(201)


@router.post(PREFIX + "/{deployment_name}/resume", status_code=201, response_class=_responses.Response, responses=ACCEPTED_ACTION,
             summary="Resume a paused deployment")
async def resume_container_deployment(ctx: ServerlessContext, deployment_name: str):
    serverless.resume(ctx.state, ctx.caller, CONTAINERS, deployment_name)
    return _responses.empty(201)


@router.post(PREFIX + "/{deployment_name}/purge-queue", status_code=201, response_class=_responses.Response,
             responses=ACCEPTED_ACTION, summary="Drop the queued requests")
async def purge_container_queue(ctx: ServerlessContext, deployment_name: str):
    serverless.purge_queue(ctx.state, ctx.caller, CONTAINERS, deployment_name)
    return _responses.empty(201)


@router.get(PREFIX + "/{deployment_name}/scaling", response_model=ContainerScaling, responses=_responses.errors(404),
            summary="Scaling options")
async def get_container_scaling(ctx: ServerlessContext, deployment_name: str):
    return _responses.json(_find(ctx, deployment_name)["scaling"])


@router.patch(PREFIX + "/{deployment_name}/scaling", response_model=ContainerScaling, responses=_responses.errors(404),
              summary="Change scaling options (the given members)")
async def patch_container_scaling(ctx: ServerlessContext, deployment_name: str, body: ContainerScalingInput):
    return _responses.json(serverless.patch_container_scaling(ctx.state, ctx.caller, deployment_name, body))


@router.get(PREFIX + "/{deployment_name}/replicas", response_model=ReplicaList, responses=_responses.errors(404),
            summary="Replicas")
async def list_replicas(ctx: ServerlessContext, deployment_name: str):
    return _responses.json({"list": serverless.replicas(_find(ctx, deployment_name))})


# -- environment variables ---------------------------------------------------------------------------


@router.get(PREFIX + "/{deployment_name}/environment-variables", response_model=list[ContainerEnvVars],
            responses=_responses.errors(404), summary="Environment variables per container")
async def list_env_vars(ctx: ServerlessContext, deployment_name: str):
    return _responses.json(serverless.env_view(_find(ctx, deployment_name)))


@router.post(PREFIX + "/{deployment_name}/environment-variables", response_model=list[ContainerEnvVars],
             responses=_responses.errors(404, 409), summary="Add environment variables to a container (409 for an existing name)")
async def add_env_vars(ctx: ServerlessContext, deployment_name: str, body: EnvVarsChange):
    return _responses.json(serverless.env_view(serverless.add_env_vars(ctx.state, ctx.caller, deployment_name, body)))


@router.patch(PREFIX + "/{deployment_name}/environment-variables", response_model=ContainerEnvVars,
              responses=_responses.errors(404), summary="Change existing environment variables of a container")
async def update_env_vars(ctx: ServerlessContext, deployment_name: str, body: EnvVarsChange):
    container = serverless.update_env_vars(ctx.state, ctx.caller, deployment_name, body)
    return _responses.json({"container_name": container["name"], "env": container["env"]})


@router.delete(PREFIX + "/{deployment_name}/environment-variables", response_model=list[ContainerEnvVars],
               responses=_responses.errors(404), summary="Remove environment variables from a container")
async def delete_env_vars(ctx: ServerlessContext, deployment_name: str, body: EnvVarsDelete):
    return _responses.json(serverless.env_view(serverless.delete_env_vars(ctx.state, ctx.caller, deployment_name, body)))


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
             "enabled_by_default": feature.enabled_by_default, "env": serverless.feature_env(feature)}
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
    record = serverless.deploy_template(ctx.state, ctx.caller, str(ctx.request.base_url), template, body)
    return _responses.json(serverless.view(record), status_code=201)
