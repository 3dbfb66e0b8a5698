"""Serverless job deployments: create, list, read, patch, delete (waiting up to ``timeout`` ms),
scaling, status, pause, resume, purge-queue.

Every endpoint here takes an access token or the project's inference API key
(scopes.INFERENCE_KEY_PATHS). Jobs are addressed by name; their status is ``running``,
``paused`` or, while being deleted, ``terminating`` (then actions other than reads answer 400).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from cloudcompute_emulator.context import ApiContext, ServerlessContext
from cloudcompute_emulator.errors import invalid
from cloudcompute_emulator.resources import serverless
from cloudcompute_emulator.resources.serverless import JOBS
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.routes.container_deployments import ACCEPTED_ACTION, DELETE_RESPONSES, DeleteTimeout
from cloudcompute_emulator.schemas.serverless import (
    DELETE_TIMEOUT_DEFAULT_MS,
    JobDeployment,
    JobDeploymentCreate,
    JobDeploymentPatch,
    JobDeploymentStatus,
    JobScaling,
)
from cloudcompute_emulator.store import Record

router = APIRouter(tags=["Serverless jobs"])

PREFIX = "/v1/job-deployments"
JOB_DELETE_RESPONSES = {
    **DELETE_RESPONSES,
    202: {"description": "the wait ended before the removal; the job is terminating and goes soon"},
}


def _audit(ctx: ApiContext, action: str, record: Record, **extra: Any) -> None:
    ctx.audit("job_deployment", action, record["name"], job_deployment=serverless.view(record), **extra)


def _find(ctx: ApiContext, name: str, for_change: bool = False) -> Record:
    record = serverless.find(ctx.state, ctx.project_id, JOBS, name)
    if for_change:
        serverless.require_not_deleting(record, JOBS)
    return record


@router.get(PREFIX, response_model=list[JobDeployment], summary="Job deployments")
async def list_job_deployments(ctx: ServerlessContext):
    return _responses.json([serverless.view(record) for record in serverless.live(ctx.state, ctx.project_id, JOBS)])


@router.post(PREFIX, status_code=201, response_model=JobDeployment, responses=_responses.errors(402, 409, 503),
             summary="Create a job deployment")
async def create_job_deployment(ctx: ServerlessContext, body: JobDeploymentCreate):
    containers = serverless.containers(ctx.state, ctx.project_id, body.containers)
    compute = serverless.compute(body.compute)
    scaling = serverless.job_scaling(body.scaling)
    registry = serverless.registry_settings(ctx.state, ctx.project_id, body.container_registry_settings)
    serverless.require_free_name(ctx.state, ctx.project_id, JOBS, body.name)
    serverless.check_can_deploy(ctx.state, ctx.project_id, compute)
    record = serverless.new_record(
        ctx.state, ctx.caller, str(ctx.request.base_url), JOBS,
        name=body.name, containers=containers, compute=compute, scaling=scaling, registry=registry,
    )
    ctx.store.insert(JOBS, record)
    _audit(ctx, "create", record)
    return _responses.json(serverless.view(record), status_code=201)


@router.get(PREFIX + "/{jobName}", response_model=JobDeployment, responses=_responses.errors(404), summary="One job deployment")
async def get_job_deployment(ctx: ServerlessContext, jobName: str):  # noqa: N803 - the spec's parameter name
    return _responses.json(serverless.view(_find(ctx, jobName)))


@router.patch(PREFIX + "/{jobName}", response_model=JobDeployment, responses=_responses.errors(404, 503),
              summary="Replace the given top-level fields")
async def patch_job_deployment(ctx: ServerlessContext, jobName: str, body: JobDeploymentPatch):  # noqa: N803
    record = _find(ctx, jobName, for_change=True)
    if body.name is not None and body.name != record["name"]:
        raise invalid(f"name: immutable (the job is {record['name']})")
    changes: dict[str, Any] = {}
    if body.containers is not None:
        changes["containers"] = serverless.containers(ctx.state, ctx.project_id, body.containers, record["containers"])
    if body.compute is not None:
        changes["compute"] = serverless.compute(body.compute)
    if body.scaling is not None:
        changes["scaling"] = serverless.job_scaling(body.scaling)
    if body.container_registry_settings is not None:
        changes["container_registry_settings"] = serverless.registry_settings(ctx.state, ctx.project_id, body.container_registry_settings)
    changes = {key: value for key, value in changes.items() if value != record[key]}
    if "compute" in changes:
        serverless.check_can_deploy(ctx.state, ctx.project_id, changes["compute"])
    if changes:
        record.update(changes)
        ctx.store.save(JOBS, record)
        _audit(ctx, "update", record)
    return _responses.json(serverless.view(record))


@router.delete(PREFIX + "/{jobName}", status_code=204, response_class=_responses.Response, responses=JOB_DELETE_RESPONSES,
               summary="Delete a job deployment (waits up to timeout ms for the removal)")
async def delete_job_deployment(ctx: ServerlessContext, jobName: str, timeout: DeleteTimeout = DELETE_TIMEOUT_DEFAULT_MS):  # noqa: N803
    record = _find(ctx, jobName)
    if not record["deleting"]:
        _audit(ctx, "delete", record)
    return _responses.empty(204 if serverless.delete(ctx.state, record, timeout) else 202)


@router.get(PREFIX + "/{jobName}/scaling", response_model=JobScaling, responses=_responses.errors(404), summary="Scaling options")
async def get_job_scaling(ctx: ServerlessContext, jobName: str):  # noqa: N803
    return _responses.json(_find(ctx, jobName)["scaling"])


@router.get(PREFIX + "/{jobName}/status", response_model=JobDeploymentStatus, responses=_responses.errors(404), summary="Job status")
async def get_job_status(ctx: ServerlessContext, jobName: str):  # noqa: N803
    return _responses.json({"status": _find(ctx, jobName)["status"]})


@router.post(PREFIX + "/{jobName}/purge-queue", status_code=201, response_class=_responses.Response, responses=ACCEPTED_ACTION,
             summary="Drop the queued jobs")
async def purge_job_queue(ctx: ServerlessContext, jobName: str):  # noqa: N803
    record = _find(ctx, jobName, for_change=True)
    record["queue_purged_at"] = ctx.now()
    ctx.store.save(JOBS, record)
    _audit(ctx, "other", record, operation="purge_queue")
    return _responses.empty(201)


@router.post(PREFIX + "/{jobName}/pause", status_code=201, response_class=_responses.Response, responses=ACCEPTED_ACTION,
             summary="Pause: queued jobs wait")
async def pause_job(ctx: ServerlessContext, jobName: str):  # noqa: N803
    record = _find(ctx, jobName, for_change=True)
    if serverless.pause(ctx.state, record):
        _audit(ctx, "shutdown", record, operation="pause")
    return _responses.empty(201)


@router.post(PREFIX + "/{jobName}/resume", status_code=201, response_class=_responses.Response, responses=ACCEPTED_ACTION,
             summary="Resume a paused job deployment")
async def resume_job(ctx: ServerlessContext, jobName: str):  # noqa: N803
    record = _find(ctx, jobName, for_change=True)
    if serverless.resume(ctx.state, record):
        _audit(ctx, "start", record, operation="resume")
    return _responses.empty(201)
