"""Serverless job deployments: create, list, read, patch, delete (waiting up to ``timeout`` ms),
scaling, status, pause, resume, purge-queue.

Every endpoint here takes an access token or the project's inference API key
(scopes.INFERENCE_KEY_PATHS). Jobs are addressed by name; their status is ``running``,
``paused`` or, while being deleted, ``terminating`` (then actions other than reads answer 400).
"""

from __future__ import annotations

from fastapi import APIRouter

from cloudcompute_emulator.context import ApiContext, ServerlessContext
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


def _find(ctx: ApiContext, name: str) -> Record:
    return serverless.find(ctx.state, ctx.project_id, JOBS, name)


@router.get(PREFIX, response_model=list[JobDeployment], summary="Job deployments")
async def list_job_deployments(ctx: ServerlessContext):
    return _responses.json([serverless.view(record) for record in serverless.live(ctx.state, ctx.project_id, JOBS)])


@router.post(PREFIX, status_code=201, response_model=JobDeployment, responses=_responses.errors(402, 409, 503),
             summary="Create a job deployment")
async def create_job_deployment(ctx: ServerlessContext, body: JobDeploymentCreate):
    record = serverless.create_job_deployment(ctx.state, ctx.caller, str(ctx.request.base_url), body)
    return _responses.json(serverless.view(record), status_code=201)


@router.get(PREFIX + "/{jobName}", response_model=JobDeployment, responses=_responses.errors(404), summary="One job deployment")
async def get_job_deployment(ctx: ServerlessContext, jobName: str):  # noqa: N803 - the spec's parameter name
    return _responses.json(serverless.view(_find(ctx, jobName)))


@router.patch(PREFIX + "/{jobName}", response_model=JobDeployment, responses=_responses.errors(404, 503),
              summary="Replace the given top-level fields")
async def patch_job_deployment(ctx: ServerlessContext, jobName: str, body: JobDeploymentPatch):  # noqa: N803
    return _responses.json(serverless.view(serverless.patch(ctx.state, ctx.caller, JOBS, jobName, body)))


@router.delete(PREFIX + "/{jobName}", status_code=204, response_class=_responses.Response, responses=JOB_DELETE_RESPONSES,
               summary="Delete a job deployment (waits up to timeout ms for the removal)")
async def delete_job_deployment(ctx: ServerlessContext, jobName: str, timeout: DeleteTimeout = DELETE_TIMEOUT_DEFAULT_MS):  # noqa: N803
    return _responses.empty(204 if serverless.delete(ctx.state, ctx.caller, JOBS, jobName, timeout) else 202)


@router.get(PREFIX + "/{jobName}/scaling", response_model=JobScaling, responses=_responses.errors(404), summary="Scaling options")
async def get_job_scaling(ctx: ServerlessContext, jobName: str):  # noqa: N803
    return _responses.json(_find(ctx, jobName)["scaling"])


@router.get(PREFIX + "/{jobName}/status", response_model=JobDeploymentStatus, responses=_responses.errors(404), summary="Job status")
async def get_job_status(ctx: ServerlessContext, jobName: str):  # noqa: N803
    return _responses.json({"status": _find(ctx, jobName)["status"]})


@router.post(PREFIX + "/{jobName}/purge-queue", status_code=201, response_class=_responses.Response, responses=ACCEPTED_ACTION,
             summary="Drop the queued jobs")
async def purge_job_queue(ctx: ServerlessContext, jobName: str):  # noqa: N803
    serverless.purge_queue(ctx.state, ctx.caller, JOBS, jobName)
    return _responses.empty(201)


@router.post(PREFIX + "/{jobName}/pause", status_code=201, response_class=_responses.Response, responses=ACCEPTED_ACTION,
             summary="Pause: queued jobs wait")
async def pause_job(ctx: ServerlessContext, jobName: str):  # noqa: N803
    serverless.pause(ctx.state, ctx.caller, JOBS, jobName)
    return _responses.empty(201)


@router.post(PREFIX + "/{jobName}/resume", status_code=201, response_class=_responses.Response, responses=ACCEPTED_ACTION,
             summary="Resume a paused job deployment")
async def resume_job(ctx: ServerlessContext, jobName: str):  # noqa: N803
    serverless.resume(ctx.state, ctx.caller, JOBS, jobName)
    return _responses.empty(201)
